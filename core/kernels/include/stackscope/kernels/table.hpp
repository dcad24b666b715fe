// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measured kernel tables (docs/model.md §3.5): times a device's kernel library reaches on given
// shapes, as a user's profiler or a vendor's tool records them, to be interpolated in place of
// the roofline's flat efficiencies where a device has them. SI units (s).
//
// Contract: lookups interpolate between measured rows and never extrapolate a time out of a
// measured range, with two stated exceptions flagged in the answer (decode attention beyond
// its longest measured context, prefill attention beyond its largest measured batch, keep the
// nearest measured efficiency). Anything not covered gives nullopt, and the caller keeps the
// analytical model for that kernel.
//  - GEMM: among the rows of its precision and weight shape (n, k) between the two nearest
//    measured token counts m; the ratio of their times to the table's own roofline (the highest
//    byte and FLOP rates its rows of that precision reach) is interpolated linearly in log m,
//    which keeps the memory-to-compute knee.
//  - Decode attention (one new token per sequence against `context` cached keys, per KV head
//    `heads / kv_heads` query heads sharing it, head_dim): among the rows of the same precision
//    and head layout, the ratio of each row's time to the rows' own roofline (the highest
//    aggregate K/V byte rate, and the highest rate of one (sequence, KV head) stream, which
//    bounds a kernel that runs one block per stream) is interpolated in log context within each
//    measured batch and then in log batch between the two nearest measured batches.
//  - Prefill attention (causal, no cached prefix, `seq` tokens per prompt): among the rows of
//    the same precision and head layout, the ratio of each row's time to the rows' own
//    roofline (the highest FLOP rate, plus one query block's pass over `seq` keys at the
//    highest keys-per-second) is interpolated in log seq within each measured batch, then in
//    log batch.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stackscope/common/precision.hpp"

namespace stackscope::kernels {

struct GemmRow {
  Precision precision = Precision::bf16;
  double m = 0;  // tokens (rows of the activation matrix)
  double n = 0;  // output features
  double k = 0;  // input features
  double time_s = 0;
};

// The head layout an attention kernel ran with, per device: query heads, KV heads (GQA
// groups), per-head dimension.
struct HeadLayout {
  double heads = 0;
  double kv_heads = 0;
  double head_dim = 0;
  bool operator==(const HeadLayout&) const = default;
};

enum class AttentionKind { decode, prefill };

struct AttentionRow {
  AttentionKind kind = AttentionKind::decode;
  Precision precision = Precision::bf16;  // of q, K and V
  HeadLayout heads;
  double batch = 0;  // sequences
  double seq = 0;    // decode: cached keys per sequence (context); prefill: prompt tokens
  double time_s = 0;
};

// The rows grouped by shape (GEMM: precision and weight shape; attention: kind, precision and
// head layout), sorted, with each group's roofline: built by index(), opaque to callers.
struct TableIndex;

struct Table {
  std::string source;  // where the rows come from (a file name)
  std::vector<GemmRow> gemm;
  std::vector<AttentionRow> attention;
  // Built by index() from the rows above; lookups on a table without one group its rows on
  // every call (correct, slower). Stale if the rows change after index().
  std::shared_ptr<const TableIndex> lookup;
};

// Groups the rows once so that a lookup touches only its own shape's rows and allocates
// nothing; call it after the rows are final (the readers do).
void index(Table& table);

// Time of an m x n x k GEMM at `precision`, interpolated from the table; nullopt when the
// table does not cover it (see the contract above).
std::optional<double> gemm_time(const Table& table, Precision precision, double m, double n,
                                double k);

struct AttentionTime {
  double time_s = 0;
  bool rate_held = false;  // beyond the measured range in the one direction that is held (see
                           // the contract): the nearest measured ratio to the roofline
};
// Decode attention of `batch` sequences each attending to `context` cached keys.
std::optional<AttentionTime> decode_attention_time(const Table& table, Precision precision,
                                                   const HeadLayout& heads, double batch,
                                                   double context);
// Causal prefill attention of `batch` prompts of `seq` tokens (no cached prefix).
std::optional<AttentionTime> prefill_attention_time(const Table& table, Precision precision,
                                                    const HeadLayout& heads, double batch,
                                                    double seq);

// Leave-one-out check of the lookups: each row predicted from the table without it (rows at
// the ends of their measured range cannot be, and are counted apart). Relative errors
// |t'/t - 1|, per kernel family and over all rows.
struct LeaveOneOut {
  int rows = 0;       // rows of the family
  int predicted = 0;  // rows that an interpolation could predict
  double median = 0;  // of the predicted rows' absolute relative errors
  double p90 = 0;
  double max = 0;
};
struct LeaveOneOutReport {
  LeaveOneOut gemm, decode_attention, prefill_attention, all;
};
LeaveOneOutReport leave_one_out(const Table& table);

}  // namespace stackscope::kernels
