// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/kernels/table.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <span>

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

// The rows of one GEMM shape (precision, n, k), sorted by m (the first of rows with equal m
// kept), with the table's roofline for that precision.
struct GemmShape {
  Precision precision = Precision::bf16;
  double n = 0, k = 0;
  Roof roof;
  struct Row {
    double m, time_s;
  };
  std::vector<Row> rows;
};

GemmShape gemm_shape(const std::vector<GemmRow>& rows, Precision p, double n, double k,
                     const Roof& roof, const GemmRow* skip) {
  GemmShape s{p, n, k, roof, {}};
  for (const GemmRow& r : rows)
    if (&r != skip && same_shape(r, p, n, k) && r.time_s > 0) s.rows.push_back({r.m, r.time_s});
  std::stable_sort(s.rows.begin(), s.rows.end(),
                   [](const GemmShape::Row& a, const GemmShape::Row& b) { return a.m < b.m; });
  s.rows.erase(std::unique(s.rows.begin(), s.rows.end(),
                           [](const GemmShape::Row& a, const GemmShape::Row& b) { return a.m == b.m; }),
               s.rows.end());
  return s;
}

// Interpolation in log m between the two nearest measured m of the shape, of the log of the
// time over the table's roofline; a measured m returns its own time.
std::optional<double> gemm_at(const GemmShape& s, double m) {
  const auto hi = std::lower_bound(s.rows.begin(), s.rows.end(), m,
                                   [](const GemmShape::Row& r, double x) { return r.m < x; });
  if (hi == s.rows.end()) return std::nullopt;
  if (hi->m == m) return hi->time_s;
  if (hi == s.rows.begin()) return std::nullopt;
  const auto lo = std::prev(hi);
  const auto ratio = [&](const GemmShape::Row& r) {
    return std::log(r.time_s / s.roof.time(s.precision, r.m, s.n, s.k));
  };
  const double x = (std::log(m) - std::log(lo->m)) / (std::log(hi->m) - std::log(lo->m));
  return s.roof.time(s.precision, m, s.n, s.k) * std::exp(ratio(*lo) + x * (ratio(*hi) - ratio(*lo)));
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
// (x_i, y_i) sorted by x: between the two nearest points around x; below the smallest x
// nullopt; beyond the largest nullopt, or with `hold` the largest's value (flagged).
struct Point {
  double x, y;
  bool held = false;  // the value was itself held
};
std::optional<Point> interpolate_log(std::span<const Point> pts, double x, bool hold) {
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

// The rows of one attention family (kind, precision, head layout): its roofline, and per
// measured batch (ascending) the log of each row's time over the roofline by length (ascending,
// the first of rows with equal length kept).
struct AttentionGroup {
  AttentionKind kind = AttentionKind::decode;
  Precision precision = Precision::bf16;
  HeadLayout heads;
  AttentionRoof roof;
  struct Batch {
    double batch;
    std::vector<Point> by_seq;
  };
  std::vector<Batch> batches;
};

AttentionGroup attention_group(const std::vector<AttentionRow>& rows, AttentionKind kind,
                               Precision p, const HeadLayout& h, const AttentionRow* skip) {
  AttentionGroup g;
  g.kind = g.roof.kind = kind;
  g.precision = p;
  g.heads = h;
  std::vector<const AttentionRow*> mine;
  for (const AttentionRow& r : rows)
    if (&r != skip && same_layout(r, kind, p, h)) {
      mine.push_back(&r);
      g.roof.add(r);
    }
  std::stable_sort(mine.begin(), mine.end(), [](const AttentionRow* a, const AttentionRow* b) {
    return a->batch != b->batch ? a->batch < b->batch : a->seq < b->seq;
  });
  for (const AttentionRow* r : mine) {
    if (g.batches.empty() || g.batches.back().batch != r->batch)
      g.batches.push_back({r->batch, {}});
    auto& pts = g.batches.back().by_seq;
    if (pts.empty() || pts.back().x != r->seq)
      pts.push_back({r->seq, std::log(r->time_s / g.roof.time(*r))});
  }
  return g;
}

// The ratio interpolated in log seq within each measured batch, then in log batch between the
// two nearest batches that answer. Decode holds the ratio beyond a batch's longest measured
// context (a streaming kernel's efficiency levels off once its blocks are long) and never
// beyond the batches; prefill holds it beyond the largest measured batch (more prompts only
// fill the device further) and never beyond the lengths. Below the shortest length or batch
// nothing is answered.
std::optional<AttentionTime> attention_at(const AttentionGroup& g, const AttentionRow& q) {
  const bool decode = g.kind == AttentionKind::decode;
  std::optional<Point> lo, hi;
  for (const AttentionGroup::Batch& b : g.batches) {
    if (b.batch > q.batch && hi) break;
    const auto pt = interpolate_log(b.by_seq, q.seq, decode);
    if (!pt) continue;
    if (b.batch <= q.batch) lo = Point{b.batch, pt->y, pt->held};
    if (b.batch >= q.batch && !hi) hi = Point{b.batch, pt->y, pt->held};
  }
  if (!lo) return std::nullopt;
  Point at = *lo;
  if (!hi) {
    if (decode) return std::nullopt;
    at.held = true;
  } else if (hi->x != lo->x) {
    const double f = (std::log(q.batch) - std::log(lo->x)) / (std::log(hi->x) - std::log(lo->x));
    at = Point{q.batch, lo->y + f * (hi->y - lo->y), lo->held || hi->held};
  }
  return AttentionTime{g.roof.time(q) * std::exp(at.y), at.held};
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

struct TableIndex {
  std::vector<GemmShape> gemm;
  std::vector<AttentionGroup> attention;
};

namespace {

const GemmShape* find_shape(const TableIndex& ix, Precision p, double n, double k) {
  for (const GemmShape& s : ix.gemm)
    if (s.precision == p && s.n == n && s.k == k) return &s;
  return nullptr;
}

const AttentionGroup* find_group(const TableIndex& ix, AttentionKind kind, Precision p,
                                 const HeadLayout& h) {
  for (const AttentionGroup& g : ix.attention)
    if (g.kind == kind && g.precision == p && g.heads == h) return &g;
  return nullptr;
}

std::optional<AttentionTime> attention_time(const Table& table, const AttentionRow& q) {
  const HeadLayout& h = q.heads;
  if (!positive(q.batch) || !positive(q.seq) || !positive(h.heads) || !positive(h.kv_heads) ||
      !positive(h.head_dim))
    return std::nullopt;
  if (table.lookup) {
    const AttentionGroup* g = find_group(*table.lookup, q.kind, q.precision, h);
    return g ? attention_at(*g, q) : std::nullopt;
  }
  return attention_at(attention_group(table.attention, q.kind, q.precision, h, nullptr), q);
}

}  // namespace

void index(Table& table) {
  auto ix = std::make_shared<TableIndex>();
  std::vector<std::pair<Precision, Roof>> roofs;
  for (const GemmRow& r : table.gemm) {
    if (find_shape(*ix, r.precision, r.n, r.k)) continue;
    auto roof = std::find_if(roofs.begin(), roofs.end(),
                             [&](const auto& x) { return x.first == r.precision; });
    if (roof == roofs.end())
      roof = roofs.insert(roofs.end(), {r.precision, roof_of(table.gemm, r.precision, nullptr)});
    ix->gemm.push_back(gemm_shape(table.gemm, r.precision, r.n, r.k, roof->second, nullptr));
  }
  for (const AttentionRow& r : table.attention)
    if (!find_group(*ix, r.kind, r.precision, r.heads))
      ix->attention.push_back(attention_group(table.attention, r.kind, r.precision, r.heads, nullptr));
  table.lookup = std::move(ix);
}

std::optional<double> gemm_time(const Table& table, Precision precision, double m, double n,
                                double k) {
  if (!positive(m) || !positive(n) || !positive(k)) return std::nullopt;
  if (table.lookup) {
    const GemmShape* s = find_shape(*table.lookup, precision, n, k);
    return s ? gemm_at(*s, m) : std::nullopt;
  }
  return gemm_at(
      gemm_shape(table.gemm, precision, n, k, roof_of(table.gemm, precision, nullptr), nullptr), m);
}

std::optional<AttentionTime> decode_attention_time(const Table& table, Precision precision,
                                                   const HeadLayout& heads, double batch,
                                                   double context) {
  return attention_time(table, query(AttentionKind::decode, precision, heads, batch, context));
}

std::optional<AttentionTime> prefill_attention_time(const Table& table, Precision precision,
                                                    const HeadLayout& heads, double batch,
                                                    double seq) {
  return attention_time(table, query(AttentionKind::prefill, precision, heads, batch, seq));
}

LeaveOneOutReport leave_one_out(const Table& table) {
  LeaveOneOutReport rep;
  std::vector<double> gemm_err, dec_err, pre_err;
  for (const GemmRow& r : table.gemm) {
    const auto t = gemm_at(gemm_shape(table.gemm, r.precision, r.n, r.k,
                                      roof_of(table.gemm, r.precision, &r), &r),
                           r.m);
    if (t && r.time_s > 0) gemm_err.push_back(std::abs(*t / r.time_s - 1.0));
  }
  int dec_rows = 0, pre_rows = 0;
  for (const AttentionRow& r : table.attention) {
    if (!(r.time_s > 0)) continue;
    ++(r.kind == AttentionKind::decode ? dec_rows : pre_rows);
    // Predicted from its neighbours only: an answer from a held ratio is not an interpolation.
    const auto t =
        attention_at(attention_group(table.attention, r.kind, r.precision, r.heads, &r), r);
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
