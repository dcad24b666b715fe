// SPDX-License-Identifier: GPL-3.0-or-later
// KV re-sharding between replicas of different plans (kv_reshard.hpp).
#include "stackscope/serving/kv_reshard.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "stackscope/common/precision.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"

namespace stackscope::serving {
namespace {

// A box of one sequence's KV: layers [l0, l1), KV heads [h0, h1) (in heads; MLA: [0, 1) the
// latent), tokens [t0, t1) as fractions of the sequence; and the device holding it.
struct Piece {
  double l0, l1, h0, h1, t0, t1;
  int device;
};

std::vector<Piece> layout(const perf::Design& d, bool split_over_cp) {
  const auto& m = d.model;
  const parallel::Placement place(d.parallel);
  const int pp = place.degree(parallel::Dim::pp);
  const int tp_a = place.attention_tp();
  const int cp = split_over_cp ? place.degree(parallel::Dim::cp) : 1;
  const bool mla = m.attention == workload::AttentionKind::mla;
  const double heads = mla ? 1.0 : std::max(1, m.kv_heads);
  std::vector<int> ring(static_cast<std::size_t>(std::max(1, place.degree(parallel::Dim::cp))));
  std::vector<int> group(static_cast<std::size_t>(tp_a));
  std::vector<Piece> out;
  for (int s = 0; s < pp; ++s) {
    const auto st = parallel::stage_layers(m, pp, s);
    const double l0 = st.first, l1 = st.first + st.dense + st.moe;
    if (l1 <= l0) continue;
    parallel::Coord c;
    c[parallel::Dim::pp] = s;
    const int first = place.device(c);
    if (cp > 1)
      place.group(parallel::GroupKind::cp, first, ring.data());
    else
      ring[0] = first;
    for (int k = 0; k < cp; ++k) {
      place.group(parallel::GroupKind::attention_tp, ring[static_cast<std::size_t>(k)],
                  group.data());
      for (int r = 0; r < tp_a; ++r) {
        double h0 = 0, h1 = heads;
        if (!mla) {
          if (tp_a <= heads) {
            h0 = r * heads / tp_a;
            h1 = (r + 1) * heads / tp_a;
          } else {
            h0 = static_cast<double>(static_cast<long long>(r * heads / tp_a));
            h1 = h0 + 1;
          }
        }
        out.push_back({l0, l1, h0, h1, double(k) / cp, double(k + 1) / cp,
                       group[static_cast<std::size_t>(r)]});
      }
    }
  }
  return out;
}

std::vector<double> cuts(const std::vector<Piece>& a, const std::vector<Piece>& b,
                         double Piece::*lo, double Piece::*hi) {
  std::vector<double> v;
  for (const auto* side : {&a, &b})
    for (const Piece& p : *side) {
      v.push_back(p.*lo);
      v.push_back(p.*hi);
    }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

bool covers(const Piece& p, double l, double h, double t) {
  return p.l0 <= l && l < p.l1 && p.h0 <= h && h < p.h1 && p.t0 <= t && t < p.t1;
}

}  // namespace

std::vector<KvRoute> kv_reshard_routes(const perf::Design& prefill, const perf::Design& decode) {
  if (prefill.model.id != decode.model.id || prefill.model.layers != decode.model.layers ||
      prefill.model.kv_heads != decode.model.kv_heads ||
      prefill.workload.numerics.kv_cache != decode.workload.numerics.kv_cache)
    throw std::invalid_argument(
        "KV re-sharding needs the same model and KV precision in the prefill and decode pools");
  const auto src = layout(prefill, /*split_over_cp=*/true);
  const auto dst = layout(decode, /*split_over_cp=*/false);
  const auto& m = decode.model;
  const double heads = m.attention == workload::AttentionKind::mla ? 1.0 : std::max(1, m.kv_heads);
  // Bytes per token, per layer and per head (MLA: per latent): tp = 1 holds every head.
  const double unit =
      parallel::kv_bytes_per_token_layer(m, bytes_per_element(decode.workload.numerics.kv_cache),
                                         1) /
      heads;
  const auto lc = cuts(src, dst, &Piece::l0, &Piece::l1);
  const auto hc = cuts(src, dst, &Piece::h0, &Piece::h1);
  const auto tc = cuts(src, dst, &Piece::t0, &Piece::t1);
  std::map<std::pair<int, int>, double> bytes;
  std::vector<int> holders, takers;
  for (std::size_t i = 0; i + 1 < lc.size(); ++i)
    for (std::size_t j = 0; j + 1 < hc.size(); ++j)
      for (std::size_t k = 0; k + 1 < tc.size(); ++k) {
        holders.clear();
        takers.clear();
        for (const Piece& p : src)
          if (covers(p, lc[i], hc[j], tc[k])) holders.push_back(p.device);
        for (const Piece& p : dst)
          if (covers(p, lc[i], hc[j], tc[k])) takers.push_back(p.device);
        if (holders.empty() || takers.empty()) continue;
        const double b = (lc[i + 1] - lc[i]) * (hc[j + 1] - hc[j]) * (tc[k + 1] - tc[k]) * unit;
        for (std::size_t n = 0; n < takers.size(); ++n)
          bytes[{holders[n % holders.size()], takers[n]}] += b;
      }
  std::vector<KvRoute> out;
  out.reserve(bytes.size());
  for (const auto& [pair, b] : bytes) out.push_back({pair.first, pair.second, b});
  return out;
}

}  // namespace stackscope::serving
