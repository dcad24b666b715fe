// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Time left of a long run, from its recent rate (docs/model.md §16.4). The search engine and the
// co-exploration feed it their progress; the GUI and the CLI show what it returns.
//
// Why a recent rate: the mean rate since the start (done / elapsed) keeps the start's pace in it
// for the whole run. An exhaustive search prunes whole regions early, so its first work is cheap
// and the mean rate overstates the pace that remains: the ETA then climbs for the whole run. The
// rate measured over a sliding window forgets the start: once the pace has been steady for one
// window the ETA is the true time left and falls by one second per second.
//
// Contract
//  - Input: update(t_s, done, total), one sample per progress report. t_s is seconds since any
//    fixed origin (a steady clock), non-decreasing; `done` is work finished, in any unit that is
//    the same for every call (points, hardware points, co-exploration points), non-decreasing;
//    `total` is the work of the whole run in that unit, >= done. `total` may change between
//    samples (work found to be skipped, e.g. resumed units, lowers it); the work left is
//    total - done of the newest sample. Feed the units that best predict the time left: where
//    work units are uneven in cost, count the units themselves (finished hardware points),
//    not points some of which are pruned for free.
//  - Rate (work per second), measured between completions: let L be the sample at which `done`
//    first reached its newest value (the last completion seen). The rate is the work over the
//    time from the window's start to L, the start being the newest earlier completion that is at
//    least window_s older than L AND at least min_work less done. Early in a run, when no
//    completion is window_s old yet, the start is the first sample (the mean rate so far) once
//    min_work has been done since. Measuring completion to completion keeps coarse work (a unit
//    a minute, sampled every 0.1 s) from reading as a slowdown between completions. With
//    window_fraction f > 0 the window is at least f times the time from the first sample to L:
//    for work visited in a random order of strata (search/visit_order.hpp) the pace has no
//    trend from where the units lie (only a slow one as a search's frontier matures), and a
//    window that grows with the run averages the differences between strata away while still
//    following a change of pace within (1/f - 1) times the run so far.
//  - ETA (seconds) = (total - done) / rate - s, with s the time since L, counted only up to the
//    time the last completion step should take at that rate (its work / rate): between
//    completions the ETA falls with the clock; a stall longer than that holds it still, and the
//    late completion then lowers the rate. Never negative; 0 once done >= total.
//  - Unknown (std::nullopt, shown as no ETA) until min_samples updates have been given (since
//    construction or reset()) and min_work has been done over a positive time span.
//  - Bad input (NaN or infinite values, time or done going backwards, done < 0 or > total)
//    throws std::invalid_argument naming the value; the estimator is left unchanged.
//  - Memory: one sample per distinct `done` value still needed, at most kMaxSamples (beyond
//    that every second one is dropped, L and the oldest kept: a window start is then up to the
//    sample spacing older than asked, never newer).
// Not thread-safe: one estimator per run, fed from one thread.
#include <cstddef>
#include <deque>
#include <optional>

namespace stackscope::search {

class EtaEstimator {
 public:
  struct Options {
    double window_s = 30;         // the rate is measured over at least this long ...
    double min_work = 1;          // ... and at least this much finished work (> 0)
    std::size_t min_samples = 3;  // updates before a rate is given (>= 2)
    double window_fraction = 0;   // ... and at least this fraction of the run so far, in [0, 1)
  };
  static constexpr std::size_t kMaxSamples = 4096;

  EtaEstimator();
  // Throws std::invalid_argument on window_s <= 0, min_work <= 0, min_samples < 2 or
  // window_fraction outside [0, 1).
  explicit EtaEstimator(const Options& options);

  void update(double t_s, double done, double total);
  void reset();

  // Work per second over the window (between completions); nullopt while unknown (above).
  std::optional<double> rate_per_s() const;
  // Seconds left; nullopt while unknown, 0 once done >= total.
  std::optional<double> eta_s() const;
  const Options& options() const { return options_; }

 private:
  struct Sample {
    double t_s, done;
  };
  // Index in firsts_ of the window's start, or npos when the rate is unknown.
  std::size_t window_start() const;
  // The window's length with L at time t_s.
  double window_s(double t_s) const;

  Options options_;
  // The moment each `done` value was first seen, done strictly increasing; back() is L.
  std::deque<Sample> firsts_;
  Sample now_{0, 0};  // the newest sample
  double t0_s_ = 0;   // the first sample's time
  double total_ = 0;
  std::size_t updates_ = 0;
};

}  // namespace stackscope::search
