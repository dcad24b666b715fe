// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Next-layer expert prediction: HD-MoE pre-broadcasts the experts the
// next layer will overload, predicted from the current layer's routing (arXiv 2509.09420,
// "Opportunity 2": consecutive layers' gates select correlated experts). The predictor is the
// first-order Markov model of that correlation, fitted per layer pair on one set of traces:
//
//   P_l(j | i) = (#tokens selecting i at l and j at l+1 + k/E) / (#tokens selecting i at l + 1),
//
// smoothed by one pseudo-token spread uniformly (k/E per expert), so an expert unseen in
// training keeps a small probability and Σ_j P_l(j | i) = k stays exact. A token that selected
// the set S at layer l is predicted to select the top_k experts of
// score_j = Σ_{i in S} P_l(j | i) at layer l+1 (ties: lower id); score_j / k is its expected
// selections of j. A batch's predicted load of expert j is Σ over its tokens of score_j / k, and
// its predicted hottest expert (the one HD-MoE would pre-broadcast) the argmax.
//
// Accuracy is reported on traces the predictor was not fitted on (evaluate()), beside the
// baseline that knows only the training frequencies of layer l+1 (the same experts for every
// token), so what the layer-to-layer correlation adds is visible.
#include <cstddef>
#include <span>
#include <vector>

#include "stackscope/moe/trace.hpp"

namespace stackscope::moe {

class NextLayerPredictor {
 public:
  // Fits on every consecutive layer pair of `traces` (all of one expert count and top_k, at
  // least two layers, equal token counts per layer within a trace: token t of layer l is token
  // t of layer l+1). The predictor covers the layer pairs of the shortest trace. Throws
  // std::invalid_argument naming the trace when one breaks these rules (or check()).
  explicit NextLayerPredictor(std::span<const RoutingTrace> traces);

  int experts() const { return experts_; }
  int top_k() const { return top_k_; }
  std::size_t layer_pairs() const { return pairs_; }

  // score_j for a token that selected `current` at layer `layer` (the prediction for layer
  // layer + 1), into out[0..experts). layer < layer_pairs().
  void scores(std::size_t layer, std::span<const std::uint16_t> current, double* out) const;
  // The top_k experts of scores(), ascending score rank (highest first).
  std::vector<std::uint16_t> predict(std::size_t layer,
                                     std::span<const std::uint16_t> current) const;
  // The training frequency of expert j at layer `layer` (selections per token).
  double frequency(std::size_t layer, int expert) const;

 private:
  int experts_ = 0, top_k_ = 0;
  std::size_t pairs_ = 0;
  std::vector<std::vector<double>> conditional_;  // per layer pair, experts x experts (i, j)
  std::vector<std::vector<double>> frequency_;    // per layer, experts
};

struct PredictionAccuracy {
  std::size_t tokens = 0;  // tokens scored (summed over layer pairs)
  // Mean over tokens of |predicted ∩ actual| / top_k: the predictor, and the baseline that
  // predicts the training-frequency top_k of layer l+1 for every token.
  double token_recall = 0, baseline_token_recall = 0;
  std::size_t batches = 0;  // batches of `batch` consecutive tokens (summed over layer pairs)
  // Fraction of batches whose actual hottest expert at l+1 (most selections; ties: lower id) is
  // the predicted hottest (the one HD-MoE would pre-broadcast), and the baseline's hit rate.
  double hottest_hit = 0, baseline_hottest_hit = 0;
};

// Scores `predictor` on every layer pair of `trace` it covers, batches of `batch` tokens
// (1..tokens; a last partial batch is dropped). Throws std::invalid_argument for a trace that
// does not match the predictor (experts, top_k) or has unequal token counts, or a bad batch.
PredictionAccuracy evaluate(const NextLayerPredictor& predictor, const RoutingTrace& trace,
                            std::size_t batch);

}  // namespace stackscope::moe
