// SPDX-License-Identifier: GPL-3.0-or-later
// Next-layer expert prediction (predictor.hpp).
#include "stackscope/moe/predictor.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace stackscope::moe {
namespace {

void check_aligned(const RoutingTrace& t) {
  check(t);
  for (std::size_t l = 1; l < t.layers.size(); ++l)
    if (t.tokens(l) != t.tokens(0))
      throw std::invalid_argument("routing trace " + t.source + ": layer " + std::to_string(l) +
                                  " has " + std::to_string(t.tokens(l)) + " tokens, layer 0 " +
                                  std::to_string(t.tokens(0)) +
                                  " (a layer-to-layer predictor needs the same tokens in every "
                                  "layer)");
}

// The `k` highest of v[0..n) (ties: lower index), highest first.
std::vector<std::uint16_t> top(const double* v, int n, int k) {
  std::vector<std::uint16_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), std::uint16_t{0});
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [v](std::uint16_t a, std::uint16_t b) {
    return v[a] > v[b] || (v[a] == v[b] && a < b);
  });
  idx.resize(static_cast<std::size_t>(k));
  return idx;
}

}  // namespace

NextLayerPredictor::NextLayerPredictor(std::span<const RoutingTrace> traces) {
  if (traces.empty()) throw std::invalid_argument("next-layer predictor: no traces to fit on");
  experts_ = traces.front().experts;
  top_k_ = traces.front().top_k;
  pairs_ = traces.front().layers.size();
  for (const auto& t : traces) {
    check_aligned(t);
    if (t.experts != experts_ || t.top_k != top_k_)
      throw std::invalid_argument("next-layer predictor: trace " + t.source + " has " +
                                  std::to_string(t.experts) + " experts, top-" +
                                  std::to_string(t.top_k) + "; the first has " +
                                  std::to_string(experts_) + ", top-" + std::to_string(top_k_));
    pairs_ = std::min(pairs_, t.layers.size());
  }
  if (pairs_ < 2)
    throw std::invalid_argument("next-layer predictor: the traces need at least two layers");
  pairs_ -= 1;
  const auto e = static_cast<std::size_t>(experts_);
  std::vector<std::vector<double>> count(pairs_, std::vector<double>(e * e, 0.0));
  std::vector<std::vector<double>> selected(pairs_ + 1, std::vector<double>(e, 0.0));
  double tokens = 0;
  for (const auto& t : traces) {
    const std::size_t n = t.tokens(0);
    tokens += static_cast<double>(n);
    for (std::size_t l = 0; l <= pairs_; ++l)
      for (std::size_t i = 0; i < n; ++i)
        for (const auto a : t.token(l, i)) {
          selected[l][a] += 1;
          if (l < pairs_)
            for (const auto b : t.token(l + 1, i)) count[l][a * e + b] += 1;
        }
  }
  const double prior = static_cast<double>(top_k_) / static_cast<double>(experts_);
  conditional_.assign(pairs_, std::vector<double>(e * e, 0.0));
  for (std::size_t l = 0; l < pairs_; ++l)
    for (std::size_t a = 0; a < e; ++a)
      for (std::size_t b = 0; b < e; ++b)
        conditional_[l][a * e + b] = (count[l][a * e + b] + prior) / (selected[l][a] + 1);
  frequency_ = std::move(selected);
  for (auto& row : frequency_)
    for (auto& f : row) f /= tokens;
}

void NextLayerPredictor::scores(std::size_t layer, std::span<const std::uint16_t> current,
                                double* out) const {
  const auto e = static_cast<std::size_t>(experts_);
  std::fill(out, out + e, 0.0);
  const auto& p = conditional_.at(layer);
  for (const auto a : current)
    for (std::size_t b = 0; b < e; ++b) out[b] += p[a * e + b];
}

std::vector<std::uint16_t> NextLayerPredictor::predict(
    std::size_t layer, std::span<const std::uint16_t> current) const {
  std::vector<double> s(static_cast<std::size_t>(experts_));
  scores(layer, current, s.data());
  return top(s.data(), experts_, top_k_);
}

double NextLayerPredictor::frequency(std::size_t layer, int expert) const {
  return frequency_.at(layer).at(static_cast<std::size_t>(expert));
}

PredictionAccuracy evaluate(const NextLayerPredictor& p, const RoutingTrace& trace,
                            std::size_t batch) {
  check_aligned(trace);
  if (trace.experts != p.experts() || trace.top_k != p.top_k())
    throw std::invalid_argument("next-layer predictor: trace " + trace.source + " has " +
                                std::to_string(trace.experts) + " experts, top-" +
                                std::to_string(trace.top_k) + "; the predictor was fitted on " +
                                std::to_string(p.experts()) + ", top-" + std::to_string(p.top_k()));
  const std::size_t n = trace.tokens(0);
  if (batch < 1 || batch > n)
    throw std::invalid_argument("next-layer predictor: batch " + std::to_string(batch) +
                                " out of range (allowed: 1.." + std::to_string(n) + ")");
  const auto e = static_cast<std::size_t>(p.experts());
  const auto k = static_cast<std::size_t>(p.top_k());
  const std::size_t pairs = std::min(p.layer_pairs(), trace.layers.size() - 1);
  PredictionAccuracy acc;
  std::vector<double> s(e), load(e), actual(e), freq(e);
  std::vector<char> in(e);
  double recall = 0, base_recall = 0;
  std::size_t hits = 0, base_hits = 0;
  for (std::size_t l = 0; l < pairs; ++l) {
    for (std::size_t j = 0; j < e; ++j) freq[j] = p.frequency(l + 1, static_cast<int>(j));
    const auto baseline = top(freq.data(), p.experts(), p.top_k());
    const auto base_hottest = baseline.front();
    for (std::size_t b0 = 0; b0 + batch <= n; b0 += batch) {
      std::fill(load.begin(), load.end(), 0.0);
      std::fill(actual.begin(), actual.end(), 0.0);
      for (std::size_t t = b0; t < b0 + batch; ++t) {
        p.scores(l, trace.token(l, t), s.data());
        for (std::size_t j = 0; j < e; ++j) load[j] += s[j];
        const auto next = trace.token(l + 1, t);
        std::fill(in.begin(), in.end(), 0);
        for (const auto j : next) {
          in[j] = 1;
          actual[j] += 1;
        }
        std::size_t got = 0, base_got = 0;
        for (const auto j : top(s.data(), p.experts(), p.top_k())) got += in[j];
        for (const auto j : baseline) base_got += in[j];
        recall += static_cast<double>(got) / static_cast<double>(k);
        base_recall += static_cast<double>(base_got) / static_cast<double>(k);
        ++acc.tokens;
      }
      const auto hottest = top(actual.data(), p.experts(), 1).front();
      hits += top(load.data(), p.experts(), 1).front() == hottest;
      base_hits += base_hottest == hottest;
      ++acc.batches;
    }
  }
  if (acc.tokens > 0) {
    acc.token_recall = recall / static_cast<double>(acc.tokens);
    acc.baseline_token_recall = base_recall / static_cast<double>(acc.tokens);
  }
  if (acc.batches > 0) {
    acc.hottest_hit = static_cast<double>(hits) / static_cast<double>(acc.batches);
    acc.baseline_hottest_hit = static_cast<double>(base_hits) / static_cast<double>(acc.batches);
  }
  return acc;
}

}  // namespace stackscope::moe
