// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private core of the reference simulator (flow_sim.cpp): max-min fair rates by progressive
// filling and the discrete-event loop of one step, on integer link ids and flat arrays so it
// can be unit-tested without a Topology. Flows are given in CSR form: flow f crosses the links
// path[path_begin[f] .. path_begin[f + 1]).
//
// Max-min fairness and progressive filling: Bertsekas & Gallager, Data Networks, 2nd ed.,
// §6.5.2 ("Max-min flow control"). All unfrozen flows grow at the same rate until some link
// saturates; the flows crossing it are frozen at that rate; repeat on the rest. Equivalently,
// repeatedly take the link with the smallest fair share (remaining capacity / unfrozen flows
// crossing it) and freeze its unfrozen flows at that share.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace stackscope::network::flow_sim_detail {

// Per-link lists of the active flows, kept up to date as flows activate and complete (O(path)
// each) so a rate recomputation never rebuilds them. Entries are path positions k (the flow
// is flow_of[k]); pos[k] is where entry k sits in its link's list.
class LinkLists {
 public:
  // Sizes the lists for `flows` (all flows that may become active) and empties them.
  void reset(std::size_t links, std::span<const int> flows, std::span<const int> path_begin,
             std::span<const int> path) {
    base_.assign(links + 1, 0);
    for (const int f : flows) {
      for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) ++base_[path[k] + 1];
    }
    std::partial_sum(base_.begin(), base_.end(), base_.begin());
    size_.assign(links, 0);
    used_.clear();
    used_pos_.resize(links);
    entries_.resize(base_[links]);
    flow_of_.resize(path.size());
    pos_.resize(path.size());
    for (const int f : flows) {
      for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) flow_of_[k] = f;
    }
  }
  void add(int f, std::span<const int> path_begin, std::span<const int> path) {
    for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) {
      const int l = path[k];
      if (size_[l] == 0) {
        used_pos_[l] = static_cast<int>(used_.size());
        used_.push_back(l);
      }
      const int i = base_[l] + size_[l]++;
      entries_[i] = k;
      pos_[k] = i;
    }
  }
  void remove(int f, std::span<const int> path_begin, std::span<const int> path) {
    for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) {
      const int l = path[k];
      const int i = pos_[k];
      const int moved = entries_[base_[l] + --size_[l]];
      entries_[i] = moved;
      pos_[moved] = i;
      if (size_[l] == 0) {
        const int last = used_.back();
        used_[used_pos_[l]] = last;
        used_pos_[last] = used_pos_[l];
        used_.pop_back();
      }
    }
  }
  std::size_t links() const { return size_.size(); }
  // Links crossed by at least one active flow (in no particular order).
  std::span<const int> used() const { return used_; }
  int count(int l) const { return size_[l]; }
  // Active flows crossing link l: flow(i) for i in [begin(l), begin(l) + count(l)).
  int begin(int l) const { return base_[l]; }
  int flow(int i) const { return flow_of_[entries_[i]]; }

 private:
  std::vector<int> base_;
  std::vector<int> size_;
  std::vector<int> entries_;
  std::vector<int> flow_of_;
  std::vector<int> pos_;
  std::vector<int> used_;
  std::vector<int> used_pos_;
};

// Progressive filling over the flows in `lists`. Scratch buffers are kept between calls so
// the event loop allocates nothing after warm-up.
class MaxMinSolver {
 public:
  // Writes rate[f] for every flow in `lists` (other entries untouched).
  void solve(std::span<const double> capacity, const LinkLists& lists,
             std::span<const int> path_begin, std::span<const int> path,
             std::span<double> rate) {
    // Only links with active flows are touched, so an event costs O(active links + active
    // path entries), not O(all links).
    remaining_.resize(capacity.size());
    unfrozen_.resize(capacity.size());
    heap_.clear();
    for (const int l : lists.used()) {
      remaining_[l] = capacity[l];
      unfrozen_[l] = lists.count(l);
      heap_.push_back({remaining_[l] / unfrozen_[l], l});
    }
    std::make_heap(heap_.begin(), heap_.end(), later);
    if (frozen_.size() < rate.size()) frozen_.resize(rate.size(), 0);
    // Epoch stamps mark frozen flows without clearing a flag array on every call.
    if (++epoch_ == 0) {
      std::fill(frozen_.begin(), frozen_.end(), 0);
      epoch_ = 1;
    }
    // Lazy heap: one entry per link holding a lower bound of its fair share. Shares only
    // grow as flows freeze (the frozen share is the minimum), so an entry whose key is below
    // the link's current share is re-queued with the current share instead of processed.
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const Entry top = heap_.back();
      heap_.pop_back();
      const int l = top.link;
      if (unfrozen_[l] == 0) continue;
      const double current = remaining_[l] / unfrozen_[l];
      if (top.share < current) {
        heap_.push_back({current, l});
        std::push_heap(heap_.begin(), heap_.end(), later);
        continue;
      }
      // Rounding can leave a hair below zero after many subtractions.
      const double share = std::max(current, 0.0);
      const int first = lists.begin(l);
      for (int i = first; i < first + lists.count(l); ++i) {
        const int f = lists.flow(i);
        if (frozen_[f] == epoch_) continue;
        frozen_[f] = epoch_;
        rate[f] = share;
        for (int j = path_begin[f]; j < path_begin[f + 1]; ++j) {
          const int m = path[j];
          remaining_[m] -= share;
          --unfrozen_[m];
        }
      }
    }
  }

  // Convenience for tests: max-min rates of the flows in `active`.
  void solve(std::span<const double> capacity, std::span<const int> active,
             std::span<const int> path_begin, std::span<const int> path,
             std::span<double> rate) {
    LinkLists lists;
    lists.reset(capacity.size(), active, path_begin, path);
    for (const int f : active) lists.add(f, path_begin, path);
    solve(capacity, lists, path_begin, path, rate);
  }

 private:
  struct Entry {
    double share;
    int link;
  };
  // Min-heap order on the share; ties broken by link id for determinism.
  static bool later(const Entry& a, const Entry& b) {
    return a.share > b.share || (a.share == b.share && a.link > b.link);
  }
  std::vector<double> remaining_;
  std::vector<int> unfrozen_;
  std::vector<std::uint32_t> frozen_;
  std::uint32_t epoch_ = 0;
  std::vector<Entry> heap_;
};

// One step of flows. Time model (the simulator's contract, documented in flow_sim.cpp):
// a flow with bytes > 0 and a non-empty path becomes active at t0 + delay (its path latency,
// counted once: pipelined cut-through, the latency is the time before the first byte) and then
// sends at its max-min fair rate, recomputed whenever any flow of the step activates or
// completes; it finishes when its last byte is sent. Flows with no bytes or no links finish at
// t0. Simultaneous events (within a relative 1e-9 of a flow's bytes, 1e-12 of time) are merged
// into one rate recomputation.
class StepEngine {
 public:
  explicit StepEngine(std::vector<double> capacity) : capacity_(std::move(capacity)) {}

  // Returns the time the last flow finishes (t0 if none). start/finish are per flow.
  double run(double t0, std::span<const double> bytes, std::span<const double> delay,
             std::span<const int> path_begin, std::span<const int> path,
             std::span<double> start, std::span<double> finish) {
    const int n = static_cast<int>(bytes.size());
    rate_.assign(n, 0.0);
    remaining_.assign(bytes.begin(), bytes.end());
    activation_.resize(n);
    pending_.clear();
    double end = t0;
    for (int f = 0; f < n; ++f) {
      if (bytes[f] > 0 && path_begin[f + 1] > path_begin[f]) {
        for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) {
          if (!(capacity_[path[k]] > 0)) {
            throw std::invalid_argument("flow_sim: a flow crosses a link without bandwidth");
          }
        }
        activation_[f] = t0 + delay[f];
        pending_.push_back(f);
      } else {
        start[f] = finish[f] = t0;
      }
    }
    std::stable_sort(pending_.begin(), pending_.end(),
                     [&](int a, int b) { return activation_[a] < activation_[b]; });
    active_.clear();
    lists_.reset(capacity_.size(), pending_, path_begin, path);
    std::size_t next = 0;
    double t = t0;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    while (next < pending_.size() || !active_.empty()) {
      if (active_.empty()) t = std::max(t, activation_[pending_[next]]);
      const double horizon = t + 1e-12 * std::abs(t);
      while (next < pending_.size() && activation_[pending_[next]] <= horizon) {
        const int f = pending_[next++];
        start[f] = activation_[f];
        active_.push_back(f);
        lists_.add(f, path_begin, path);
      }
      solver_.solve(capacity_, lists_, path_begin, path, rate_);
      ++events_;
      double dt_done = kInf;
      int first = -1;
      for (const int f : active_) {
        const double dt = remaining_[f] / rate_[f];
        if (dt < dt_done) {
          dt_done = dt;
          first = f;
        }
      }
      const double next_activation = next < pending_.size() ? activation_[pending_[next]] : kInf;
      if (first < 0 && next_activation == kInf) {
        throw std::logic_error("flow_sim: active flows without bandwidth");  // unreachable
      }
      double t_next = t + dt_done;
      if (!(t_next <= next_activation)) {
        t_next = next_activation;
        first = -1;
      }
      const double dt = t_next - t;
      t = t_next;
      for (std::size_t i = 0; i < active_.size();) {
        const int f = active_[i];
        remaining_[f] -= rate_[f] * dt;
        if (f == first || remaining_[f] <= 1e-9 * bytes[f]) {
          remaining_[f] = 0;
          finish[f] = t;
          end = std::max(end, t);
          lists_.remove(f, path_begin, path);
          active_[i] = active_.back();
          active_.pop_back();
        } else {
          ++i;
        }
      }
    }
    return end;
  }

  long long events() const { return events_; }

 private:
  std::vector<double> capacity_;
  MaxMinSolver solver_;
  LinkLists lists_;
  std::vector<double> rate_;
  std::vector<double> remaining_;
  std::vector<double> activation_;
  std::vector<int> pending_;
  std::vector<int> active_;
  long long events_ = 0;
};

}  // namespace stackscope::network::flow_sim_detail
