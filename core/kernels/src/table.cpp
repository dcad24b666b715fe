// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/kernels/table.hpp"

#include <algorithm>
#include <cmath>

namespace stackscope::kernels {
namespace {

bool same_shape(const GemmRow& r, Precision p, double n, double k) {
  return r.precision == p && r.n == n && r.k == k;
}

double gemm_bytes(Precision p, double m, double n, double k) {
  // Operands at their precision, the output in 16 bit (cuBLAS / torch._scaled_mm write bf16).
  return (m * k + k * n) * bytes_per_element(p) + m * n * 2.0;
}

// The table's own roofline for a precision: the highest byte and FLOP rates any of its rows
// reach. Interpolating a row's time relative to it keeps the memory-to-compute knee that a
// plain log-log interpolation in m would cut across.
struct Roof {
  double bytes_per_s = 0, flops_per_s = 0;
  double time(Precision p, double m, double n, double k) const {
    return std::max(gemm_bytes(p, m, n, k) / bytes_per_s, 2.0 * m * n * k / flops_per_s);
  }
};

Roof roof_of(const std::vector<GemmRow>& rows, Precision p, const GemmRow* skip) {
  Roof r;
  for (const GemmRow& g : rows) {
    if (&g == skip || g.precision != p || !(g.time_s > 0)) continue;
    r.bytes_per_s = std::max(r.bytes_per_s, gemm_bytes(p, g.m, g.n, g.k) / g.time_s);
    r.flops_per_s = std::max(r.flops_per_s, 2.0 * g.m * g.n * g.k / g.time_s);
  }
  return r;
}

// Interpolation in log m over the rows of one shape, skipping row `skip` (or none), of the
// log of the time over the table's roofline. `roof` is computed only when two distinct rows
// bracket m (most lookups of a covered shape at a measured m return the row itself).
std::optional<double> interpolate(const Table& table, Precision p, double m, double n, double k,
                                  const GemmRow* skip) {
  const std::vector<GemmRow>& rows = table.gemm;
  const GemmRow* lo = nullptr;
  const GemmRow* hi = nullptr;
  for (const GemmRow& r : rows) {
    if (&r == skip || !same_shape(r, p, n, k) || !(r.time_s > 0)) continue;
    if (r.m == m && skip == nullptr) return r.time_s;
    if (r.m <= m && (!lo || r.m > lo->m)) lo = &r;
    if (r.m >= m && (!hi || r.m < hi->m)) hi = &r;
  }
  if (!lo || !hi) return std::nullopt;
  if (lo->m == hi->m) return lo->time_s;
  Roof roof;
  const auto cached = std::find_if(table.gemm_roofs.begin(), table.gemm_roofs.end(),
                                   [&](const GemmRoof& g) { return g.precision == p; });
  if (skip == nullptr && cached != table.gemm_roofs.end())
    roof = {cached->bytes_per_s, cached->flops_per_s};
  else
    roof = roof_of(rows, p, skip);
  const auto ratio = [&](const GemmRow& r) { return std::log(r.time_s / roof.time(p, r.m, n, k)); };
  const double x = (std::log(m) - std::log(lo->m)) / (std::log(hi->m) - std::log(lo->m));
  return roof.time(p, m, n, k) * std::exp(ratio(*lo) + x * (ratio(*hi) - ratio(*lo)));
}

// ---- Attention ---------------------------------------------------------------------------

// Work measures: decode moves the K and V of every cached key (bytes), prefill does the causal
// half of QK^T and PV (FLOPs; the convention of the FlashAttention papers, Dao 2023 §4).
double decode_bytes(const AttentionRow& r) {
  return r.batch * r.seq * 2.0 * r.heads.kv_heads * r.heads.head_dim *
         bytes_per_element(r.precision);
}
double prefill_flops(const AttentionRow& r) {
  return r.batch * 4.0 * r.heads.heads * r.heads.head_dim * r.seq * r.seq * 0.5;
}

bool same_layout(const AttentionRow& r, AttentionKind kind, Precision p, const HeadLayout& h) {
  return r.kind == kind && r.precision == p && r.heads == h && r.time_s > 0;
}

// Interpolation of a log quantity (here a time over a roofline) in log x over points
// (x_i, y_i): between the two nearest points around x; below the smallest x nullopt; beyond the
// largest nullopt, or with `hold` the largest's value (flagged).
struct Point {
  double x, y;
  bool held = false;  // the value was itself held
};
std::optional<Point> interpolate_log(const std::vector<Point>& pts, double x, bool hold) {
  const Point* lo = nullptr;
  const Point* hi = nullptr;
  for (const Point& p : pts) {
    if (p.x <= x && (!lo || p.x > lo->x)) lo = &p;
    if (p.x >= x && (!hi || p.x < hi->x)) hi = &p;
  }
  if (!lo) return std::nullopt;
  if (!hi) {
    if (!hold) return std::nullopt;
    return Point{x, lo->y, true};
  }
  if (lo->x == hi->x) return Point{x, lo->y, lo->held};
  const double f = (std::log(x) - std::log(lo->x)) / (std::log(hi->x) - std::log(lo->x));
  return Point{x, lo->y + f * (hi->y - lo->y), lo->held || hi->held};
}

// An attention family's own roofline, from its rows (skipping one for leave-one-out):
//  - decode: the highest aggregate K/V byte rate any row reaches, and the highest rate of one
//    (sequence, KV head) stream. A decode kernel without split-KV runs one block per stream, so
//    below a batch that fills the device its time is one stream's bytes at the stream rate,
//    above it all bytes at the aggregate rate: the larger of the two keeps that knee, which
//    interpolating a rate in log batch cuts across.
//  - prefill: the highest FLOP rate any row reaches, plus the critical path of one query block
//    against all `seq` keys at the highest keys-per-second any row reaches. Prefill's knee is
//    soft (the blocks of one prompt have unequal causal lengths), so the two terms add: on the
//    H200's rows that halves the leave-one-out error of the larger-of-two form.
struct AttentionRoof {
  AttentionKind kind = AttentionKind::decode;
  double work_per_s = 0;    // decode: bytes/s; prefill: FLOP/s
  double stream_per_s = 0;  // decode: bytes/s of one stream; prefill: keys/s of one block
  static double stream(const AttentionRow& r) {
    return r.kind == AttentionKind::decode
               ? r.seq * 2.0 * r.heads.head_dim * bytes_per_element(r.precision)
               : r.seq;
  }
  static double work(const AttentionRow& r) {
    return r.kind == AttentionKind::decode ? decode_bytes(r) : prefill_flops(r);
  }
  void add(const AttentionRow& r) {
    work_per_s = std::max(work_per_s, work(r) / r.time_s);
    stream_per_s = std::max(stream_per_s, stream(r) / r.time_s);
  }
  double time(const AttentionRow& q) const {
    const double a = work(q) / work_per_s, b = stream(q) / stream_per_s;
    return kind == AttentionKind::decode ? std::max(a, b) : a + b;
  }
};

// The log of each row's time over the family's roofline, interpolated in log seq within each
// measured batch, then in log batch between the two nearest measured batches. Decode holds
// the ratio beyond a batch's longest measured context (a streaming kernel's efficiency levels
// off once its blocks are long) and never beyond the batches; prefill holds it beyond the
// largest measured batch (more prompts only fill the device further) and never beyond the
// lengths. Below the shortest length or batch nothing is answered.
std::optional<AttentionTime> attention_lookup(const std::vector<AttentionRow>& rows,
                                              const AttentionRow& q, const AttentionRow* skip) {
  AttentionRoof roof;
  roof.kind = q.kind;
  std::vector<double> batches;
  for (const AttentionRow& r : rows) {
    if (&r == skip || !same_layout(r, q.kind, q.precision, q.heads)) continue;
    batches.push_back(r.batch);
    roof.add(r);
  }
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  const bool decode = q.kind == AttentionKind::decode;
  std::vector<Point> by_batch;
  std::vector<Point> by_seq;
  for (double b : batches) {
    by_seq.clear();
    for (const AttentionRow& r : rows)
      if (&r != skip && same_layout(r, q.kind, q.precision, q.heads) && r.batch == b)
        by_seq.push_back({r.seq, std::log(r.time_s / roof.time(r))});
    if (auto pt = interpolate_log(by_seq, q.seq, decode)) by_batch.push_back({b, pt->y, pt->held});
  }
  const auto pt = interpolate_log(by_batch, q.batch, !decode);
  if (!pt) return std::nullopt;
  return AttentionTime{roof.time(q) * std::exp(pt->y), pt->held};
}

AttentionRow query(AttentionKind kind, Precision p, const HeadLayout& h, double batch,
                   double seq) {
  return AttentionRow{kind, p, h, batch, seq, 0.0};
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

LeaveOneOut summarise(int rows, const std::vector<double>& errors) {
  LeaveOneOut out;
  out.rows = rows;
  out.predicted = static_cast<int>(errors.size());
  out.median = quantile(errors, 0.5);
  out.p90 = quantile(errors, 0.9);
  out.max = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  return out;
}

bool positive(double v) { return v > 0 && std::isfinite(v); }

}  // namespace

void index(Table& table) {
  table.gemm_roofs.clear();
  for (const GemmRow& r : table.gemm) {
    const bool seen = std::any_of(table.gemm_roofs.begin(), table.gemm_roofs.end(),
                                  [&](const GemmRoof& g) { return g.precision == r.precision; });
    if (seen) continue;
    const Roof roof = roof_of(table.gemm, r.precision, nullptr);
    table.gemm_roofs.push_back({r.precision, roof.bytes_per_s, roof.flops_per_s});
  }
}

std::optional<double> gemm_time(const Table& table, Precision precision, double m, double n,
                                double k) {
  if (!positive(m) || !positive(n) || !positive(k)) return std::nullopt;
  return interpolate(table, precision, m, n, k, nullptr);
}

std::optional<AttentionTime> decode_attention_time(const Table& table, Precision precision,
                                                   const HeadLayout& heads, double batch,
                                                   double context) {
  if (!positive(batch) || !positive(context) || !positive(heads.heads) ||
      !positive(heads.kv_heads) || !positive(heads.head_dim))
    return std::nullopt;
  return attention_lookup(
      table.attention, query(AttentionKind::decode, precision, heads, batch, context), nullptr);
}

std::optional<AttentionTime> prefill_attention_time(const Table& table, Precision precision,
                                                    const HeadLayout& heads, double batch,
                                                    double seq) {
  if (!positive(batch) || !positive(seq) || !positive(heads.heads) ||
      !positive(heads.kv_heads) || !positive(heads.head_dim))
    return std::nullopt;
  return attention_lookup(
      table.attention, query(AttentionKind::prefill, precision, heads, batch, seq), nullptr);
}

LeaveOneOutReport leave_one_out(const Table& table) {
  LeaveOneOutReport rep;
  std::vector<double> gemm_err, dec_err, pre_err;
  for (const GemmRow& r : table.gemm) {
    const auto t = interpolate(table, r.precision, r.m, r.n, r.k, &r);
    if (t && r.time_s > 0) gemm_err.push_back(std::abs(*t / r.time_s - 1.0));
  }
  int dec_rows = 0, pre_rows = 0;
  for (const AttentionRow& r : table.attention) {
    if (!(r.time_s > 0)) continue;
    ++(r.kind == AttentionKind::decode ? dec_rows : pre_rows);
    // Predicted from its neighbours only: an answer from a held ratio is not an interpolation.
    const auto t = attention_lookup(table.attention, r, &r);
    if (t && !t->rate_held)
      (r.kind == AttentionKind::decode ? dec_err : pre_err)
          .push_back(std::abs(t->time_s / r.time_s - 1.0));
  }
  rep.gemm = summarise(static_cast<int>(table.gemm.size()), gemm_err);
  rep.decode_attention = summarise(dec_rows, dec_err);
  rep.prefill_attention = summarise(pre_rows, pre_err);
  std::vector<double> all = gemm_err;
  all.insert(all.end(), dec_err.begin(), dec_err.end());
  all.insert(all.end(), pre_err.begin(), pre_err.end());
  rep.all = summarise(static_cast<int>(table.gemm.size()) + dec_rows + pre_rows, all);
  return rep;
}

}  // namespace stackscope::kernels
