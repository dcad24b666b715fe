// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/moe/routing.hpp"

#include "stackscope/moe/ep_placement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace stackscope::moe {
namespace {

// Scale probabilities p (sum 1) to k selections with no entry above 1: entries that would
// exceed 1 are clamped and the excess is spread over the rest proportionally.
void expert_frequency_uncached(const workload::Routing& r, int n, int top_k, int moe_layer,
                               double* f) noexcept;

void water_fill(double* f, int n, int k) {
  double target = k;
  for (int i = 0; i < n; ++i) f[i] *= target;
  for (int iter = 0; iter < n; ++iter) {
    double excess = 0.0, free_mass = 0.0;
    for (int i = 0; i < n; ++i) {
      if (f[i] > 1.0) {
        excess += f[i] - 1.0;
        f[i] = 1.0;
      } else if (f[i] < 1.0)
        free_mass += f[i];
    }
    if (excess <= 1e-15 || free_mass <= 0.0) break;
    const double scale = 1.0 + excess / free_mass;
    for (int i = 0; i < n; ++i)
      if (f[i] < 1.0) f[i] *= scale;
  }
}

// Deterministic permutation of 0..n-1 from a seed (Fisher-Yates with a splitmix64 stream, so
// the result does not depend on the standard library's distributions).
void permutation(int n, std::uint64_t seed, int* out) {
  for (int i = 0; i < n; ++i) out[i] = i;
  std::uint64_t x = seed + 0x9E3779B97F4A7C15ull;
  auto next = [&x]() {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(next() % static_cast<std::uint64_t>(i + 1));
    std::swap(out[i], out[j]);
  }
}

}  // namespace

int frequency_rows(const workload::Routing& routing) noexcept {
  if (routing.kind == workload::RoutingKind::trace)
    return std::max<int>(1, static_cast<int>(routing.expert_frequency.size()));
  return 1;
}

void expert_frequency(const workload::Routing& r, int experts, int top_k, int moe_layer,
                      double* f) noexcept {
  const int n = std::clamp(experts, 1, kMaxExperts);
  // Generated (non-trace) rows depend only on these fields: searches ask for the same row for
  // every design, so the last one is kept per thread and copied.
  struct Last {
    bool valid = false;
    workload::RoutingKind kind{};
    double zipf_s = 0, alpha = 0;
    std::uint64_t seed = 0;
    int experts = 0, top_k = 0;
    double f[kMaxExperts];
  };
  static thread_local Last last;
  const bool generated = r.kind != workload::RoutingKind::trace;
  if (generated && last.valid && last.kind == r.kind && last.zipf_s == r.zipf_s &&
      last.alpha == r.dirichlet_alpha && last.seed == r.seed && last.experts == experts &&
      last.top_k == top_k) {
    std::memcpy(f, last.f, sizeof(double) * static_cast<std::size_t>(n));
    return;
  }
  expert_frequency_uncached(r, n, top_k, moe_layer, f);
  if (generated) {
    last.valid = true;
    last.kind = r.kind;
    last.zipf_s = r.zipf_s;
    last.alpha = r.dirichlet_alpha;
    last.seed = r.seed;
    last.experts = experts;
    last.top_k = top_k;
    std::memcpy(last.f, f, sizeof(double) * static_cast<std::size_t>(n));
  }
}

EpLoad ep_load_memo(const double* f, int experts, int ep, double tokens, int redundant) noexcept {
  // Frequency rows seen recently (compared bitwise), and a direct-mapped table of results.
  constexpr int kRows = 4;
  constexpr std::size_t kEntries = 4096;
  struct Memo {
    double rows[kRows][kMaxExperts];
    int row_experts[kRows] = {-1, -1, -1, -1};
    std::uint64_t row_id[kRows] = {};
    int next_row = 0;
    std::uint64_t next_id = 1;
    struct Entry {
      std::uint64_t row = 0;  // 0 = empty
      int ep = 0, redundant = 0;
      double tokens = 0;
      EpLoad load;
    };
    Entry entries[kEntries];
  };
  static thread_local Memo m;
  const std::size_t bytes =
      sizeof(double) * static_cast<std::size_t>(std::clamp(experts, 0, kMaxExperts));
  std::uint64_t id = 0;
  for (int i = 0; i < kRows && id == 0; ++i)
    if (m.row_experts[i] == experts && std::memcmp(m.rows[i], f, bytes) == 0) id = m.row_id[i];
  if (id == 0) {
    const int i = m.next_row;
    m.next_row = (i + 1) % kRows;
    std::memcpy(m.rows[i], f, bytes);
    m.row_experts[i] = experts;
    m.row_id[i] = id = m.next_id++;
  }
  std::uint64_t t;
  std::memcpy(&t, &tokens, sizeof t);
  std::uint64_t h = id * 0x9e3779b97f4a7c15ULL ^ t;
  h ^= (static_cast<std::uint64_t>(static_cast<std::uint32_t>(ep)) << 32) ^
       static_cast<std::uint32_t>(redundant);
  h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 29;
  auto& e = m.entries[h % kEntries];
  std::uint64_t et;
  std::memcpy(&et, &e.tokens, sizeof et);
  if (e.row == id && e.ep == ep && e.redundant == redundant && et == t) return e.load;
  e.row = id;
  e.ep = ep;
  e.redundant = redundant;
  e.tokens = tokens;
  e.load = ep_load(f, experts, ep, tokens, redundant);
  return e.load;
}

namespace {
void expert_frequency_uncached(const workload::Routing& r, int n, int top_k, int moe_layer,
                               double* f) noexcept {
  switch (r.kind) {
    case workload::RoutingKind::uniform:
      for (int i = 0; i < n; ++i) f[i] = 1.0 / n;
      break;
    case workload::RoutingKind::zipf: {
      int perm[kMaxExperts];
      permutation(n, r.seed, perm);
      double sum = 0.0;
      for (int i = 0; i < n; ++i) sum += 1.0 / std::pow(i + 1.0, r.zipf_s);
      for (int i = 0; i < n; ++i) f[perm[i]] = 1.0 / std::pow(i + 1.0, r.zipf_s) / sum;
      break;
    }
    case workload::RoutingKind::dirichlet: {
      // Dirichlet via normalised Gamma(alpha, 1) draws (Devroye 1986, ch. 9.4).
      std::mt19937_64 gen(r.seed);
      std::gamma_distribution<double> gamma(r.dirichlet_alpha, 1.0);
      double sum = 0.0;
      for (int i = 0; i < n; ++i) {
        f[i] = gamma(gen) + 1e-300;
        sum += f[i];
      }
      for (int i = 0; i < n; ++i) f[i] /= sum;
      break;
    }
    case workload::RoutingKind::trace: {
      if (r.expert_frequency.empty()) {
        for (int i = 0; i < n; ++i) f[i] = 1.0 / n;
        break;
      }
      const auto& row =
          r.expert_frequency[static_cast<std::size_t>(moe_layer) % r.expert_frequency.size()];
      double sum = 0.0;
      for (int i = 0; i < n; ++i) {
        f[i] = i < static_cast<int>(row.size()) ? std::max(0.0, row[i]) : 0.0;
        sum += f[i];
      }
      if (sum <= 0.0) {
        for (int i = 0; i < n; ++i) f[i] = 1.0 / n;
        break;
      }
      for (int i = 0; i < n; ++i) f[i] /= sum;
      break;
    }
  }
  water_fill(f, n, std::clamp(top_k, 1, n));
}
}  // namespace

double unique_tokens(double tokens, int top_k, double selections) noexcept {
  const double all = tokens * top_k;
  if (!(all > 0) || !(selections > 0)) return 0.0;
  // A token's top_k picks are top_k draws that each land on the rank with its share of the
  // selections (hit_probability below).
  return tokens * hit_probability(selections / all, top_k);
}

// Probability that at least one of `tokens` independent top-k draws hits an expert with routing
// share `share`: 1 - (1 - share)^tokens, as -expm1(tokens log1p(-share)) (accurate for small
// shares, and no pow underflow for large token counts: e^-40 < 2^-53, so the result is 1).
double hit_probability(double share, double tokens) noexcept {
  if (!(share > 0.0) || !(tokens > 0.0)) return 0.0;
  if (share >= 1.0) return 1.0;
  const double x = tokens * std::log1p(-share);
  return x < -40.0 ? 1.0 : -std::expm1(x);
}

RankLoad busiest_rank(const double* f, int experts, int ep, double tokens) noexcept {
  RankLoad best;
  ep = std::clamp(ep, 1, std::max(1, experts));
  const int per_rank = std::max(1, experts / ep);
  for (int r = 0; r < ep; ++r) {
    RankLoad load;
    for (int i = r * per_rank; i < (r + 1) * per_rank && i < experts; ++i) {
      load.tokens += tokens * f[i];
      load.active_experts += hit_probability(f[i], tokens);
    }
    if (load.tokens > best.tokens ||
        (load.tokens == best.tokens && load.active_experts > best.active_experts))
      best = load;
  }
  return best;
}

namespace {

// The placement both ep_load() and ep_ranks() report: per rank, expected tokens, experts in use
// and slots filled (originals + replicas). Ranks beyond ep are untouched; returns clamped ep.
int place_experts(const double* f, int experts, int ep, double tokens, int redundant, double* load,
                  double* active, int* hosted, int* replicas) noexcept {
  redundant = std::max(0, redundant);
  ep = std::clamp(ep, 1, std::max(1, experts));
  const int n = std::clamp(experts, 1, kMaxExperts);
  // Copies per expert: each extra slot goes to the expert with the most load per copy.
  int copies[kMaxExperts];
  for (int i = 0; i < n; ++i) copies[i] = 1;
  const long slots = std::min<long>(static_cast<long>(redundant) * ep, 4L * kMaxExperts);
  for (long s = 0; s < slots; ++s) {
    int best = 0;
    for (int i = 1; i < n; ++i)
      if (f[i] / copies[i] > f[best] / copies[best]) best = i;
    ++copies[best];
  }
  // Originals stay in their contiguous home ranks; replicas go, heaviest first, to the rank
  // with the least load that still has a free slot.
  constexpr int kMaxRanks = kMaxExperts;
  int free_slots[kMaxRanks];
  const int per_rank = std::max(1, n / ep);
  for (int r = 0; r < ep; ++r) {
    free_slots[r] = redundant;
    load[r] = active[r] = 0.0;
    hosted[r] = replicas[r] = 0;
  }
  // Synthetic uniform routing gives every expert the same share: reuse the last value.
  double last_share = -1.0, last_use = 0.0;
  auto use = [&](double share) {
    if (share != last_share) {
      last_share = share;
      last_use = hit_probability(share, tokens);
    }
    return last_use;
  };
  for (int i = 0; i < n; ++i) {
    const int home = std::min(ep - 1, i / per_rank);
    load[home] += tokens * f[i] / copies[i];
    active[home] += use(f[i] / copies[i]);
    ++hosted[home];
  }
  for (int pass = 0; pass < n; ++pass) {
    // Next heaviest replicated expert with copies left to place.
    int e = -1;
    for (int i = 0; i < n; ++i)
      if (copies[i] > 1 && (e < 0 || f[i] / copies[i] > f[e] / copies[e])) e = i;
    if (e < 0) break;
    const double share = f[e] / copies[e];
    for (int c = 1; c < copies[e]; ++c) {
      int r_best = -1;
      for (int r = 0; r < ep; ++r)
        if (free_slots[r] > 0 && (r_best < 0 || load[r] < load[r_best])) r_best = r;
      if (r_best < 0) break;
      --free_slots[r_best];
      load[r_best] += tokens * share;
      active[r_best] += use(share);
      ++hosted[r_best];
      ++replicas[r_best];
    }
    copies[e] = 1;  // placed
  }
  return ep;
}

}  // namespace

EpLoad ep_load(const double* f, int experts, int ep, double tokens, int redundant) noexcept {
  double load[kMaxExperts], active[kMaxExperts];
  int hosted[kMaxExperts], replicas[kMaxExperts];
  ep = place_experts(f, experts, ep, tokens, redundant, load, active, hosted, replicas);
  EpLoad out;
  for (int r = 0; r < ep; ++r) {
    const RankLoad here{load[r], active[r]};
    auto& t = out.most_tokens;
    if (here.tokens > t.tokens ||
        (here.tokens == t.tokens && here.active_experts > t.active_experts))
      t = here;
    auto& e = out.most_experts;
    if (here.active_experts > e.active_experts ||
        (here.active_experts == e.active_experts && here.tokens > e.tokens))
      e = here;
  }
  return out;
}

int ep_ranks(const double* f, int experts, int ep, double tokens, int redundant,
             RankShare* out) noexcept {
  double load[kMaxExperts], active[kMaxExperts];
  int hosted[kMaxExperts], replicas[kMaxExperts];
  ep = place_experts(f, experts, ep, tokens, redundant, load, active, hosted, replicas);
  for (int r = 0; r < ep; ++r) out[r] = {hosted[r], replicas[r], load[r], active[r]};
  return ep;
}

double imbalance(const double* f, int experts, int ep) noexcept {
  ep = std::clamp(ep, 1, std::max(1, experts));
  double total = 0.0;
  for (int i = 0; i < experts; ++i) total += f[i];
  if (total <= 0.0) return 1.0;
  const RankLoad b = busiest_rank(f, experts, ep, 1.0);
  return b.tokens / (total / ep);
}

}  // namespace stackscope::moe
