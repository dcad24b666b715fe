// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one MoE-layer estimator (docs/model.md §12.2): a discrete-event simulation
// of one MoE layer on an X×Y mesh of near-memory nodes. Every placement strategy, baselines
// included, is scored by simulate_layer(); anything an optimiser uses instead is a surrogate to
// be checked against it.
//
// Model (HD-MoE, arXiv 2509.09420 §3 and its evaluation setup, reference/hdmoe-setup.md):
//  * Dispatch. Token t's hidden state (hidden × activation_bytes) goes from its home node to
//    every node holding any share of any of its experts' chosen copies, once per (token, node)
//    however many of its experts that node holds (HD-MoE's OR: a node takes part in a top-k
//    set's traffic if it holds any part of any expert of the set). The home needs no message.
//    One source's payload for one destination is one message (an all-to-all buffer), cut into
//    chunks of chunk_bytes (the last one shorter). All dispatch messages start at t = 0.
//  * Routing. Dimension-order XY routing (x first, then y; Ni & McKinley, IEEE Computer 1993),
//    deadlock-free on a mesh. Each directed link serves chunks one at a time, FIFO in event
//    order (ties by creation order). A chunk is stored and forwarded whole at every hop, so the
//    chunks of a message pipeline over the hops. One chunk of b bytes on one link takes
//    alpha_s + b / link_Bps: the α–β (latency–bandwidth) model of Hockney (Parallel Computing
//    20, 1994), with HD-MoE's α = 1e-7 s charged per chunk per hop.
//  * Compute. A node starts when every dispatch message it waits for has arrived and takes the
//    roofline time max(FLOPs / node_flops, weight bytes / mem_Bps) (Williams et al., CACM
//    2009): FLOPs = Σ over its (token, expert) pairs of fraction × 2·3·h·I (a gated FFN has
//    three h×I matrices, 2 FLOPs per multiply-add); weight bytes = Σ over the expert shares it
//    serves ≥ 1 token with of fraction × 3·h·I × weight_bytes (each weight read once).
//  * Combine. After its compute a node sends each of its tokens' partial output (hidden ×
//    activation_bytes, summed locally over that token's experts) to the token's home, one
//    message per destination, same routing. The layer ends when the last combine message
//    arrives, or at the last compute end when there is none.
// simulate_layer() is a pure function of its arguments: reentrant, deterministic, no RNG.
#include <cstddef>
#include <vector>

#include "stackscope/experts/placement.hpp"
#include "stackscope/moe/trace.hpp"

namespace stackscope::experts {

// One 2D mesh of identical nodes. Defaults: HD-MoE's default 4×8 mesh at its first hardware
// point (2.5 TFLOPS, 75 GB/s per link), DRAM 625 GB/s per node, α = 1e-7 s
// (reference/hdmoe-setup.md; the other points are (5 TFLOPS, 50 GB/s) and (10, 25), meshes
// 4×4, 4×8, 8×8).
struct MeshConfig {
  int x = 4;                    // nodes along x; node id = y * x + x-coordinate
  int y = 8;                    // nodes along y
  double node_flops = 2.5e12;   // FLOP/s per node (hdmoe-setup.md)
  double mem_Bps = 625e9;       // DRAM bytes/s per node (hdmoe-setup.md)
  double link_Bps = 75e9;       // bytes/s per directed link (hdmoe-setup.md)
  double alpha_s = 1e-7;        // per-message (here per chunk per hop) latency (HD-MoE)
  double chunk_bytes = 65'536;  // message chunk; our choice (HD-MoE sends whole messages)
  double activation_bytes = 4;  // per hidden-state element; HD-MoE counts FP32

  int nodes() const { return x * y; }
};

// One MoE layer's batch.
struct LayerBatch {
  int top_k = 0;
  // Token-major expert ids: expert_ids[t * top_k + j] = the j-th expert of token t, distinct
  // per token, each in [0, placement.experts.size()).
  std::vector<int> expert_ids;
  std::vector<int> home;    // home[t] = node holding token t's hidden state (0..N-1)
  int hidden = 0;           // h
  int intermediate = 0;     // I, one expert's FFN intermediate size
  double weight_bytes = 2;  // bytes per weight element (BF16)

  std::size_t tokens() const { return home.size(); }
};

// Layer `layer` of a routing trace as a batch, token t's home t mod nodes (data-parallel
// attention with tokens dealt round-robin). Throws std::invalid_argument (check(trace), layer
// out of range, nodes < 1).
LayerBatch batch_from_trace(const moe::RoutingTrace& trace, std::size_t layer, int nodes,
                            int hidden, int intermediate, double weight_bytes = 2);

// Which copy serves a token of an expert with several copies.
enum class CopyChoice {
  round_robin,   // the j-th token of that expert (in token order) goes to copy j mod copies
  least_loaded,  // the copy whose most loaded node has the least FLOPs assigned so far, ties
                 // to the lowest index (HD-MoE's dynamic dispatch to the least-loaded holder)
};

struct NodeStats {
  int tokens = 0;  // tokens this node computes for (at least one share)
  double flops = 0;
  double weight_bytes = 0;     // weight bytes read
  double compute_s = 0;        // roofline time
  double compute_start_s = 0;  // last dispatch arrival (0 if none)
  double compute_end_s = 0;
  double bytes_sent = 0;      // dispatch + combine payload injected here
  double bytes_received = 0;  // dispatch + combine payload delivered here
};

struct LinkStats {
  int from = 0;  // node ids of a directed mesh link
  int to = 0;
  double busy_s = 0;  // Σ chunk service times (alpha_s + bytes / link_Bps)
  double bytes = 0;
  long long chunks = 0;
};

enum class Phase { dispatch, combine };

struct MessageRecord {
  int src = 0;
  int dst = 0;
  Phase phase = Phase::dispatch;
  int tokens = 0;  // hidden states (or partial outputs) it carries
  double bytes = 0;
  int chunks = 0;
  int hops = 0;
  double start_s = 0;   // when its chunks were ready at the source
  double finish_s = 0;  // when its last chunk arrived (0 until delivered)
  bool delivered = false;
};

struct LayerResult {
  double time_s = 0;          // end of the layer
  double dispatch_end_s = 0;  // last dispatch arrival (0 if no dispatch message)
  double compute_end_s = 0;   // last compute end
  double combine_end_s = 0;   // last combine arrival (compute_end_s if none)
  std::vector<NodeStats> nodes;
  std::vector<LinkStats> links;         // every directed link of the mesh, by (from, direction)
  std::vector<MessageRecord> messages;  // dispatch in (src, dst) order, then combine as sent
  double bytes_injected = 0;
  double bytes_delivered = 0;
  double link_bytes = 0;      // Σ links' bytes = Σ messages' bytes × hops
  double load_imbalance = 1;  // max / mean node compute time (1 when all are 0)
  long long events = 0;       // events processed
};

// The XY route from src to dst as the node sequence src, ..., dst (just {src} if equal).
// Throws std::invalid_argument for an empty mesh or a node out of range.
std::vector<int> xy_route(const MeshConfig& mesh, int src, int dst);

// Simulates one MoE layer (model above). Throws std::invalid_argument naming the field, where
// and the allowed range for: an empty mesh or non-positive / non-finite mesh sizes, rates or
// bytes (alpha_s may be 0); a placement that validate() rejects (capacity is not checked here:
// call validate() with the node capacity); top_k < 1 or > experts; expert_ids not tokens ×
// top_k long; an expert id out of range or repeated within a token; a home node out of range;
// hidden, intermediate or weight_bytes not > 0.
LayerResult simulate_layer(const MeshConfig& mesh, const Placement& placement,
                           const LayerBatch& batch, CopyChoice choice = CopyChoice::round_robin);

}  // namespace stackscope::experts
