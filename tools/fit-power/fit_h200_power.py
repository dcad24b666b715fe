#!/usr/bin/env python3
# Fits the H200 board-power parameters (docs/model.md §13.1-§13.2) on the sustained-energy rows
# of data/h200-measured (NVML board energy over ~2.5 s of CUDA-graph replays), the only rows with
# a steady power reading. For each row the model's FLOPs and DRAM bytes of the phase come from
# `stackscope-cli evaluate --json` (the operator graph of Llama-3.1-8B under torch-eager-graphs,
# evaluated without a cap); the row's measured time and clock are used, so this fits the power
# model alone, not the timing model. Linear least squares, non-negative, for
#   P = idle + busy s v(s)^2 + v(s)^2 (e_flop F + (e_path + 2 e_sram) B) / t + e_dram B / t
# with idle (82 W, the row of kind "env"), e_dram (3.9 pJ/bit, O'Connor et al. MICRO 2017) and
# e_sram (1 pJ/B, the preset's) fixed, s = measured SM clock / 1980 MHz, and v(s) linear from
# (345/1980, v_min) to (1, 1); v_min on a grid 0.40-1.00, the value with the least worst error
# over the fitted and the leave-one-out predictions.
# Never run by CI (it needs python3-numpy, which the build does not install); prints the fit and
# its leave-one-out errors. Usage:
#   tools/fit-power/fit_h200_power.py [build/app/stackscope-cli] [data/h200-measured/...jsonl]
import json, os, subprocess, sys, tempfile
import numpy as np

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/app/stackscope-cli"
DATA = sys.argv[2] if len(sys.argv) > 2 else "data/h200-measured/h200-kernels-and-llama8b.jsonl"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
rows = [json.loads(l) for l in open(DATA)]
env = next(r for r in rows if r["kind"] == "env")
IDLE = env["power_W"]
TOP = env["max_sm_MHz"]
S_MIN = env["sm_MHz"] / TOP
E_DRAM = 3.9 * 8e-12
E_SRAM = 2 * 1.0e-12

hw = json.load(open(os.path.join(ROOT, "presets/hardware/h200.json")))
hw["energy"]["tdp_W"] = 1e5  # no cap: the phase's work at the top clock
tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
json.dump(hw, tmp)
tmp.close()


def phase(batch, inp, which):
    out = subprocess.run([CLI, "evaluate", "--hardware", tmp.name, "--model", "llama-3.1-8b",
                          "--runtime", "torch-eager-graphs", "--precision", "bf16", "--tp", "1",
                          "--devices", "1", "--batch", str(batch), "--input-len", str(inp),
                          "--output-len", "2", "--json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)["breakdown"][which]


cases = []
for r in rows:
    if r["kind"] != "energy":
        continue
    dec = r["phase"] == "decode"
    p = phase(r["batch"], r["length"] - 1 if dec else r["length"], r["phase"])
    t = r["J_per_call"] / r["mean_W"]
    cases.append(dict(name="%s B%d L%d" % (r["phase"], r["batch"], r["length"]), t=t,
                      F=p["flops"], B=p["dram_bytes"], P=r["mean_W"], s=r["mid_sm_MHz"] / TOP))
os.unlink(tmp.name)


def v(s, v_min):
    return 1.0 if s >= 1 else v_min + (1 - v_min) * (s - S_MIN) / (1 - S_MIN)


def solve(cs, v_min):
    A = np.array([[c["s"] * v(c["s"], v_min) ** 2, v(c["s"], v_min) ** 2 * c["F"] / c["t"],
                   v(c["s"], v_min) ** 2 * c["B"] / c["t"]] for c in cs])
    b = np.array([c["P"] - IDLE - E_DRAM * c["B"] / c["t"] - v(c["s"], v_min) ** 2 * E_SRAM *
                  c["B"] / c["t"] for c in cs])
    best = None
    # Non-negative least squares over the 2^3 active sets (3 unknowns).
    for mask in range(1, 8):
        cols = [i for i in range(3) if mask >> i & 1]
        x, *_ = np.linalg.lstsq(A[:, cols], b, rcond=None)
        if (x < 0).any():
            continue
        full = np.zeros(3)
        full[cols] = x
        err = np.sum((A @ full - b) ** 2)
        if best is None or err < best[0]:
            best = (err, full)
    return best[1]


def predict(x, c, v_min):
    vv = v(c["s"], v_min) ** 2
    return (IDLE + x[0] * c["s"] * vv + vv * (x[1] * c["F"] + x[2] * c["B"]) / c["t"] +
            vv * E_SRAM * c["B"] / c["t"] + E_DRAM * c["B"] / c["t"])


def loo(v_min):
    return [predict(solve(cases[:i] + cases[i + 1:], v_min), c, v_min) / c["P"] - 1
            for i, c in enumerate(cases)]


fits = []
for k in range(int(os.environ.get("VMIN_LO", 40)), int(os.environ.get("VMIN_HI", 100)) + 1):
    v_min = k / 100
    x = solve(cases, v_min)
    # The worst of the fitted and the leave-one-out errors: a curve that only fits its own rows
    # (the per-FLOP energy then rests on the one prefill row) is not chosen.
    worst = max([abs(predict(x, c, v_min) / c["P"] - 1) for c in cases] +
                [abs(e) for e in loo(v_min)])
    fits.append((worst, v_min, x))
worst, v_min, x = min(fits, key=lambda f: f[0])
print("idle %.1f W (measured), dvfs_min_clock %.3f, dvfs_min_voltage %.2f" % (IDLE, S_MIN, v_min))
print("busy_power_W %.1f, pJ_per_flop_fp16 %.3f, memory_path_pJ_per_bit %.2f" %
      (x[0], x[1] * 1e12, x[2] * 1e12 / 8))
for c, e in zip(cases, loo(v_min)):
    print("%-18s P %5.0f W  fit %+5.1f %%  leave-one-out %+5.1f %%" % (
        c["name"], c["P"], 100 * (predict(x, c, v_min) / c["P"] - 1), 100 * e))
