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
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace stackscope::network::flow_sim_detail {

// Progressive filling over a subset of flows. Scratch buffers are kept between calls so the
// event loop allocates nothing after warm-up.
class MaxMinSolver {
 public:
  // Writes rate[f] for every f in `active` (other entries untouched). Every active flow must
  // cross at least one link.
  void solve(std::span<const double> capacity, std::span<const int> active,
             std::span<const int> path_begin, std::span<const int> path,
             std::span<double> rate) {
    const std::size_t links = capacity.size();
    count_.assign(links + 1, 0);
    for (const int f : active) {
      for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) ++count_[path[k] + 1];
    }
    // count_ becomes the CSR start of each link's list of active flows.
    std::partial_sum(count_.begin(), count_.end(), count_.begin());
    link_flows_.resize(count_[links]);
    fill_.assign(count_.begin(), count_.end() - 1);
    for (const int f : active) {
      for (int k = path_begin[f]; k < path_begin[f + 1]; ++k) link_flows_[fill_[path[k]]++] = f;
    }
    remaining_.assign(capacity.begin(), capacity.end());
    unfrozen_.resize(links);
    for (std::size_t l = 0; l < links; ++l) {
      unfrozen_[l] = count_[l + 1] - count_[l];
      if (unfrozen_[l] > 0) heap_.emplace(remaining_[l] / unfrozen_[l], static_cast<int>(l));
    }
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
      const auto [key, l] = heap_.top();
      heap_.pop();
      if (unfrozen_[l] == 0) continue;
      const double current = remaining_[l] / unfrozen_[l];
      if (key < current) {
        heap_.emplace(current, l);
        continue;
      }
      // Rounding can leave a hair below zero after many subtractions.
      const double share = std::max(current, 0.0);
      for (int k = count_[l]; k < count_[l + 1]; ++k) {
        const int f = link_flows_[k];
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

 private:
  using Entry = std::pair<double, int>;  // (fair share, link); ties broken by link id
  std::vector<int> count_;
  std::vector<int> fill_;
  std::vector<int> link_flows_;
  std::vector<double> remaining_;
  std::vector<int> unfrozen_;
  std::vector<std::uint32_t> frozen_;
  std::uint32_t epoch_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
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
      }
      solver_.solve(capacity_, active_, path_begin, path, rate_);
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
  std::vector<double> rate_;
  std::vector<double> remaining_;
  std::vector<double> activation_;
  std::vector<int> pending_;
  std::vector<int> active_;
  long long events_ = 0;
};

}  // namespace stackscope::network::flow_sim_detail
