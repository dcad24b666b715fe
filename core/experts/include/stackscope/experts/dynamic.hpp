// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Dynamic scheduling of one MoE layer (docs/model.md §12.4): HD-MoE's
// pre-broadcast of the predicted hot experts of the next layer (arXiv 2509.09420 §IV-E) and
// FasterMoE's shadowing of the current batch's hot experts (He et al., PPoPP 2022). Both change
// the placement the layer runs with; its time is simulate_layer()'s (the one estimator) plus the
// broadcast, which is accounted here in full and added to the layer wherever it is not hidden.
//
// Broadcast model: a pipelined broadcast along the XY spanning tree of the mesh (the root sends
// along its row, every node of that row along its column; each of the N-1 tree links carries the
// data once), store-and-forward of m = ceil(b / chunk_bytes) equal chunks per hop, one chunk
// τ = α + (b/m)/β per link as in simulate_layer (Hockney's α–β model, Parallel Computing 20,
// 1994). Chunk j reaches depth d at (j + d)·τ, so with D the root's eccentricity
// (max |x - x_root| + max |y - y_root|, the tree's depth):
//   t_bc(b) = (D + m - 1)·(α + b / (m·β))        (Johnsson & Ho, IEEE Trans. Computers 38, 1989,
//                                                  pipelined tree broadcast)
// Its traffic: (N-1)·b bytes delivered and carried on links, links busy (N-1)·(m·α + b/β).
// The broadcast runs on otherwise idle links (during attention, or before dispatch); its time
// is not interleaved into the simulation.
//
// Pre-broadcast (HD-MoE). The predicted experts of layer l+1 (e.g. moe::NextLayerPredictor),
// hottest first, are broadcast while layer l+1's non-MoE part (attention, `overlap_s`) runs.
// Expert e has one copy; its root is the holder of its largest share s_root (ties: lower node).
// Each expert in turn gets the largest chunk φ of its columns (φ <= s_root, <= max_fraction)
// whose broadcast from the root fits the overlap time the earlier experts left (HD-MoE Eq.
// 17/18's rule, with t_bc above), shrunk further so every node's memory holds it (reported).
// Every node then holds the chunk; the rest stays where the static placement put it. At dispatch
// layer l+1's routing is known, so the chunk's work φ·T_e (T_e tokens of e) is divided among
// the k least-loaded nodes (expected work of the placement on this batch, ties: lower node) by
// water-filling: the fluid limit of sending each token to the least-loaded holder (HD-MoE's
// dispatch rule) — nodes above the water level get none, the others are filled to one level.
// Every node that gets a part receives every token of e (simulate_layer's OR), so spreading a
// small chunk over many nodes can cost more traffic than it saves compute: the dispatcher tries
// k = 1, 2, 4, …, N and k = 0 (chunk unused) and keeps the one simulate_layer finds fastest
// (ties: the smaller k), so the simulated layer is never slower than the static one. The
// expert becomes one copy whose shares are rest + water-filled chunk parts; a node reads (and
// computes) only its part's weights, but holds the whole chunk in memory. A predicted expert
// the batch does not select keeps its static placement and still pays its broadcast. With
// fit_under_overlap = false the chunk is max_fraction (still ≤ s_root, memory-shrunk) and the
// part of the broadcasts beyond overlap_s is exposed, i.e. added to the layer time.
//
// Shadowing (FasterMoE). At dispatch the current batch's counts are known; the hottest experts
// with count > threshold · mean count (up to max_shadowed, hottest first, ties: lower id) are
// candidates. Shadowing one broadcasts its whole weights to all nodes (each share from its
// holder, one after another: Σ_h t_bc(s_h · expert_bytes)), and every node then computes its
// own tokens of that expert locally (no dispatch or combine for it), reading the whole
// expert's weights on every node that has such a token. In simulate_layer() a shadowed expert
// becomes N virtual experts, virtual expert n whole on node n, and token t selects the one on
// its home. The decision needs this layer's gate, which runs after attention, so the broadcast
// cannot hide under overlap_s: it is exposed in full. Following FasterMoE's rule (shadow only
// if the saving exceeds the cost) candidates are added greedily while simulate_layer's time
// plus all broadcasts so far falls below the best so far; the first one that does not help
// stops the search. A candidate whose broadcast would overfill some node's memory is skipped.
//
// All functions are pure: reentrant, deterministic, no RNG.
#include <limits>
#include <string>
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"

namespace stackscope::experts {

struct BroadcastCost {
  int root = 0;
  double bytes = 0;            // b, delivered to each of the other N-1 nodes
  int depth = 0;               // D, hops from the root to the farthest node
  int chunks = 0;              // m
  double time_s = 0;           // t_bc
  double delivered_bytes = 0;  // (N-1)·b = bytes carried on links (one tree link per node)
  double link_busy_s = 0;      // (N-1)·(m·α + b/β), summed over links
};

// The pipelined XY-tree broadcast of `bytes` from `root` (model above). bytes = 0 or a single
// node costs nothing. Throws std::invalid_argument for a bad mesh (as simulate_layer), a root
// off the mesh, or bytes not finite and >= 0.
BroadcastCost xy_tree_broadcast(const MeshConfig& mesh, int root, double bytes);

// The largest b <= max_bytes whose t_bc from `root` is <= budget_s (0 if none, e.g. budget_s
// below one α). t_bc is not monotone in b at chunk-count steps, so every m is tried.
double largest_broadcast_within(const MeshConfig& mesh, int root, double max_bytes,
                                double budget_s);

struct ExpertBroadcast {
  int expert = 0;
  double fraction = 0;  // share of the expert's columns broadcast (1 for a shadowed expert)
  bool shrunk_by_memory = false;          // the chunk was cut so every node's memory holds it
  int spread_nodes = 0;  // pre-broadcast: nodes the chunk's work went to (0: chunk unused)
  std::vector<BroadcastCost> broadcasts;  // one per root (several for a split shadowed expert)
  double time_s = 0;                      // Σ broadcasts' time_s
};

struct DynamicResult {
  Placement placement;  // the placement the layer ran with (shadowing: with virtual experts)
  LayerBatch batch;     // the batch it ran with (shadowing: shadowed ids mapped to virtual ones)
  LayerResult layer;    // simulate_layer(mesh, placement, batch, choice)
  double static_time_s = 0;  // simulate_layer() of the static placement on the input batch
  std::vector<ExpertBroadcast> experts;  // pre-broadcast or shadowed experts, in order
  std::vector<int> skipped;          // shadow candidates left out because a node's memory is full
  double broadcast_bytes = 0;        // Σ delivered bytes of all broadcasts
  double broadcast_link_busy_s = 0;  // Σ link busy time of all broadcasts
  double broadcast_time_s = 0;       // Σ broadcast times (they run one after another)
  double hidden_s = 0;               // part of broadcast_time_s under overlap_s
  double exposed_s = 0;              // broadcast_time_s - hidden_s, added to the layer
  double total_s = 0;                // layer.time_s + exposed_s
};

struct PreBroadcastInput {
  MeshConfig mesh;
  Placement placement;         // static placement of this layer (logical = physical nodes)
  LayerBatch batch;            // this layer's actual batch
  std::vector<int> predicted;  // experts to pre-broadcast, hottest first; distinct, single-copy
  double overlap_s = 0;        // non-MoE time the broadcasts run under, s; finite, >= 0
  double capacity_bytes_per_node = std::numeric_limits<double>::infinity();
  double max_fraction = 1;                      // cap on each chunk, (0, 1]
  bool fit_under_overlap = true;                // false: broadcast max_fraction, expose the excess
  CopyChoice choice = CopyChoice::round_robin;  // for experts with several static copies
};

// Throws std::invalid_argument naming the field for: what simulate_layer() rejects; a
// predicted id out of range, repeated, or of an expert with more than one copy; overlap_s or
// max_fraction out of range; a static placement already over capacity_bytes_per_node (> 0).
DynamicResult pre_broadcast(const PreBroadcastInput& input);

struct ShadowInput {
  MeshConfig mesh;
  Placement placement;   // static placement (logical = physical nodes)
  LayerBatch batch;      // the current batch, counts known at dispatch
  int max_shadowed = 2;  // >= 0
  double threshold = 2;  // candidate if count > threshold × mean count; finite, >= 0
  double capacity_bytes_per_node = std::numeric_limits<double>::infinity();
  CopyChoice choice = CopyChoice::round_robin;
};

// Throws std::invalid_argument naming the field for: what simulate_layer() rejects;
// max_shadowed < 0; threshold out of range; a static placement over capacity_bytes_per_node.
DynamicResult shadow(const ShadowInput& input);

}  // namespace stackscope::experts
