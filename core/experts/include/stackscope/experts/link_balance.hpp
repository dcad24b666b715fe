// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HD-MoE's link balance (arXiv 2509.09420 §IV-D; docs/model.md §12.1):
// which mesh position each logical node of a placement takes. A placement's shares name logical
// nodes 0..N-1; the tokens' homes (LayerBatch::home) are physical mesh nodes and do not move. A
// permutation `perm` puts logical node l at physical node perm[l]: every share on node l moves
// to node perm[l] (apply_permutation). Link balance searches the permutation that minimises
// Σ over the given batches of simulate_layer()'s layer time — the one estimator, no surrogate —
// by simulated annealing with pairwise swaps (Kirkpatrick, Gelatt & Vecchi, Science 220, 1983),
// Metropolis acceptance (Metropolis et al., J. Chem. Phys. 21, 1953):
//
//   start      perm = identity, objective J0 = Σ_b simulate_layer(mesh, P∘perm, batch_b).time_s
//   move k     swap the positions of two logical nodes a != b, a drawn among the nodes that
//              hold any share (swapping two empty nodes changes nothing), b among all others
//   accept     ΔJ <= 0, or u < exp(-ΔJ / T_k) with u uniform in [0, 1)
//   cooling    T_k = T0 · J0 · 1e-3^(k / iterations): geometric, from initial_temperature
//              (relative to J0) down to a thousandth of it; T0 = 0 is a greedy descent
//
// The best permutation seen is returned, so the result is never worse than the identity.
// Random numbers come from std::mt19937_64 (its output is fixed by the standard) turned into
// integers and reals here, not by std::uniform_*_distribution (whose algorithms differ between
// standard libraries): the same seed gives the same permutation on every platform (up to the
// last-bit rounding of std::exp in the Metropolis test). link_balance() is a pure function of
// its input: reentrant, deterministic.
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"

namespace stackscope::experts {

struct LinkBalanceInput {
  MeshConfig mesh;
  Placement placement;              // over logical nodes 0..mesh.nodes()-1
  std::vector<LayerBatch> batches;  // the batches fitted on (homes physical); at least one
  CopyChoice choice = CopyChoice::round_robin;
  int iterations = 2000;              // swap proposals, each one simulate_layer() per batch; >= 0
  double initial_temperature = 0.05;  // T0 as a fraction of J0; finite, >= 0
  std::uint64_t seed = 1;
  std::stop_token stop;  // requested: the best permutation found so far is returned
  // Called every 1024 proposals with the proposals made and `iterations` (the balance of one
  // layer runs for minutes at the upper limit of iterations); null = none.
  std::function<void(int done, int total)> progress;
};

struct LinkBalanceResult {
  std::vector<int> permutation;  // perm[l] = physical node of logical node l
  Placement placement;           // apply_permutation(input.placement, permutation)
  double start_objective_s = 0;  // J0, the identity's Σ layer time
  double objective_s = 0;        // the returned permutation's Σ layer time (<= J0)
  int iterations = 0;            // proposals evaluated
  int accepted = 0;              // proposals accepted (Metropolis)
  int improvements = 0;          // times a new best was found
};

// The placement with every share's node l replaced by perm[l]. Throws std::invalid_argument
// unless perm is a permutation of 0..perm.size()-1 and every share's node lies in that range.
Placement apply_permutation(const Placement& placement, std::span<const int> perm);

// Throws std::invalid_argument naming the field for: no batches, iterations < 0,
// initial_temperature not finite and >= 0, a placement validate() rejects on the mesh's nodes,
// and whatever simulate_layer() rejects in the mesh or a batch (the message names the batch).
LinkBalanceResult link_balance(const LinkBalanceInput& input);

}  // namespace stackscope::experts
