#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Part of StackScope (GPL-3.0-or-later, LICENSE at the top of the repository).
"""Measures a GPU's kernels with PyTorch and writes StackScope's kernel-table CSV.

The table (docs/model.md §3.5; read by `stackscope-cli kernels FILE.csv` and by `evaluate` and
`serve` with `--kernel-table FILE.csv`) has one header row and one row per measured kernel:

    kind,precision,m,n,k,batch,seq,heads,kv_heads,head_dim,time_s

  gemm          precision, m (tokens), n (output features), k (input features), time_s;
                batch..head_dim empty. bf16 and fp16 by F.linear (cuBLAS); fp8 e4m3 by
                torch._scaled_mm with per-tensor scales and bf16 output, where the GPU has FP8
                (compute capability 8.9 or newer).
  attn_decode   bf16 flash SDPA of one layer's decode: `batch` sequences, one new token each,
                against `seq` cached keys (the context); heads, kv_heads, head_dim per device.
  attn_prefill  bf16 causal SDPA with GQA of one prompt of `seq` tokens, no cached prefix.

time_s is the median time of one kernel call in seconds. The weight shapes and the head layout
come from a model (--model: a StackScope preset id, a preset file or a Hugging Face
config.json), sharded as tensor parallelism shards them (--tp). The grids cover what the
table's lookups interpolate over (core/kernels/include/stackscope/kernels/table.hpp): m from 1
to --m-max in powers of two per weight shape; decode attention over batches x contexts;
prefill attention over prompt lengths.

Timing method: that of data/h200-measured/h200_truth.py, which measured the H200 data in
data/h200-measured: a CUDA graph is captured of several back-to-back calls of the kernel (after
two warm-up calls on a side stream), replayed twice to warm up, then replayed --replays times
between two CUDA events; time_s is the median replay time over the number of calls in the
graph, so a row includes the kernel's launch gap as a captured decode step does. One change by
default: where a weight (or the K/V of a decode) is smaller than twice the GPU's L2 cache, the
calls in the graph cycle through enough copies of it that none is read from L2 (as in a real
forward pass, where the other layers' weights pass through L2 in between); --warm-l2 times one
copy, exactly as h200_truth.py does.

The environment (GPU, driver, PyTorch, CUDA, clocks and power limit when pynvml is installed)
goes to a sidecar FILE.csv.json, never into the CSV. Both files are written atomically (a
temporary file in the same folder, then os.replace); while measuring, the rows so far are kept
in FILE.csv.partial (and .partial.json), removed when the table is complete.

Never run by CI: it needs PyTorch with CUDA. --tiny runs every code path on a CPU at toy sizes
(time.perf_counter, no graphs); --plan prints the kernels it would measure and needs no PyTorch.
See tools/profile-gpu/README.md.
"""
import argparse
import contextlib
import csv
import datetime
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PRESET_DIR = REPO / "presets" / "models"
COLUMNS = ["kind", "precision", "m", "n", "k", "batch", "seq", "heads", "kv_heads", "head_dim",
           "time_s"]
KINDS = ("gemm", "attn_decode", "attn_prefill")
TABLE_PRECISIONS = ("fp32", "fp16", "bf16", "fp8", "int8", "fp4")  # what the table may hold
MEASURED_DTYPES = ("bf16", "fp16", "fp8")                            # what this tool measures
ATTN_PRECISION = "bf16"
PLAIN_MLP_TYPES = {"falcon", "gpt2", "gpt_neox", "gptj", "gpt_bigcode", "opt", "bloom", "phi",
                   "mpt", "starcoder2"}  # Hugging Face model types with an ungated MLP
TOY_MODEL = {"id": "tiny-toy", "name": "toy model for --tiny", "layers": 2, "hidden": 64,
             "heads": 4, "kv_heads": 2, "head_dim": 16, "ffn_dim": 96, "vocab": 256,
             "attention": "gqa", "ffn": "swiglu", "max_context_tokens": 64}


class UsageError(Exception):
    """A bad argument, model file or environment: exit status 2."""


# --- the model and its kernel shapes (no PyTorch needed) ---------------------------------------

def _pos_int(value, field, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) \
            or value < 1:
        raise UsageError(f"{where}: {field} is {value!r}, expected a whole number >= 1")
    return int(value)


def _first(d, keys, where, default=None, required=True):
    for key in keys:
        if d.get(key) is not None:
            return _pos_int(d[key], key, where)
    if default is not None or not required:
        return default
    raise UsageError(f"{where}: no {' / '.join(keys)} field")


class Model:
    """The shape facts the kernels depend on, from a StackScope preset or a HF config.json."""

    def __init__(self, **kw):
        self.id = kw["id"]
        self.source = kw["source"]          # the file it came from
        self.format = kw["format"]          # "stackscope preset" or "huggingface config"
        self.hidden = kw["hidden"]
        self.heads = kw["heads"]
        self.kv_heads = kw["kv_heads"]
        self.head_dim = kw["head_dim"]
        self.ffn_dim = kw["ffn_dim"]        # dense FFN width (None: no dense layer)
        self.gated = kw["gated"]            # SwiGLU-style gate + up, else one up matrix
        self.vocab = kw["vocab"]
        self.moe = kw.get("moe")            # {experts, top_k, expert_ffn_dim, shared_ffn_dim}
        self.mla = kw.get("mla")            # {q_lora_rank, kv_lora_rank, qk_nope_head_dim, ...}
        self.max_context = kw.get("max_context")

    def describe(self):
        s = (f"hidden {self.hidden}, heads {self.heads}, kv_heads {self.kv_heads}, head_dim "
             f"{self.head_dim}, ffn {self.ffn_dim if self.ffn_dim else '-'} "
             f"({'gated' if self.gated else 'plain'}), vocab {self.vocab}")
        if self.moe:
            m = self.moe
            s += (f"; MoE {m['experts']} experts top-{m['top_k']} of {m['expert_ffn_dim']}"
                  + (f", shared {m['shared_ffn_dim']}" if m["shared_ffn_dim"] else ""))
        if self.mla:
            s += f"; MLA kv_lora_rank {self.mla['kv_lora_rank']}"
        if self.max_context:
            s += f"; context up to {self.max_context}"
        return s

    def as_json(self):
        return {k: v for k, v in self.__dict__.items()}


def _preset_model(d, where, ident):
    hidden = _first(d, ["hidden"], where)
    heads = _first(d, ["heads"], where)
    kv = _first(d, ["kv_heads"], where, default=heads)
    head_dim = _first(d, ["head_dim"], where, required=False)
    if head_dim is None:
        if hidden % heads:
            raise UsageError(f"{where}: no head_dim, and hidden {hidden} is not a multiple of "
                             f"heads {heads}")
        head_dim = hidden // heads
    ffn_kind = d.get("ffn", "swiglu")
    if ffn_kind not in ("swiglu", "gelu"):
        raise UsageError(f"{where}: ffn is {ffn_kind!r}, expected swiglu or gelu")
    moe = None
    dense = True
    if d.get("moe") is not None:
        m = d["moe"]
        if not isinstance(m, dict):
            raise UsageError(f"{where}: moe is not an object")
        w = where + " moe"
        experts = _first(m, ["experts"], w)
        expert_ffn = _first(m, ["expert_ffn_dim"], w)
        shared = int(m.get("shared_experts") or 0)
        shared_dim = int(m.get("shared_expert_ffn_dim") or 0) or expert_ffn
        moe = {"experts": experts, "top_k": _first(m, ["top_k"], w, default=1),
               "expert_ffn_dim": expert_ffn, "shared_ffn_dim": shared * shared_dim}
        dense = int(m.get("first_dense_layers") or 0) > 0
    mla = None
    if d.get("attention") == "mla":
        a = d.get("mla")
        if not isinstance(a, dict):
            raise UsageError(f"{where}: attention is mla but there is no mla object")
        w = where + " mla"
        mla = {"q_lora_rank": int(a.get("q_lora_rank") or 0),
               "kv_lora_rank": _first(a, ["kv_lora_rank"], w),
               "qk_nope_head_dim": _first(a, ["qk_nope_head_dim"], w),
               "qk_rope_head_dim": _first(a, ["qk_rope_head_dim"], w),
               "v_head_dim": _first(a, ["v_head_dim"], w)}
    return Model(id=d.get("id") or ident, source=where, format="stackscope preset",
                 hidden=hidden, heads=heads, kv_heads=kv, head_dim=head_dim,
                 ffn_dim=_first(d, ["ffn_dim"], where) if dense else None,
                 gated=ffn_kind == "swiglu", vocab=_first(d, ["vocab"], where), moe=moe, mla=mla,
                 max_context=_first(d, ["max_context_tokens"], where, required=False))


def _hf_model(d, where, ident):
    hidden = _first(d, ["hidden_size", "n_embd", "d_model"], where)
    heads = _first(d, ["num_attention_heads", "n_head", "num_heads"], where)
    kv = _first(d, ["num_key_value_heads", "num_kv_heads", "n_head_kv"], where,
                default=1 if d.get("multi_query") else heads)
    head_dim = _first(d, ["head_dim"], where, required=False)
    if head_dim is None:
        if hidden % heads:
            raise UsageError(f"{where}: no head_dim, and hidden_size {hidden} is not a multiple "
                             f"of num_attention_heads {heads}")
        head_dim = hidden // heads
    model_type = str(d.get("model_type", ""))
    gated = model_type not in PLAIN_MLP_TYPES
    ffn = _first(d, ["intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"], where,
                 required=False)
    if ffn is None:
        if gated:
            raise UsageError(f"{where}: no intermediate_size field")
        ffn = 4 * hidden
    moe = None
    dense = True
    experts = _first(d, ["num_local_experts", "n_routed_experts", "num_experts"], where,
                     required=False)
    if experts:
        expert_ffn = _first(d, ["moe_intermediate_size"], where, default=ffn)
        shared = int(d.get("n_shared_experts") or 0) * expert_ffn \
            + int(d.get("shared_expert_intermediate_size") or 0)
        moe = {"experts": experts, "top_k": _first(d, ["num_experts_per_tok"], where, default=1),
               "expert_ffn_dim": expert_ffn, "shared_ffn_dim": shared}
        dense = (int(d.get("first_k_dense_replace") or 0) > 0 or bool(d.get("mlp_only_layers"))
                 or int(d.get("decoder_sparse_step") or 1) > 1)
    mla = None
    if d.get("kv_lora_rank"):
        mla = {"q_lora_rank": int(d.get("q_lora_rank") or 0),
               "kv_lora_rank": _first(d, ["kv_lora_rank"], where),
               "qk_nope_head_dim": _first(d, ["qk_nope_head_dim"], where),
               "qk_rope_head_dim": _first(d, ["qk_rope_head_dim"], where),
               "v_head_dim": _first(d, ["v_head_dim"], where)}
    return Model(id=ident, source=where, format="huggingface config", hidden=hidden, heads=heads,
                 kv_heads=kv, head_dim=head_dim, ffn_dim=ffn if dense else None, gated=gated,
                 vocab=_first(d, ["vocab_size"], where), moe=moe, mla=mla,
                 max_context=_first(d, ["max_position_embeddings"], where, required=False))


def model_from_dict(d, where, ident):
    if not isinstance(d, dict):
        raise UsageError(f"{where}: not a JSON object")
    if "hidden" in d and "heads" in d:
        m = _preset_model(d, where, ident)
    else:
        if "text_config" in d and "hidden_size" not in d and isinstance(d["text_config"], dict):
            d = d["text_config"]  # multimodal configs keep the language model's shape here
        if not any(k in d for k in ("hidden_size", "n_embd", "d_model")):
            raise UsageError(f"{where}: neither a StackScope model preset (hidden, heads, "
                             f"kv_heads, head_dim, ffn_dim, vocab) nor a Hugging Face config.json "
                             f"(hidden_size, num_attention_heads, intermediate_size, vocab_size)")
        m = _hf_model(d, where, ident)
    if not m.mla and m.heads % m.kv_heads:
        raise UsageError(f"{where}: {m.heads} heads are not a multiple of {m.kv_heads} KV heads")
    return m


def load_model(spec):
    path = Path(spec)
    if not path.is_file():
        preset = PRESET_DIR / (spec + ".json")
        if "/" not in spec and not spec.endswith(".json") and preset.is_file():
            path = preset
        else:
            ids = sorted(p.stem for p in PRESET_DIR.glob("*.json")) if PRESET_DIR.is_dir() else []
            raise UsageError(f"--model {spec}: no such file, and not a model preset id"
                             + (f" (presets: {', '.join(ids)})" if ids else ""))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot read: {e}") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: not valid JSON: {e}") from None
    ident = path.stem if path.name != "config.json" else (path.resolve().parent.name or "model")
    shown = str(path)
    with contextlib.suppress(ValueError):
        shown = str(path.resolve().relative_to(REPO))
    return model_from_dict(d, shown, ident)


def gemm_shapes(model, tp, moe_tp):
    """Per-device GEMM weight shapes [(name, n, k)] as StackScope's evaluator charges them
    (core/perf/src/evaluator_blocks.cpp): QKV and gate/up column-parallel (n / tp), the output
    and down projections row-parallel (k / tp), router and MLA down projections replicated."""
    m = model
    if m.heads % tp:
        raise UsageError(f"--tp {tp}: {m.heads} heads do not split {tp} ways")
    heads = m.heads // tp
    shapes = []
    if m.mla:
        a = m.mla
        qk = a["qk_nope_head_dim"] + a["qk_rope_head_dim"]
        if a["q_lora_rank"]:
            shapes += [("mla_q_down", a["q_lora_rank"], m.hidden),
                       ("mla_q_up", heads * qk, a["q_lora_rank"])]
        else:
            shapes.append(("mla_q", heads * qk, m.hidden))
        shapes += [("mla_kv_down", a["kv_lora_rank"] + a["qk_rope_head_dim"], m.hidden),
                   ("mla_kv_up", heads * (a["qk_nope_head_dim"] + a["v_head_dim"]),
                    a["kv_lora_rank"]),
                   ("mla_absorb_k (per head)", a["kv_lora_rank"], a["qk_nope_head_dim"]),
                   ("mla_absorb_v (per head)", a["v_head_dim"], a["kv_lora_rank"]),
                   ("attn_out", m.hidden, heads * a["v_head_dim"])]
    else:
        if m.kv_heads >= tp and m.kv_heads % tp:
            raise UsageError(f"--tp {tp}: {m.kv_heads} KV heads do not split {tp} ways")
        if m.kv_heads < tp and tp % m.kv_heads:
            raise UsageError(f"--tp {tp}: {m.kv_heads} KV heads cannot be replicated over {tp} "
                             f"ranks evenly")
        kv = max(1, m.kv_heads // tp)
        shapes += [("qkv", (heads + 2 * kv) * m.head_dim, m.hidden),
                   ("attn_out", m.hidden, heads * m.head_dim)]
    mats = 2 if m.gated else 1
    up = "gate_up" if m.gated else "up"
    if m.ffn_dim:
        if m.ffn_dim % tp:
            raise UsageError(f"--tp {tp}: FFN width {m.ffn_dim} does not split {tp} ways")
        shapes += [("ffn_" + up, mats * m.ffn_dim // tp, m.hidden),
                   ("ffn_down", m.hidden, m.ffn_dim // tp)]
    if m.moe:
        e = m.moe
        for name, width in (("expert", e["expert_ffn_dim"]),
                            ("shared_expert", e["shared_ffn_dim"])):
            if not width:
                continue
            if width % moe_tp:
                raise UsageError(f"--moe-tp {moe_tp}: {name} width {width} does not split "
                                 f"{moe_tp} ways")
            shapes += [(f"{name}_{up}", mats * width // moe_tp, m.hidden),
                       (f"{name}_down", m.hidden, width // moe_tp)]
        shapes.append(("router", e["experts"], m.hidden))
    shapes.append(("lm_head", -(-m.vocab // tp), m.hidden))
    return shapes


def attention_layout(model, tp):
    """(heads, kv_heads, head_dim) per device, or (None, reason)."""
    if model.mla:
        return None, ("MLA attends in the latent space, not with an SDPA head layout: no "
                      "attention rows (its GEMMs are measured)")
    return (model.heads // tp, max(1, model.kv_heads // tp), model.head_dim), None


def powers_of(base, lo, hi):
    out, v = [], lo
    while v <= hi:
        out.append(v)
        v *= base
    return out


class Plan:
    def __init__(self, args, model):
        self.model = model
        self.tp, self.moe_tp = args.tp, args.moe_tp
        self.dtypes = args.dtypes
        self.kinds = args.kinds
        self.notes = []
        shapes = gemm_shapes(model, args.tp, args.moe_tp)
        uses = {}
        for name, n, k in shapes:
            uses.setdefault((n, k), []).append(name)
        self.gemm = [(n, k, names) for (n, k), names in uses.items()] \
            if "gemm" in self.kinds else []
        # torch._scaled_mm takes n and k in multiples of 16 only
        self.no_fp8 = [(n, k) for n, k, _ in self.gemm if n % 16 or k % 16]
        if "fp8" in self.dtypes and self.no_fp8:
            self.notes.append("fp8 left out for weight shapes " + ", ".join(
                f"{n} x {k}" for n, k in self.no_fp8) + " (torch._scaled_mm needs n and k in "
                "multiples of 16)")
        if args.tiny:
            self.m = powers_of(2, 1, min(args.m_max, 16))
            batches, contexts, seqs = [1, 2], [16, 32], [16, 32]
        elif args.quick:
            self.m = powers_of(4, 1, args.m_max)
            batches = powers_of(4, 1, args.batch_max)
            contexts = powers_of(4, 512, args.context_max)
            seqs = powers_of(4, 256, args.seq_max)
        else:
            self.m = powers_of(2, 1, args.m_max)
            batches = powers_of(2, 1, args.batch_max)
            contexts = powers_of(2, 256, args.context_max)
            seqs = powers_of(2, 128, args.seq_max)
        contexts = contexts or [args.context_max]
        seqs = seqs or [args.seq_max]
        if self.m[-1] != args.m_max and not args.tiny:
            self.m.append(args.m_max)
        cap = model.max_context
        if cap and not args.tiny:
            if any(c > cap for c in contexts) and "attn_decode" in self.kinds:
                self.notes.append(f"decode contexts capped at the model's {cap} tokens")
            if any(s > cap for s in seqs) and "attn_prefill" in self.kinds:
                self.notes.append(f"prefill lengths capped at the model's {cap} tokens")
            contexts = [c for c in contexts if c <= cap] or [cap]
            seqs = [s for s in seqs if s <= cap] or [cap]
        self.layout, why = attention_layout(model, args.tp)
        attention = "attn_decode" in self.kinds or "attn_prefill" in self.kinds
        if why and attention:
            self.notes.append(why)
        if not attention:
            self.layout = None
        self.decode, self.prefill = [], []
        if self.layout and "attn_decode" in self.kinds:
            h, kv, d = self.layout
            limit = args.max_kv_gib * 2**30
            dropped = 0
            for b in batches:
                for c in contexts:
                    if 2 * b * kv * c * d * 2 <= limit:
                        self.decode.append((b, c))
                    else:
                        dropped += 1
            if dropped:
                self.notes.append(f"{dropped} decode case{'s' if dropped > 1 else ''} left out: "
                                  f"K and V over --max-kv-gib {args.max_kv_gib:g}")
        if self.layout and "attn_prefill" in self.kinds:
            self.prefill = seqs
        self.batches, self.contexts, self.seqs = batches, contexts, seqs

    def kernels(self):
        """Every planned kernel as (kind, precision, dims dict, label)."""
        out = []
        for dt in self.dtypes:
            for n, k, names in self.gemm:
                if dt == "fp8" and (n, k) in self.no_fp8:
                    continue
                for m in self.m:
                    out.append(("gemm", dt, {"m": m, "n": n, "k": k}, ", ".join(names)))
        if self.layout:
            h, kv, d = self.layout
            for b, c in self.decode:
                out.append(("attn_decode", ATTN_PRECISION,
                            {"batch": b, "seq": c, "heads": h, "kv_heads": kv, "head_dim": d}, ""))
            for s in self.prefill:
                out.append(("attn_prefill", ATTN_PRECISION,
                            {"batch": 1, "seq": s, "heads": h, "kv_heads": kv, "head_dim": d}, ""))
        return out

    def summary(self):
        m = self.model
        lines = [f"model {m.id} ({m.format}, {m.source}): {m.describe()}",
                 f"tensor parallelism {self.tp}" + (f", expert TP {self.moe_tp}" if m.moe else "")
                 + "; shapes are per device"]
        if self.gemm:
            lines.append(f"gemm {','.join(self.dtypes)}: {len(self.gemm)} weight shapes (n x k) x "
                         f"m = {' '.join(map(str, self.m))}")
            for n, k, names in self.gemm:
                lines.append(f"  {n:>7} x {k:<7} {', '.join(names)}")
        if self.layout:
            h, kv, d = self.layout
            if self.decode:
                bs = sorted({b for b, _ in self.decode})
                cs = sorted({c for _, c in self.decode})
                lines.append(f"attn_decode {ATTN_PRECISION}: heads {h}, kv_heads {kv}, head_dim "
                             f"{d}; {len(self.decode)} cases of batch {' '.join(map(str, bs))} x "
                             f"context {' '.join(map(str, cs))}")
            if self.prefill:
                lines.append(f"attn_prefill {ATTN_PRECISION}: heads {h}, kv_heads {kv}, head_dim "
                             f"{d}; batch 1, seq {' '.join(map(str, self.prefill))}")
        for n in self.notes:
            lines.append("note: " + n)
        return lines

    def as_json(self):
        return {"tp": self.tp, "moe_tp": self.moe_tp, "dtypes": self.dtypes, "kinds": self.kinds,
                "gemm_shapes": [{"n": n, "k": k, "uses": names} for n, k, names in self.gemm],
                "m": self.m, "attention_layout": (dict(zip(("heads", "kv_heads", "head_dim"),
                                                           self.layout)) if self.layout else None),
                "decode_cases": [{"batch": b, "context": c} for b, c in self.decode],
                "prefill_seq": self.prefill, "notes": self.notes}


# --- the CSV and the sidecar ---------------------------------------------------------------------

def table_text(rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", restval="")
    w.writeheader()
    for r in rows:
        w.writerow({k: (format(v, ".6g") if k == "time_s" else v) for k, v in r.items()})
    return buf.getvalue()


def write_atomic(path, text):
    """Writes text to path by a temporary file in the same folder and os.replace."""
    path = os.path.abspath(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_table(path):
    """Reads a written table back as StackScope's reader would and returns rows per kind."""
    counts = {k: 0 for k in KINDS}
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.DictReader(f)
        if r.fieldnames != COLUMNS:
            raise ValueError(f"{path}: header {r.fieldnames}, expected {COLUMNS}")
        for i, row in enumerate(r, start=2):
            kind = row["kind"]
            if kind not in KINDS or row["precision"] not in TABLE_PRECISIONS:
                raise ValueError(f"{path}:{i}: kind {kind!r} precision {row['precision']!r}")
            t = float(row["time_s"])
            if not (0 < t <= 3600):
                raise ValueError(f"{path}:{i}: time_s {t}")
            need = ["m", "n", "k"] if kind == "gemm" else ["batch", "seq", "heads", "kv_heads",
                                                           "head_dim"]
            for c in COLUMNS[2:-1]:
                if (c in need) != (row[c] != ""):
                    raise ValueError(f"{path}:{i}: column {c} {'empty' if c in need else 'set'}")
                if c in need and not (row[c].isdigit() and 1 <= int(row[c]) <= 2**24):
                    raise ValueError(f"{path}:{i}: {c} {row[c]!r}")
            counts[kind] += 1
    return counts


# --- measuring (PyTorch, imported only here) ---------------------------------------------------

class Bench:
    def __init__(self, args, notes):
        try:
            import torch
            import torch.nn.functional as F
        except ImportError:
            raise UsageError("needs PyTorch (with CUDA for a real run): python3 -m pip install "
                             "torch; --plan works without it") from None
        self.torch, self.F = torch, F
        self.notes = notes
        self.skipped = []
        self.tiny = args.tiny
        self.cuda = not args.tiny
        if self.cuda and not torch.cuda.is_available():
            raise UsageError(f"no CUDA GPU visible to PyTorch {torch.__version__} (torch.version."
                             f"cuda {torch.version.cuda}); --tiny runs the code paths on a CPU")
        self.dev = "cuda" if self.cuda else "cpu"
        self.replays = args.replays
        self.decode_mode = args.decode_sdpa
        self.decode_checked = False
        self.prefill_mode = None  # "enable_gqa" or "expanded", set by the first prefill
        if self.cuda:
            p = torch.cuda.get_device_properties(0)
            self.cc = (p.major, p.minor)
            self.l2 = int(getattr(p, "L2_cache_size", 0) or 0)
            if not self.l2:
                self.l2 = 128 << 20
                notes.append("L2 size not reported by this PyTorch: 128 MiB assumed")
        else:
            self.cc = None
            self.l2 = 64 << 10  # a toy L2, so that --tiny runs the rotation path too
        self.rotate = not args.warm_l2
        self.fp8_pad = False
        self.graphs_failed = False

    # the timing method of data/h200-measured/h200_truth.py --------------------------------------
    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def capture(self, calls):
        """A zero-argument replay of the calls back to back: a CUDA graph on a GPU."""
        def eager():
            for c in calls:
                c()
        if not self.cuda:
            return eager
        torch = self.torch
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                for c in calls:
                    c()
        torch.cuda.current_stream().wait_stream(s)
        self.sync()
        try:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for c in calls:
                    c()
            self.sync()
            return g.replay
        except RuntimeError as e:  # keep measuring, eagerly, and say so
            self.sync()
            if not self.graphs_failed:
                self.notes.append(f"CUDA graph capture failed ({repr(e)[:160]}); such rows are "
                                  f"timed eagerly, CUDA events around back-to-back calls")
                self.graphs_failed = True
            return eager

    def time_replay(self, rep, inner, warm=2):
        for _ in range(warm):
            rep()
        self.sync()
        ts = []
        for _ in range(self.replays):
            if self.cuda:
                a = self.torch.cuda.Event(enable_timing=True)
                b = self.torch.cuda.Event(enable_timing=True)
                a.record()
                rep()
                b.record()
                b.synchronize()
                ts.append(a.elapsed_time(b) / 1000.0 / inner)
            else:
                t = time.perf_counter()
                rep()
                ts.append((time.perf_counter() - t) / inner)
        return statistics.median(ts)

    def copies(self, nbytes):
        """How many copies of an operand of nbytes keep its reuse distance past twice L2."""
        if not self.rotate or nbytes >= 2 * self.l2:
            return 1
        return min(64, -(-2 * self.l2 // max(1, nbytes)))

    def run(self, calls, inner):
        seq = [calls[i % len(calls)] for i in range(max(inner, len(calls)))]
        rep = self.capture(seq)
        t = self.time_replay(rep, len(seq))
        del rep
        return t

    def release(self):
        if self.cuda:
            self.sync()
            self.torch.cuda.empty_cache()

    # kernels ------------------------------------------------------------------------------------
    def fp8_ok(self):
        t = self.torch
        return (self.cuda and self.cc >= (8, 9) and hasattr(t, "float8_e4m3fn")
                and hasattr(t, "_scaled_mm"))

    def dtype(self, name):
        return {"bf16": self.torch.bfloat16, "fp16": self.torch.float16}[name]

    def gemm(self, precision, m, n, k):
        torch, F, dev = self.torch, self.F, self.dev
        inner = 20 if m * n * k < 2**34 else 5
        if precision == "fp8":
            f8 = torch.float8_e4m3fn
            nw = self.copies(n * k)
            ws = [torch.empty(n, k, device=dev, dtype=torch.bfloat16).normal_(0, 0.1).to(f8)
                  for _ in range(nw)]
            one = torch.tensor(1.0, device=dev)
            mm = m + (-m % 16) if self.fp8_pad else m
            x = torch.empty(mm, k, device=dev, dtype=torch.bfloat16).normal_(0, 0.1).to(f8)

            def call(w, x=x):
                return torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
            try:
                call(ws[0])
                self.sync()
            except RuntimeError as e:
                if self.fp8_pad or m % 16 == 0:
                    raise
                self.fp8_pad = True
                self.notes.append(f"fp8: torch._scaled_mm refused m = {m} ({repr(e)[:120]}); rows "
                                  f"with m not a multiple of 16 time m padded up to one, as a "
                                  f"runtime pads it")
                return self.gemm(precision, m, n, k)
            calls = [lambda w=w: call(w) for w in ws]
        else:
            dt = self.dtype(precision)
            nw = self.copies(n * k * 2)
            ws = [torch.randn(n, k, device=dev, dtype=dt) * (1.0 / math.sqrt(k)) for _ in range(nw)]
            x = torch.randn(m, k, device=dev, dtype=dt)
            calls = [lambda w=w: F.linear(x, w) for w in ws]
        return self.run(calls, inner)

    def fast_sdpa(self):
        """Flash, cuDNN or memory-efficient SDPA, never the math backend (as h200_truth.py)."""
        if not self.cuda:
            return contextlib.nullcontext()
        try:
            from torch.nn.attention import sdpa_kernel, SDPBackend
            names = ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")
            return sdpa_kernel([getattr(SDPBackend, n) for n in names if hasattr(SDPBackend, n)])
        except ImportError:  # PyTorch 2.0-2.2
            return self.torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False,
                                                       enable_mem_efficient=True)

    def sdpa(self, q, k, v, causal=False, gqa=False):
        F = self.F
        kw = {"enable_gqa": True} if gqa else {}
        if hasattr(F, "scaled_dot_product_attention"):
            with self.fast_sdpa():
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal, **kw)
        if self.cuda:
            raise UsageError(f"PyTorch {self.torch.__version__} has no scaled_dot_product_attention"
                             f" (PyTorch 2.0 or newer)")
        if gqa:  # PyTorch < 2.0, CPU check only: plain math
            raise TypeError("enable_gqa needs PyTorch 2.5 or newer")
        s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
        if causal:
            S = q.shape[-2]
            s = s + self.torch.full((S, S), float("-inf"), device=q.device, dtype=s.dtype).triu(1)
        return s.softmax(-1) @ v

    def attn_decode(self, batch, context, heads, kv, d):
        torch, dev, dt = self.torch, self.dev, self.torch.bfloat16
        g = heads // kv
        nkv = self.copies(2 * batch * kv * context * d * 2)
        kvs = [(torch.randn(batch, kv, context, d, device=dev, dtype=dt),
                torch.randn(batch, kv, context, d, device=dev, dtype=dt)) for _ in range(nkv)]
        if self.decode_mode == "gqa":
            q = torch.randn(batch, heads, 1, d, device=dev, dtype=dt)
            try:
                if not self.decode_checked:  # the first decode finds out whether it runs
                    self.sdpa(q, *kvs[0], gqa=True)
                    self.sync()
                    self.decode_checked = True
            except (TypeError, RuntimeError) as e:
                self.decode_mode = "fold"
                self.notes.append(f"--decode-sdpa gqa: enable_gqa refused ({repr(e)[:120]}); "
                                  f"decode attention timed with the group folded into the query "
                                  f"axis")
        if self.decode_mode == "fold":  # q (B, kv, group, d): one query row per head of a group
            q = torch.randn(batch, kv, g, d, device=dev, dtype=dt)
            calls = [lambda K=K, V=V: self.sdpa(q, K, V) for K, V in kvs]
        else:
            calls = [lambda K=K, V=V: self.sdpa(q, K, V, gqa=True) for K, V in kvs]
        return self.run(calls, 10)

    def attn_prefill(self, seq, heads, kv, d):
        torch, dev, dt = self.torch, self.dev, self.torch.bfloat16
        q = torch.randn(1, heads, seq, d, device=dev, dtype=dt)
        k = torch.randn(1, kv, seq, d, device=dev, dtype=dt)
        v = torch.randn_like(k)
        if self.prefill_mode is None and heads != kv:  # the first prefill finds the mode
            try:
                self.sdpa(q, k, v, causal=True, gqa=True)
                self.sync()
                self.prefill_mode = "enable_gqa"
            except (TypeError, RuntimeError) as e:
                self.prefill_mode = "expanded"
                self.notes.append(f"prefill: SDPA has no enable_gqa here ({repr(e)[:120]}); K "
                                  f"and V are expanded to every query head before timing")
        if heads != kv and self.prefill_mode == "expanded":
            k = k.repeat_interleave(heads // kv, 1)
            v = v.repeat_interleave(heads // kv, 1)
        gqa = heads != kv and self.prefill_mode == "enable_gqa"
        return self.run([lambda: self.sdpa(q, k, v, causal=True, gqa=gqa)], 3)

    # the environment ----------------------------------------------------------------------------
    def environment(self):
        torch = self.torch
        env = {"python": platform.python_version(), "platform": platform.platform(),
               "torch": torch.__version__, "torch_cuda": torch.version.cuda,
               "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
        with contextlib.suppress(Exception):
            env["cudnn"] = torch.backends.cudnn.version()
        if not self.cuda:
            env["device"] = "cpu (--tiny)"
            return env
        p = torch.cuda.get_device_properties(0)
        env.update(gpu=p.name, compute_capability=f"{p.major}.{p.minor}",
                   sms=p.multi_processor_count, memory_GiB=round(p.total_memory / 2**30, 2),
                   l2_bytes=self.l2)
        uuid = getattr(p, "uuid", None)
        self.nvml = None
        try:
            import pynvml
            pynvml.nvmlInit()
            h = None
            if uuid is not None:
                with contextlib.suppress(Exception):
                    u = str(uuid)
                    h = pynvml.nvmlDeviceGetHandleByUUID(u if u.startswith("GPU-") else "GPU-" + u)
            if h is None:
                first = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip()
                h = pynvml.nvmlDeviceGetHandleByIndex(int(first) if first.isdigit() else 0)
            self.nvml = (pynvml, h)
            drv = pynvml.nvmlSystemGetDriverVersion()
            env["driver"] = drv.decode() if isinstance(drv, bytes) else drv
            with contextlib.suppress(Exception):
                env["power_limit_W"] = pynvml.nvmlDeviceGetPowerManagementLimit(h) / 1000.0
            with contextlib.suppress(Exception):
                env["max_sm_MHz"] = pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM)
                env["max_mem_MHz"] = pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_MEM)
        except Exception as e:  # noqa: BLE001 -- pynvml is optional
            env["nvml"] = f"not available ({type(e).__name__})"
            with contextlib.suppress(Exception):
                out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                                      "--format=csv,noheader"], capture_output=True, text=True,
                                     timeout=10)
                if out.returncode == 0 and out.stdout.strip():
                    env["driver"] = out.stdout.strip().splitlines()[0]
        return env

    def clocks(self):
        if not self.cuda or not getattr(self, "nvml", None):
            return None
        nv, h = self.nvml
        try:
            return {"sm_MHz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
                    "mem_MHz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM),
                    "power_W": nv.nvmlDeviceGetPowerUsage(h) / 1000.0,
                    "temp_C": nv.nvmlDeviceGetTemperature(h, 0)}
        except Exception:  # noqa: BLE001
            return None


# --- the run -------------------------------------------------------------------------------------

def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def measure(args, plan):
    notes = list(plan.notes)
    bench = Bench(args, notes)
    started, t0 = utc_now(), time.time()
    env = bench.environment()
    clocks_start = bench.clocks()
    dtypes = list(plan.dtypes)
    if "fp8" in dtypes and plan.gemm and not bench.fp8_ok():
        why = ("no CUDA (--tiny)" if not bench.cuda else
               f"compute capability {bench.cc[0]}.{bench.cc[1]} < 8.9" if bench.cc < (8, 9) else
               f"PyTorch {bench.torch.__version__} has no float8_e4m3fn / _scaled_mm")
        notes.append(f"fp8 GEMMs left out: {why}")
        print(f"profile_gpu: fp8 GEMMs left out: {why}", file=sys.stderr)
        dtypes.remove("fp8")
    if args.tiny:
        print(f"profile_gpu: --tiny: toy shapes on the CPU, PyTorch {bench.torch.__version__}; the "
              f"times mean nothing", file=sys.stderr)
    rows = []
    partial = args.out + ".partial"

    def sidecar(complete):
        return json.dumps({
            "tool": "tools/profile-gpu/profile_gpu.py",
            "table": os.path.basename(args.out),
            "format": "StackScope kernel table (docs/model.md §3.5): " + ",".join(COLUMNS),
            "complete": complete,
            "rows": len(rows),
            "started_utc": started,
            "finished_utc": utc_now() if complete else None,
            "elapsed_s": round(time.time() - t0, 1),
            "command": [os.path.basename(sys.argv[0])] + sys.argv[1:],
            "model": plan.model.as_json(),
            "plan": plan.as_json(),
            "measured_dtypes": dtypes,
            "timing": {
                "method": "data/h200-measured/h200_truth.py: CUDA graph of back-to-back calls "
                          "(eager on a CPU), 2 warm-up replays, median of the replays timed "
                          "with CUDA events (time.perf_counter on a CPU) / calls per graph",
                "replays": args.replays,
                "calls_per_graph": "gemm 20 (5 when m*n*k >= 2^34), attn_decode 10, "
                                   "attn_prefill 3; at least the number of operand copies",
                "l2": ("warm: one copy of each operand (--warm-l2)" if args.warm_l2 else
                       "cold: operands under twice the L2 size cycle through copies "
                       "(up to 64) so that each call reads its weights or K/V from DRAM"),
                "decode_sdpa": bench.decode_mode,
                "prefill_sdpa": bench.prefill_mode,
                "fp8_m_padded_to_16": bench.fp8_pad,
            },
            "environment": env,
            "clocks_start": clocks_start,
            "clocks_end": bench.clocks() if complete else None,
            "notes": notes,
            "skipped": bench.skipped,
        }, indent=2, ensure_ascii=False) + "\n"

    def checkpoint():
        write_atomic(partial, table_text(rows))
        write_atomic(partial + ".json", sidecar(False))

    def one(kind, precision, dims, fn, label):
        try:
            t = fn()
        except UsageError:
            raise
        except Exception as e:  # noqa: BLE001 -- out of memory, an unsupported shape: go on
            bench.skipped.append({"kind": kind, "precision": precision, **dims,
                                  "error": repr(e)[:300]})
            print(f"{kind:<12} {precision:<4} {fmt_dims(dims)}  skipped: {repr(e)[:160]}",
                  flush=True)
            bench.release()
            return
        rows.append({"kind": kind, "precision": precision, **dims, "time_s": t})
        print(f"{kind:<12} {precision:<4} {fmt_dims(dims)}  {t * 1e6:10.2f} us  "
              f"{rate(kind, precision, dims, t)}" + (f"  ({label})" if label else ""), flush=True)

    try:
        for dt in dtypes:
            for n, k, names in plan.gemm:
                if dt == "fp8" and (n, k) in plan.no_fp8:
                    continue
                for m in plan.m:
                    one("gemm", dt, {"m": m, "n": n, "k": k},
                        lambda m=m, n=n, k=k: bench.gemm(dt, m, n, k), ", ".join(names))
                bench.release()
                checkpoint()
        if plan.layout:
            h, kv, d = plan.layout
            for b, c in plan.decode:
                one("attn_decode", ATTN_PRECISION,
                    {"batch": b, "seq": c, "heads": h, "kv_heads": kv, "head_dim": d},
                    lambda b=b, c=c: bench.attn_decode(b, c, h, kv, d), "")
                bench.release()
            if plan.decode:
                checkpoint()
            for s in plan.prefill:
                one("attn_prefill", ATTN_PRECISION,
                    {"batch": 1, "seq": s, "heads": h, "kv_heads": kv, "head_dim": d},
                    lambda s=s: bench.attn_prefill(s, h, kv, d), "")
                bench.release()
    except KeyboardInterrupt:
        checkpoint()
        print(f"profile_gpu: interrupted; {len(rows)} rows so far in {partial}", file=sys.stderr)
        return 130
    if not rows:
        checkpoint()
        print("profile_gpu: no kernel could be measured (see the skipped list in "
              f"{partial}.json)", file=sys.stderr)
        return 1
    write_atomic(args.out, table_text(rows))
    write_atomic(args.out + ".json", sidecar(True))
    for p in (partial, partial + ".json"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(p)
    counts = check_table(args.out)
    print(f"wrote {args.out}: {len(rows)} rows ("
          + ", ".join(f"{k} {v}" for k, v in counts.items() if v) + f"), environment in "
          f"{args.out}.json" + (f"; {len(bench.skipped)} kernels skipped (listed there)"
                                if bench.skipped else ""))
    return 0


def fmt_dims(d):
    return " ".join(f"{k}={v}" for k, v in d.items())


def rate(kind, precision, d, t):
    if kind == "gemm":
        m, n, k = d["m"], d["n"], d["k"]
        e = 1 if precision == "fp8" else 2
        return (f"{2.0 * m * n * k / t / 1e12:8.2f} TFLOPS "
                f"{((m * k + n * k) * e + 2 * m * n) / t / 1e9:8.1f} GB/s")
    if kind == "attn_decode":
        kv_bytes = 2.0 * d["batch"] * d["kv_heads"] * d["seq"] * d["head_dim"] * 2
        return f"{kv_bytes / t / 1e9:8.1f} GB/s K+V"
    flops = 2.0 * d["heads"] * d["seq"] ** 2 * d["head_dim"]  # the causal half of 4 H S^2 d
    return f"{flops / t / 1e12:8.2f} TFLOPS (causal half)"


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="profile_gpu.py",
        description="Measure a GPU's GEMM and attention kernels with PyTorch and write "
                    "StackScope's kernel-table CSV (stackscope-cli kernels FILE.csv; "
                    "evaluate/serve --kernel-table FILE.csv).")
    p.add_argument("--model", help="a model preset id (presets/models/ID.json), a preset file or "
                                   "a Hugging Face config.json")
    p.add_argument("--out", help="the table to write, e.g. kernels.csv (and kernels.csv.json)")
    p.add_argument("--tp", type=int, default=1, help="tensor-parallel degree the shapes are "
                   "sharded for (default 1)")
    p.add_argument("--moe-tp", type=int, default=1, help="tensor-parallel split of each expert "
                   "(default 1: experts whole, expert-parallel)")
    p.add_argument("--dtypes", default="bf16,fp8", help="GEMM precisions: bf16, fp16, fp8 "
                   "(default bf16,fp8; fp8 only where the GPU has it)")
    p.add_argument("--kinds", default=",".join(KINDS), help="kernel kinds to measure "
                   "(default gemm,attn_decode,attn_prefill)")
    p.add_argument("--m-max", type=int, default=8192,
                   help="largest GEMM token count (default 8192)")
    p.add_argument("--batch-max", type=int, default=256, help="largest decode batch (default 256)")
    p.add_argument("--context-max", type=int, default=32768, help="longest decode context "
                   "(default 32768, at most the model's)")
    p.add_argument("--seq-max", type=int, default=32768, help="longest prefill prompt "
                   "(default 32768, at most the model's)")
    p.add_argument("--max-kv-gib", type=float, default=8.0, help="leave out decode cases whose K "
                   "and V exceed this many GiB (default 8)")
    p.add_argument("--decode-sdpa", choices=("fold", "gqa"), default="fold",
                   help="decode attention as q (B, kv_heads, group, d) against K/V (fold, as "
                        "data/h200-measured; default) or q (B, heads, 1, d) with enable_gqa "
                        "(gqa, PyTorch 2.5 or newer)")
    p.add_argument("--replays", type=int, default=7, help="timed graph replays per kernel, the "
                   "median kept (default 7)")
    p.add_argument("--warm-l2", action="store_true", help="time one copy of each operand, "
                   "L2-warm, exactly as data/h200-measured/h200_truth.py")
    p.add_argument("--quick", action="store_true", help="a coarse grid (powers of 4)")
    p.add_argument("--tiny", action="store_true", help="run every code path on the CPU at toy "
                   "sizes (no GPU needed; the times mean nothing)")
    p.add_argument("--plan", action="store_true", help="print the kernels it would measure and "
                   "exit (no PyTorch needed)")
    a = p.parse_args(argv)
    for name in ("tp", "moe_tp", "m_max", "batch_max", "context_max", "seq_max", "replays"):
        if getattr(a, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(a, name)}: must be >= 1")
    if not a.max_kv_gib > 0:
        raise UsageError(f"--max-kv-gib {a.max_kv_gib}: must be > 0")
    dtypes = [d.strip() for d in a.dtypes.split(",") if d.strip()]
    for d in dtypes:
        if d not in MEASURED_DTYPES:
            extra = (" (a table precision this tool does not measure)"
                     if d in TABLE_PRECISIONS else "")
            raise UsageError(f"--dtypes: unknown dtype {d!r}{extra}; expected some of "
                             f"{', '.join(MEASURED_DTYPES)}")
    if not dtypes:
        raise UsageError("--dtypes: empty")
    a.dtypes = list(dict.fromkeys(dtypes))
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    for k in kinds:
        if k not in KINDS:
            raise UsageError(f"--kinds: unknown kind {k!r}; expected some of {', '.join(KINDS)}")
    if not kinds:
        raise UsageError("--kinds: empty")
    a.kinds = kinds
    if not a.model and not a.tiny:
        raise UsageError("--model is required (a preset id such as llama-3.1-8b, a preset file "
                         "or a Hugging Face config.json)")
    if not a.plan:
        if not a.out:
            raise UsageError("--out FILE.csv is required")
        d = os.path.dirname(os.path.abspath(a.out))
        if not os.path.isdir(d):
            raise UsageError(f"--out {a.out}: no folder {d}")
        if not os.access(d, os.W_OK):
            raise UsageError(f"--out {a.out}: folder {d} is not writable")
        if os.path.isdir(a.out):
            raise UsageError(f"--out {a.out}: is a folder")
    return a


def main(argv=None):
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        model = load_model(args.model) if args.model else None
        if args.tiny:
            if model:
                print(f"profile_gpu: --tiny: {model.id} read and checked; measuring a toy model "
                      f"instead", file=sys.stderr)
            model = model_from_dict(TOY_MODEL, "built-in toy model", "tiny-toy")
            model.source, model.format = "built in", "toy model for --tiny"
        plan = Plan(args, model)
        if not plan.kernels():
            raise UsageError("nothing to measure: " + ("; ".join(plan.notes)
                                                       or "no kernel of " + ",".join(args.kinds)))
        if args.plan:
            for line in plan.summary():
                print(line)
            ks = plan.kernels()
            print(f"{len(ks)} kernels" + (" (fp8 only where the GPU has it: compute capability "
                                          ">= 8.9)" if "fp8" in plan.dtypes and plan.gemm else ""))
            for kind, prec, dims, label in ks:
                print(f"{kind} {prec} {fmt_dims(dims)}" + (f"  ({label})" if label else ""))
            return 0
        for line in plan.summary():
            print(line, file=sys.stderr)
        return measure(args, plan)
    except UsageError as e:
        print(f"profile_gpu: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
