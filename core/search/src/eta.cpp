// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/search/eta.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace stackscope::search {
namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

std::string num(double v) {
  return std::to_string(v);
}

}  // namespace

EtaEstimator::EtaEstimator() : EtaEstimator(Options{}) {}

EtaEstimator::EtaEstimator(const Options& options) : options_(options) {
  if (!(options.window_s > 0) || !std::isfinite(options.window_s))
    throw std::invalid_argument(
        "EtaEstimator: window_s must be a positive number of seconds (got " +
        num(options.window_s) + ")");
  if (!(options.min_work > 0) || !std::isfinite(options.min_work))
    throw std::invalid_argument("EtaEstimator: min_work must be positive (got " +
                                num(options.min_work) + ")");
  if (options.min_samples < 2)
    throw std::invalid_argument("EtaEstimator: min_samples must be at least 2 (got " +
                                std::to_string(options.min_samples) + ")");
  if (!(options.window_fraction >= 0 && options.window_fraction < 1))
    throw std::invalid_argument("EtaEstimator: window_fraction must lie in [0, 1) (got " +
                                num(options.window_fraction) + ")");
}

double EtaEstimator::window_s(double t_s) const {
  return std::max(options_.window_s, options_.window_fraction * (t_s - t0_s_));
}

void EtaEstimator::reset() {
  firsts_.clear();
  now_ = {0, 0};
  total_ = 0;
  updates_ = 0;
}

void EtaEstimator::update(double t_s, double done, double total) {
  if (!std::isfinite(t_s) || !std::isfinite(done) || !std::isfinite(total))
    throw std::invalid_argument("EtaEstimator: time, done and total must be finite (got t " +
                                num(t_s) + " s, done " + num(done) + ", total " + num(total) + ")");
  if (done < 0 || done > total)
    throw std::invalid_argument("EtaEstimator: done must lie in [0, total] (got done " + num(done) +
                                ", total " + num(total) + ")");
  if (updates_ > 0) {
    if (t_s < now_.t_s)
      throw std::invalid_argument("EtaEstimator: time went backwards (" + num(now_.t_s) +
                                  " s, then " + num(t_s) + " s)");
    if (done < now_.done)
      throw std::invalid_argument("EtaEstimator: done went backwards (" + num(now_.done) +
                                  ", then " + num(done) + ")");
  }
  if (updates_ == 0) t0_s_ = t_s;
  ++updates_;
  total_ = total;
  now_ = {t_s, done};
  if (firsts_.empty() || done > firsts_.back().done) {
    // Progress at the same instant as the last completion joins it: a rate needs a time span.
    if (!firsts_.empty() && firsts_.back().t_s == t_s)
      firsts_.back().done = done;
    else
      firsts_.push_back({t_s, done});
  }
  if (firsts_.size() > kMaxSamples) {
    // Thin rather than drop the oldest: a window growing with the run still reaches back.
    std::deque<Sample> kept;
    for (std::size_t i = 0; i + 1 < firsts_.size(); i += 2) kept.push_back(firsts_[i]);
    kept.push_back(firsts_.back());
    firsts_ = std::move(kept);
  }
  // Drop completions that can never start a window again: the one after them already qualifies
  // (a window older and min_work less done than L), and L and the window's start time only
  // move forward (the window grows by at most window_fraction < 1 of the time that passes).
  const Sample& last = firsts_.back();
  const double window = window_s(last.t_s);
  while (firsts_.size() > 2 && last.t_s - firsts_[1].t_s >= window &&
         last.done - firsts_[1].done >= options_.min_work)
    firsts_.pop_front();
}

std::size_t EtaEstimator::window_start() const {
  if (updates_ < options_.min_samples || firsts_.size() < 2) return npos;
  const Sample& last = firsts_.back();
  // The newest earlier completion both window_s older and min_work less done than L; failing
  // one, the first sample (the run is younger than a window).
  const double window = window_s(last.t_s);
  std::size_t start = 0;
  for (std::size_t i = firsts_.size() - 1; i-- > 0;) {
    if (last.t_s - firsts_[i].t_s >= window &&
        last.done - firsts_[i].done >= options_.min_work) {
      start = i;
      break;
    }
  }
  const Sample& first = firsts_[start];
  if (last.done - first.done < options_.min_work || !(last.t_s > first.t_s)) return npos;
  return start;
}

std::optional<double> EtaEstimator::rate_per_s() const {
  const std::size_t start = window_start();
  if (start == npos) return std::nullopt;
  const Sample& first = firsts_[start];
  const Sample& last = firsts_.back();
  return (last.done - first.done) / (last.t_s - first.t_s);
}

std::optional<double> EtaEstimator::eta_s() const {
  if (updates_ > 0 && now_.done >= total_) return 0.0;
  const auto rate = rate_per_s();
  if (!rate || !(*rate > 0)) return std::nullopt;
  const Sample& last = firsts_.back();
  const Sample& before = firsts_[firsts_.size() - 2];
  // The time since the last completion counts up to the time its step should take.
  const double step_s = (last.done - before.done) / *rate;
  const double since_s = std::min(now_.t_s - last.t_s, step_s);
  return std::max(0.0, (total_ - now_.done) / *rate - since_s);
}

}  // namespace stackscope::search
