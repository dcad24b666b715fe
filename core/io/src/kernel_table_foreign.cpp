// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/kernel_table_foreign.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "csv_detail.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/read_file.hpp"

namespace stackscope::io {
namespace {

constexpr std::size_t kMaxReportedIssues = 20;
constexpr double kMaxDim = 1 << 24;    // tokens, features, batch, sequence lengths
constexpr double kMaxHeads = 1 << 16;  // heads and head_dim
constexpr double kMaxTimeMs = 3600e3;  // one hour, as the StackScope table's time_s limit

double number(const std::string& s, bool& ok) {
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  ok = !s.empty() && ec == std::errc() && ptr == end && std::isfinite(v);
  return v;
}

std::string range_text(double lo, double hi) {
  return "whole number in [" + number_text(lo) + ", " + number_text(hi) + "]";
}

// A kernel's identity: a later row with the same key is a duplicate (the first is kept).
using Key = std::array<double, 7>;
Key key_of(const kernels::GemmRow& r) {
  return {0, static_cast<double>(r.precision), r.m, r.n, r.k, 0, 0};
}
Key key_of(const kernels::AttentionRow& r) {
  return {1.0 + static_cast<double>(r.kind),
          static_cast<double>(r.precision),
          r.heads.heads,
          r.heads.kv_heads,
          r.heads.head_dim,
          r.batch,
          r.seq};
}

constexpr const char* kDuplicate = "duplicate of an earlier row's kernel (the first is kept)";

// The row loop every reader shares: the header with its required columns, rows of the header's
// width, checked reads that collect issues, the rows left out by reason, duplicate keys.
class Rows {
 public:
  Rows(std::string_view text, const std::string& name, std::string_view layout,
       std::initializer_list<const char*> required, const std::string& header)
      : reader_(detail::without_bom(text)), name_(name) {
    h_ = detail::read_header(reader_, line_, name, required, "measured kernels", header);
    table_.source = name;
    report_.file = name;
    report_.layout = std::string(layout);
  }

  // Advances to the next row as wide as the header; false at the end or after 20 issues.
  bool next() {
    while (issues_.size() < kMaxReportedIssues && reader_.next(fields_, line_, name_)) {
      if (fields_.size() == 1 && fields_[0].empty()) continue;
      if (++report_.rows > kMaxKernelRows)
        throw ConfigError(
            {{at(), "too many rows", "", "at most " + std::to_string(kMaxKernelRows)}});
      if (fields_.size() != h_.width) {
        issues_.push_back({at(), "wrong number of fields", std::to_string(fields_.size()),
                           std::to_string(h_.width) + " (as the header)"});
        continue;
      }
      row_issues_ = issues_.size();
      return true;
    }
    return false;
  }

  bool has(const char* col) const { return h_.col.contains(col); }
  const std::string& field(const char* col) const { return fields_[h_.col.at(col)]; }
  std::string at() const { return name_ + ":" + std::to_string(line_); }
  // No issue in the current row so far.
  bool row_ok() const { return issues_.size() == row_issues_; }

  void issue(const char* col, const std::string& message, const std::string& value,
             const std::string& allowed) {
    issues_.push_back({at() + " " + col, message, detail::shown(value), allowed});
  }

  // A whole number in [lo, hi]; an issue otherwise.
  std::optional<double> whole(const char* col, double lo, double hi) {
    bool ok = false;
    const double v = number(field(col), ok);
    if (ok && v >= lo && v <= hi && v == std::floor(v)) return v;
    issue(col, "not a whole number in range", field(col), range_text(lo, hi));
    return std::nullopt;
  }
  // An optional column's whole number, `fallback` when the column is absent.
  std::optional<double> whole_or(const char* col, double lo, double hi, double fallback) {
    return has(col) ? whole(col, lo, hi) : std::optional<double>(fallback);
  }
  // A time in milliseconds, as seconds.
  std::optional<double> time_ms(const char* col) {
    bool ok = false;
    const double v = number(field(col), ok);
    if (ok && v > 0 && v <= kMaxTimeMs) return v / 1e3;
    issue(col, "not a kernel time", field(col), "finite number of milliseconds in (0, 3600000]");
    return std::nullopt;
  }
  // True/False as pandas writes a bool (also true/false, 1/0).
  std::optional<bool> boolean(const char* col) {
    const std::string& v = field(col);
    if (v == "True" || v == "true" || v == "1") return true;
    if (v == "False" || v == "false" || v == "0") return false;
    issue(col, "not a bool", v, "True or False");
    return std::nullopt;
  }
  // Query heads, KV heads (a divisor of the query heads) and head_dim from three columns; with
  // no `dim` column head_dim is left 1 for the caller to derive.
  std::optional<kernels::HeadLayout> heads(const char* q, const char* kv, const char* dim) {
    const auto h = whole(q, 1, kMaxHeads);
    const auto g = whole(kv, 1, kMaxHeads);
    const auto d = dim ? whole(dim, 1, kMaxHeads) : std::optional<double>(1.0);
    if (h && g && std::fmod(*h, *g) != 0)
      issue(kv, "not a divisor of the query heads", field(kv),
            "a divisor of " + std::string(q) + " (" + field(q) + ")");
    if (!h || !g || !d || std::fmod(*h, *g) != 0) return std::nullopt;
    return kernels::HeadLayout{*h, *g, *d};
  }

  // Leaves the current row out for `reason` (counted, never silent).
  void skip(const std::string& reason) { skip_at(reason, 1, line_); }

  template <class Row>
  void add(const Row& r) {
    if (!keys_.insert(key_of(r)).second) return skip(kDuplicate);
    if constexpr (std::is_same_v<Row, kernels::GemmRow>) {
      table_.gemm.push_back(r);
      ++report_.gemm;
    } else {
      table_.attention.push_back(r);
      ++(r.kind == kernels::AttentionKind::decode ? report_.decode : report_.prefill);
    }
  }

  // The table, or ConfigError: the bad rows, or no row that maps (with the reasons).
  kernels::Table finish(FileReport* out) {
    if (!issues_.empty()) throw ConfigError(std::move(issues_));
    if (table_.gemm.empty() && table_.attention.empty()) {
      std::vector<Issue> why{{name_, "no row maps to a StackScope kernel",
                              std::to_string(report_.rows) + " rows",
                              "at least one row with a StackScope counterpart"}};
      for (const auto& s : report_.skipped) {
        if (why.size() > kMaxReportedIssues) break;
        why.push_back({name_ + ":" + std::to_string(s.first_line), "left out: " + s.reason,
                       std::to_string(s.rows) + " rows", ""});
      }
      throw ConfigError(std::move(why));
    }
    kernels::index(table_);
    if (out) *out = report_;
    return std::move(table_);
  }

 private:
  void skip_at(const std::string& reason, std::size_t rows, std::size_t line) {
    for (auto& s : report_.skipped)
      if (s.reason == reason) {
        s.rows += rows;
        return;
      }
    report_.skipped.push_back({reason, rows, line});
  }

  detail::CsvReader reader_;
  const std::string& name_;
  detail::CsvHeader h_;
  std::size_t line_ = 1;
  std::vector<std::string> fields_;
  std::vector<Issue> issues_;
  std::size_t row_issues_ = 0;
  kernels::Table table_;
  FileReport report_;
  std::set<Key> keys_;
};

// ---- AIConfigurator ----

struct DtypeMapping {
  const char* name;
  std::optional<Precision> precision;
  const char* why;  // when there is none
};

constexpr const char* kWeightOnly =
    "weight-only quantisation (StackScope looks the GEMM up at bf16, its wider operand)";

// AIConfigurator's GEMMQuantMode names (sdk/common.py).
const DtypeMapping kGemmDtypes[] = {
    {"bfloat16", Precision::bf16, ""},
    {"float16", Precision::fp16, ""},
    {"fp8", Precision::fp8, ""},
    {"sq", Precision::int8, ""},
    {"nvfp4", Precision::fp4, ""},
    {"fp8_block", std::nullopt,
     "block-scaled fp8 (fp8 stands for per-tensor-scaled fp8; AicOptions::fp8_block_as_fp8)"},
    {"fp8_static", std::nullopt, "an fp8 variant (AIConfigurator reuses fp8's rows for it)"},
    {"fp8_ootb", std::nullopt, "an fp8 variant (the TensorRT engine path)"},
    {"int8_wo", std::nullopt, kWeightOnly},
    {"int4_wo", std::nullopt, kWeightOnly},
    {"nvfp4_wo", std::nullopt, kWeightOnly},
    {"w4a16_nvfp4", std::nullopt, kWeightOnly},
    {"w4a16_mxfp4", std::nullopt, kWeightOnly},
    {"awq", std::nullopt, kWeightOnly},
    {"gptq", std::nullopt, kWeightOnly},
};

// FMHAQuantMode and KVCacheQuantMode names (sdk/common.py).
const DtypeMapping kAttentionDtypes[] = {
    {"bfloat16", Precision::bf16, ""},
    {"float16", Precision::fp16, ""},
    {"fp8", Precision::fp8, ""},
    {"int8", Precision::int8, ""},
    {"fp8_block", std::nullopt, "block-scaled fp8 attention"},
};

// The precision of a dtype name into `out` (true), or the reason there is none into `why`
// (false; an empty name is also an issue).
template <std::size_t N>
bool dtype(Rows& r, const char* col, const DtypeMapping (&table)[N], Precision& out,
           std::string& why) {
  const std::string& v = r.field(col);
  if (v.empty()) {
    r.issue(col, "empty dtype", v, "an AIConfigurator dtype name (bfloat16, fp8, ...)");
    return false;
  }
  for (const auto& d : table)
    if (v == d.name) {
      if (d.precision) {
        out = *d.precision;
        return true;
      }
      why = std::string(col) + " " + v + ": " + d.why;
      return false;
    }
  why = std::string(col) + " " + v + ": not a dtype this reader maps";
  return false;
}

// An op_name column, when present, must name the table's kind.
bool op_name_is(Rows& r, const char* expected) {
  if (!r.has("op_name") || r.field("op_name") == expected) return true;
  r.issue("op_name", "not this table's kernel", r.field("op_name"), expected);
  return false;
}

// window_size and beam_width (optional): a row of a sliding window or of beam search has no
// StackScope counterpart; the reason, or empty.
std::string window_and_beam(Rows& r) {
  const auto window = r.whole_or("window_size", 0, kMaxDim, 0);
  const auto beam = r.whole_or("beam_width", 1, 1024, 1);
  if (window && *window > 0) return "window_size > 0 (sliding-window attention)";
  if (beam && *beam > 1) return "beam_width > 1 (beam search)";
  return "";
}

enum class AicAttention { generation, context };

kernels::Table parse_aic_attention(std::string_view text, const std::string& name,
                                   FileReport* report, AicAttention which) {
  const bool gen = which == AicAttention::generation;
  Rows r = gen ? Rows(text, name, to_string(KernelLayout::aic_generation_attention),
                      {"batch_size", "isl", "step", "num_heads", "num_key_value_heads", "head_dim",
                       "kv_cache_dtype", "latency"},
                      "an AIConfigurator generation_attention_perf header (batch_size, isl, "
                      "step, num_heads, num_key_value_heads, head_dim, kv_cache_dtype, latency)")
               : Rows(text, name, to_string(KernelLayout::aic_context_attention),
                      {"batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim",
                       "attn_dtype", "kv_cache_dtype", "latency"},
                      "an AIConfigurator context_attention_perf header (batch_size, isl, "
                      "num_heads, num_key_value_heads, head_dim, attn_dtype, kv_cache_dtype, "
                      "latency)");
  while (r.next()) {
    op_name_is(r, gen ? "generation_attention" : "context_attention");
    kernels::AttentionRow a;
    a.kind = gen ? kernels::AttentionKind::decode : kernels::AttentionKind::prefill;
    const auto batch = r.whole("batch_size", 1, kMaxDim);
    const auto isl = r.whole("isl", gen ? 0 : 1, kMaxDim);
    const auto step = r.whole_or("step", 0, kMaxDim, 0);
    const auto heads = r.heads("num_heads", "num_key_value_heads", "head_dim");
    const auto time = r.time_ms("latency");
    std::string why = window_and_beam(r);
    Precision kv = Precision::bf16, q = Precision::bf16;
    std::string kv_why, q_why;
    const bool kv_ok = dtype(r, "kv_cache_dtype", kAttentionDtypes, kv, kv_why);
    const bool q_ok = gen || dtype(r, "attn_dtype", kAttentionDtypes, q, q_why);
    if (!r.row_ok()) continue;
    a.heads = *heads;
    a.batch = *batch;
    a.time_s = *time;
    if (gen) {
      // One new token against the isl + step - 1 keys before it (the module comment).
      a.seq = *isl + *step - 1;
      if (why.empty() && !kv_ok) why = kv_why;
      if (why.empty() && a.seq < 1) why = "no cached keys (isl + step = 1)";
      a.precision = kv;
    } else {
      a.seq = *isl;
      if (why.empty() && !q_ok) why = q_why;
      if (why.empty() && !kv_ok) why = kv_why;
      if (why.empty() && q != kv)
        why = "attn_dtype " + r.field("attn_dtype") + " over a " + r.field("kv_cache_dtype") +
              " KV cache (a StackScope prefill row has one precision)";
      if (why.empty() && *step > 0) why = "step > 0 (not a prompt from an empty cache)";
      a.precision = q;
    }
    if (!why.empty()) {
      r.skip(why);
      continue;
    }
    r.add(a);
  }
  return r.finish(report);
}

// ---- Vidur ----

// The four projections of Vidur's mlp.csv (vidur/profiling/mlp/mlp_impl.py).
constexpr std::array<const char*, 4> kVidurOps = {
    "time_stats.attn_pre_proj.median", "time_stats.attn_post_proj.median",
    "time_stats.mlp_up_proj.median", "time_stats.mlp_down_proj.median"};

void require_one_of(const Rows& r, const std::string& name, std::initializer_list<const char*> cols,
                    const std::string& what) {
  for (const char* c : cols)
    if (r.has(c)) return;
  throw ConfigError({{name + ":1", "missing column", *cols.begin(), what}});
}

// `v` divided by the tensor-parallel degree, or an issue when it does not divide.
std::optional<double> per_worker(Rows& r, const char* col, double v, double tp) {
  if (std::fmod(v, tp) == 0) return v / tp;
  r.issue(col, "not divisible by num_tensor_parallel_workers", r.field(col),
          "a multiple of " + number_text(tp));
  return std::nullopt;
}

}  // namespace

std::string_view to_string(KernelLayout layout) {
  switch (layout) {
    case KernelLayout::stackscope: return "stackscope";
    case KernelLayout::aic_gemm: return "aic-gemm";
    case KernelLayout::aic_generation_attention: return "aic-generation-attention";
    case KernelLayout::aic_context_attention: return "aic-context-attention";
    case KernelLayout::vidur_mlp: return "vidur-mlp";
    case KernelLayout::vidur_attention: return "vidur-attention";
  }
  return "?";
}

kernels::Table parse_aic_gemm_perf(std::string_view text, const std::string& name,
                                   FileReport* report, const AicOptions& options) {
  Rows r(text, name, to_string(KernelLayout::aic_gemm), {"gemm_dtype", "m", "n", "k", "latency"},
         "an AIConfigurator gemm_perf header (gemm_dtype, m, n, k, latency)");
  while (r.next()) {
    if (r.has("op_name") && r.field("op_name") != "gemm")
      r.issue("op_name", "not this table's kernel", r.field("op_name"), "gemm");
    std::string why;
    Precision precision = Precision::bf16;
    bool mapped = dtype(r, "gemm_dtype", kGemmDtypes, precision, why);
    if (options.fp8_block_as_fp8 && r.field("gemm_dtype") == "fp8_block") {
      precision = Precision::fp8;
      mapped = true;
    } else if (options.fp8_block_as_fp8 && mapped && precision == Precision::fp8) {
      mapped = false;
      why = "gemm_dtype fp8: fp8_block rows stand for fp8 (AicOptions::fp8_block_as_fp8)";
    }
    const auto m = r.whole("m", 1, kMaxDim);
    const auto n = r.whole("n", 1, kMaxDim);
    const auto k = r.whole("k", 1, kMaxDim);
    const auto time = r.time_ms("latency");
    if (!r.row_ok()) continue;
    if (!mapped) {
      r.skip(why);
      continue;
    }
    r.add(kernels::GemmRow{precision, *m, *n, *k, *time});
  }
  return r.finish(report);
}

kernels::Table parse_aic_generation_attention(std::string_view text, const std::string& name,
                                              FileReport* report) {
  return parse_aic_attention(text, name, report, AicAttention::generation);
}

kernels::Table parse_aic_context_attention(std::string_view text, const std::string& name,
                                           FileReport* report) {
  return parse_aic_attention(text, name, report, AicAttention::context);
}

kernels::Table parse_vidur_mlp(std::string_view text, const std::string& name, FileReport* report) {
  Rows r(text, name, to_string(KernelLayout::vidur_mlp),
         {"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "use_gated_mlp", "num_tokens",
          "num_tensor_parallel_workers"},
         "a Vidur mlp.csv header (n_head, n_kv_head, n_embd, n_expanded_embd, use_gated_mlp, "
         "num_tokens, num_tensor_parallel_workers, time_stats.<projection>.median)");
  require_one_of(r, name, {kVidurOps[0], kVidurOps[1], kVidurOps[2], kVidurOps[3]},
                 "the median time of at least one projection (attn_pre_proj, attn_post_proj, "
                 "mlp_up_proj, mlp_down_proj)");
  while (r.next()) {
    const auto heads = r.heads("n_head", "n_kv_head", nullptr);
    const auto embd = r.whole("n_embd", 1, kMaxDim);
    const auto ffn = r.whole("n_expanded_embd", 1, kMaxDim);
    const auto gated = r.boolean("use_gated_mlp");
    const auto m = r.whole("num_tokens", 1, kMaxDim);
    const auto tp = r.whole("num_tensor_parallel_workers", 1, kMaxHeads);
    if (heads && embd && std::fmod(*embd, heads->heads) != 0)
      r.issue("n_embd", "not divisible by n_head", r.field("n_embd"),
              "a multiple of " + number_text(heads->heads));
    if (!r.row_ok()) continue;
    const auto q = per_worker(r, "n_head", heads->heads, *tp);
    const auto kv = per_worker(r, "n_kv_head", heads->kv_heads, *tp);
    const auto f = per_worker(r, "n_expanded_embd", *ffn, *tp);
    if (!r.row_ok()) continue;
    const double d = *embd / heads->heads;
    const std::array<std::pair<double, double>, 4> nk = {{
        {(*q + 2 * *kv) * d, *embd},         // attn_pre_proj: fused QKV
        {*embd, *q * d},                     // attn_post_proj
        {(*gated ? 2.0 : 1.0) * *f, *embd},  // mlp_up_proj (gate and up fused when gated)
        {*embd, *f},                         // mlp_down_proj
    }};
    std::vector<kernels::GemmRow> rows;
    for (std::size_t i = 0; i < kVidurOps.size(); ++i) {
      const char* col = kVidurOps[i];
      if (!r.has(col)) continue;
      if (r.field(col).empty()) {
        r.skip(std::string("no ") + col + " (an empty cell)");
        continue;
      }
      if (const auto t = r.time_ms(col))
        rows.push_back({Precision::fp16, *m, nk[i].first, nk[i].second, *t});
    }
    if (!r.row_ok()) continue;
    for (const auto& g : rows) r.add(g);
  }
  return r.finish(report);
}

kernels::Table parse_vidur_attention(std::string_view text, const std::string& name,
                                     FileReport* report) {
  constexpr const char* kPrefill = "time_stats.attn_prefill.median";
  constexpr const char* kDecode = "time_stats.attn_decode.median";
  Rows r(text, name, to_string(KernelLayout::vidur_attention),
         {"n_embd", "n_q_head", "n_kv_head", "num_tensor_parallel_workers", "batch_size",
          "prefill_chunk_size", "kv_cache_size", "is_prefill"},
         "a Vidur attention.csv header (n_embd, n_q_head, n_kv_head, "
         "num_tensor_parallel_workers, batch_size, prefill_chunk_size, kv_cache_size, "
         "is_prefill, time_stats.attn_prefill.median, time_stats.attn_decode.median)");
  require_one_of(r, name, {kPrefill, kDecode},
                 "time_stats.attn_prefill.median or "
                 "time_stats.attn_decode.median");
  while (r.next()) {
    const auto heads = r.heads("n_q_head", "n_kv_head", nullptr);
    const auto embd = r.whole("n_embd", 1, kMaxDim);
    const auto tp = r.whole("num_tensor_parallel_workers", 1, kMaxHeads);
    const auto batch = r.whole("batch_size", 1, kMaxDim);
    const auto chunk = r.whole("prefill_chunk_size", 0, kMaxDim);
    const auto cached = r.whole("kv_cache_size", 0, kMaxDim);
    const auto prefill = r.boolean("is_prefill");
    if (heads && embd && std::fmod(*embd, heads->heads) != 0)
      r.issue("n_embd", "not divisible by n_q_head", r.field("n_embd"),
              "a multiple of " + number_text(heads->heads));
    if (prefill && *prefill && chunk && *chunk < 1)
      r.issue("prefill_chunk_size", "a prefill row without tokens", r.field("prefill_chunk_size"),
              range_text(1, kMaxDim));
    if (!r.row_ok()) continue;
    const auto q = per_worker(r, "n_q_head", heads->heads, *tp);
    const auto kv = per_worker(r, "n_kv_head", heads->kv_heads, *tp);
    if (!r.row_ok()) continue;
    kernels::AttentionRow a;
    a.kind = *prefill ? kernels::AttentionKind::prefill : kernels::AttentionKind::decode;
    a.precision = Precision::fp16;
    a.heads = {*q, *kv, *embd / heads->heads};
    a.batch = *batch;
    a.seq = *prefill ? *chunk : *cached;
    const char* col = *prefill ? kPrefill : kDecode;
    if (*prefill && *cached > 0) {
      r.skip("a prefill chunk after cached tokens (kv_cache_size > 0)");
      continue;
    }
    if (!*prefill && *cached < 1) {
      r.skip("a decode row without cached keys (kv_cache_size 0)");
      continue;
    }
    if (!r.has(col) || r.field(col).empty()) {
      r.skip(std::string("no ") + col + (r.has(col) ? " (an empty cell)" : " column"));
      continue;
    }
    const auto t = r.time_ms(col);
    if (!t) continue;
    a.time_s = *t;
    r.add(a);
  }
  return r.finish(report);
}

KernelLayout detect_kernel_layout(std::string_view text, const std::string& name) {
  detail::CsvReader reader(detail::without_bom(text));
  std::vector<std::string> fields;
  std::size_t line = 1;
  if (!reader.next(fields, line, name))
    throw ConfigError({{name, "empty file", "", "a header row and measured kernels"}});
  const std::set<std::string> cols(fields.begin(), fields.end());
  const auto all = [&](std::initializer_list<const char*> names) {
    for (const char* c : names)
      if (!cols.contains(c)) return false;
    return true;
  };
  if (all({"kind", "time_s"})) return KernelLayout::stackscope;
  if (all({"gemm_dtype", "latency"})) return KernelLayout::aic_gemm;
  if (all({"n_expanded_embd", "num_tokens"})) return KernelLayout::vidur_mlp;
  if (all({"is_prefill", "kv_cache_size", "prefill_chunk_size"}))
    return KernelLayout::vidur_attention;
  if (all({"num_key_value_heads", "kv_cache_dtype", "latency"})) {
    // The two attention tables have the same columns: op_name says which, or the file name.
    const auto op = std::find(fields.begin(), fields.end(), "op_name");
    if (op != fields.end()) {
      const std::size_t i = static_cast<std::size_t>(op - fields.begin());
      std::vector<std::string> row;
      std::size_t row_line = line;
      reader.next(row, row_line, name);
      if (row.size() > i && row[i] == "generation_attention")
        return KernelLayout::aic_generation_attention;
      if (row.size() > i && row[i] == "context_attention")
        return KernelLayout::aic_context_attention;
      if (row.size() > i)
        throw ConfigError({{name + ":" + std::to_string(row_line) + " op_name",
                            "not an AIConfigurator attention table's op_name",
                            detail::shown(row[i]), "generation_attention or context_attention"}});
    }
    const std::string file = std::filesystem::path(name).filename().string();
    if (file.find("generation_attention") != std::string::npos)
      return KernelLayout::aic_generation_attention;
    if (file.find("context_attention") != std::string::npos)
      return KernelLayout::aic_context_attention;
    throw ConfigError({{name, "cannot tell a context from a generation attention table", "",
                        "an op_name column, or a file name with context_attention or "
                        "generation_attention in it"}});
  }
  std::string shown;
  for (std::size_t i = 0; i < fields.size() && i < 8; ++i) shown += (i ? "," : "") + fields[i];
  throw ConfigError(
      {{name + ":1", "not a kernel-table layout this program reads", detail::shown(shown),
        "StackScope (kind, precision, time_s and m, n, k or batch, seq, heads, kv_heads, "
        "head_dim); AIConfigurator gemm_perf (gemm_dtype, "
        "m, n, k, latency); AIConfigurator context_attention_perf or "
        "generation_attention_perf (batch_size, isl, num_heads, num_key_value_heads, "
        "head_dim, kv_cache_dtype, latency, ...); Vidur mlp.csv (n_expanded_embd, num_tokens, "
        "...); Vidur attention.csv (is_prefill, kv_cache_size, prefill_chunk_size, ...)"}});
}

kernels::Table parse_any_kernel_table(std::string_view text, const std::string& name,
                                      FileReport* report, const AicOptions& options) {
  switch (detect_kernel_layout(text, name)) {
    case KernelLayout::stackscope: {
      kernels::Table t = parse_kernel_table(text, name);
      kernels::index(t);
      if (report) {
        *report = {};
        report->file = name;
        report->layout = std::string(to_string(KernelLayout::stackscope));
        report->rows = report->gemm = t.gemm.size();
        for (const auto& a : t.attention) {
          ++report->rows;
          ++(a.kind == kernels::AttentionKind::decode ? report->decode : report->prefill);
        }
      }
      return t;
    }
    case KernelLayout::aic_gemm: return parse_aic_gemm_perf(text, name, report, options);
    case KernelLayout::aic_generation_attention:
      return parse_aic_generation_attention(text, name, report);
    case KernelLayout::aic_context_attention:
      return parse_aic_context_attention(text, name, report);
    case KernelLayout::vidur_mlp: return parse_vidur_mlp(text, name, report);
    case KernelLayout::vidur_attention: return parse_vidur_attention(text, name, report);
  }
  throw ConfigError({{name, "unknown kernel-table layout", "", ""}});
}

kernels::Table merge_kernel_tables(const std::vector<kernels::Table>& tables,
                                   std::vector<std::size_t>* dropped) {
  kernels::Table out;
  std::set<Key> keys;
  if (dropped) dropped->assign(tables.size(), 0);
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const kernels::Table& t = tables[i];
    out.source += (i ? ", " : "") + t.source;
    std::size_t left_out = 0;
    for (const auto& g : t.gemm)
      if (keys.insert(key_of(g)).second)
        out.gemm.push_back(g);
      else
        ++left_out;
    for (const auto& a : t.attention)
      if (keys.insert(key_of(a)).second)
        out.attention.push_back(a);
      else
        ++left_out;
    if (dropped) (*dropped)[i] = left_out;
  }
  kernels::index(out);
  return out;
}

kernels::Table load_kernel_tables(const std::vector<std::filesystem::path>& files,
                                  std::vector<FileReport>* reports, const AicOptions& options) {
  if (files.empty()) throw ConfigError({{"", "no kernel-table file", "", "at least one file"}});
  std::vector<kernels::Table> tables;
  std::vector<FileReport> rep(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string text =
        read_text_file(files[i], files[i].string(), limits::kMaxKernelTableBytes);
    tables.push_back(parse_any_kernel_table(text, files[i].string(), &rep[i], options));
  }
  std::vector<std::size_t> dropped;
  kernels::Table merged = merge_kernel_tables(tables, &dropped);
  for (std::size_t i = 0; i < files.size(); ++i)
    if (dropped[i] > 0)
      rep[i].skipped.push_back(
          {"the same kernel as a row of an earlier file (the first is kept)", dropped[i], 0});
  if (reports) *reports = std::move(rep);
  return merged;
}

}  // namespace stackscope::io
