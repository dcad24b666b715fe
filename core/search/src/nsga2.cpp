// SPDX-License-Identifier: GPL-3.0-or-later
// NSGA-II (Deb et al., IEEE TEVC 2002) over the search space (engine_detail.hpp).
#include "engine_detail.hpp"

namespace stackscope::search::detail {
namespace {

double u01(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const std::uint64_t x = splitmix(seed ^ splitmix(a ^ splitmix(b ^ splitmix(c))));
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

struct Individual {
  std::vector<double> genes;
  PointRecord rec;
  int front = 0;
  double crowding = 0;
};

class Nsga2 {
 public:
  Nsga2(Shared& s, std::size_t threads)
      : s_(s), space_(s.space.space()), n_((s.opt.population + 1) / 2 * 2) {
    genes_ = space_.hardware.size() + 4;
    mutation_ = s.opt.mutation_probability > 0 ? s.opt.mutation_probability
                                               : 1.0 / static_cast<double>(genes_);
    for (std::size_t i = 0; i < threads; ++i) workers_.push_back(make_worker(s));
    for (std::size_t k = 0; k < kMaxObjectives; ++k)
      sign_[k] =
          k < space_.objectives.size() && space_.objectives[k].direction == Direction::minimize
              ? -1.0
              : 1.0;
  }

  void run() {
    std::vector<Individual> pop(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      pop[i].genes.resize(genes_);
      for (std::size_t g = 0; g < genes_; ++g) pop[i].genes[g] = u01(s_.opt.seed, 0, i, g);
    }
    evaluate(pop);
    rank(pop);
    for (std::uint64_t gen = 1; gen < s_.opt.generations && !s_.halted(); ++gen) {
      std::vector<Individual> kids = offspring(pop, gen);
      evaluate(kids);
      if (s_.halted()) break;
      pop.insert(pop.end(), std::make_move_iterator(kids.begin()),
                 std::make_move_iterator(kids.end()));
      rank(pop);
      select(pop);
    }
    for (auto& w : workers_) publish(*w);
  }

 private:
  Shared& s_;
  const Space& space_;
  std::size_t n_;
  std::size_t genes_ = 0;
  double mutation_ = 0;
  std::array<double, kMaxObjectives> sign_{};
  std::vector<WorkerPtr> workers_;

  static std::size_t digit(double gene, std::size_t radix) {
    return std::min(radix - 1, static_cast<std::size_t>(gene * static_cast<double>(radix)));
  }

  // Genes -> point; nullopt when the device count has no valid parallel group.
  std::optional<PointId> decode(const std::vector<double>& g) const {
    const auto& cs = s_.space;
    std::vector<std::size_t> d(space_.hardware.size());
    for (std::size_t a = 0; a < d.size(); ++a) d[a] = digit(g[a], space_.hardware[a].values.size());
    const std::uint64_t hw = cs.hardware_index(d);
    const auto groups = cs.groups(hw);
    if (groups.empty()) return std::nullopt;
    const std::size_t h = space_.hardware.size();
    InnerDigits in;
    in.group = digit(g[h], groups.size());
    in.sequence_parallel = digit(g[h + 1], space_.inner.sequence_parallel.size());
    in.batch = digit(g[h + 2], cs.batch_count());
    in.overlap = digit(g[h + 3], space_.inner.overlap.size());
    return PointId{hw, cs.inner_index(in)};
  }

  // Evaluates a generation on the worker threads; each result lands at its individual's slot,
  // so the outcome does not depend on which thread evaluated what.
  void evaluate(std::vector<Individual>& v) {
    std::atomic<std::size_t> next{0};
    auto body = [&](Worker& w) {
      for (;;) {
        const std::size_t i = next.fetch_add(1);
        if (i >= v.size()) return;
        auto& ind = v[i];
        ind.rec = PointRecord{};
        ind.rec.n_objectives = static_cast<int>(space_.objectives.size());
        if (s_.halted()) continue;
        const auto id = decode(ind.genes);
        if (!id) {
          s_.pruned.fetch_add(1);
          continue;
        }
        bool evaluated = false;
        ind.rec = evaluate_point(w, *id, &evaluated);
      }
    };
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < workers_.size(); ++t)
      pool.emplace_back(
          [this, &body](Worker& w) {
            try {
              body(w);
            } catch (...) {
              s_.fail(std::current_exception());
            }
          },
          std::ref(*workers_[t]));
    body(*workers_[0]);
  }

  bool dominates(const PointRecord& a, const PointRecord& b) const {
    bool strict = false;
    for (std::size_t k = 0; k < space_.objectives.size(); ++k) {
      const double x = sign_[k] * a.objectives[k], y = sign_[k] * b.objectives[k];
      if (x < y) return false;
      if (x > y) strict = true;
    }
    return strict;
  }

  static bool usable(const PointRecord& r) {
    if (!r.feasible) return false;
    for (int k = 0; k < r.n_objectives; ++k)
      if (!std::isfinite(r.objectives[k])) return false;
    return true;
  }

  // Fast non-dominated sort and crowding distance (Deb et al. 2002, §III-A/B); unusable
  // (infeasible, constraint-violating) individuals form the last front.
  void rank(std::vector<Individual>& v) const {
    const std::size_t n = v.size();
    std::vector<std::vector<std::size_t>> dominated(n);
    std::vector<int> count(n, 0);
    std::vector<std::size_t> current;
    for (std::size_t i = 0; i < n; ++i) {
      if (!usable(v[i].rec)) continue;
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j || !usable(v[j].rec)) continue;
        if (dominates(v[i].rec, v[j].rec))
          dominated[i].push_back(j);
        else if (dominates(v[j].rec, v[i].rec))
          ++count[i];
      }
      if (count[i] == 0) current.push_back(i);
    }
    int front = 0;
    while (!current.empty()) {
      for (std::size_t i : current) v[i].front = front;
      crowding(v, current);
      std::vector<std::size_t> next;
      for (std::size_t i : current)
        for (std::size_t j : dominated[i])
          if (--count[j] == 0) next.push_back(j);
      std::sort(next.begin(), next.end());
      current = std::move(next);
      ++front;
    }
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < n; ++i)
      if (!usable(v[i].rec)) rest.push_back(i);
    for (std::size_t i : rest) {
      v[i].front = front;
      v[i].crowding = 0;
    }
  }

  void crowding(std::vector<Individual>& v, std::vector<std::size_t> idx) const {
    for (std::size_t i : idx) v[i].crowding = 0;
    const double inf = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < space_.objectives.size(); ++k) {
      std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return v[a].rec.objectives[k] < v[b].rec.objectives[k];
      });
      const double lo = v[idx.front()].rec.objectives[k], hi = v[idx.back()].rec.objectives[k];
      v[idx.front()].crowding = inf;
      v[idx.back()].crowding = inf;
      if (!(hi > lo)) continue;
      for (std::size_t j = 1; j + 1 < idx.size(); ++j)
        v[idx[j]].crowding +=
            (v[idx[j + 1]].rec.objectives[k] - v[idx[j - 1]].rec.objectives[k]) / (hi - lo);
    }
  }

  static bool better(const std::vector<Individual>& v, std::size_t a, std::size_t b) {
    if (v[a].front != v[b].front) return v[a].front < v[b].front;
    if (v[a].crowding != v[b].crowding) return v[a].crowding > v[b].crowding;
    return a < b;
  }

  // Elitist reduction of parents + children to the population size.
  void select(std::vector<Individual>& v) const {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return better(v, a, b); });
    std::vector<Individual> keep;
    keep.reserve(n_);
    for (std::size_t i = 0; i < n_; ++i) keep.push_back(std::move(v[order[i]]));
    v = std::move(keep);
  }

  std::vector<Individual> offspring(const std::vector<Individual>& pop, std::uint64_t gen) const {
    const std::uint64_t seed = s_.opt.seed;
    auto pick = [&](std::uint64_t i, std::uint64_t which) {
      const auto a = static_cast<std::size_t>(u01(seed, gen, i, 1000 + 2 * which) *
                                              static_cast<double>(pop.size()));
      const auto b = static_cast<std::size_t>(u01(seed, gen, i, 1001 + 2 * which) *
                                              static_cast<double>(pop.size()));
      return better(pop, a, b) ? a : b;
    };
    std::vector<Individual> kids(n_);
    for (std::size_t i = 0; i < n_; i += 2) {
      const auto& p1 = pop[pick(i, 0)].genes;
      const auto& p2 = pop[pick(i, 1)].genes;
      auto& c1 = kids[i].genes;
      auto& c2 = kids[i + 1].genes;
      c1 = p1;
      c2 = p2;
      if (u01(seed, gen, i, 2000) < s_.opt.crossover_probability) {
        for (std::size_t g = 0; g < genes_; ++g)
          if (u01(seed, gen, i, 3000 + g) < 0.5) std::swap(c1[g], c2[g]);
      }
      for (std::size_t g = 0; g < genes_; ++g) {
        if (u01(seed, gen, i, 4000 + g) < mutation_) c1[g] = u01(seed, gen, i, 5000 + g);
        if (u01(seed, gen, i + 1, 4000 + g) < mutation_) c2[g] = u01(seed, gen, i + 1, 5000 + g);
      }
    }
    return kids;
  }
};

}  // namespace

void run_nsga2(Shared& s, std::size_t threads) {
  Nsga2(s, threads).run();
}

}  // namespace stackscope::search::detail
