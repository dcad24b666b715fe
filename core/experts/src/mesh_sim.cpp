// SPDX-License-Identifier: GPL-3.0-or-later
// The discrete-event MoE-layer simulator on a 2D mesh (mesh_sim.hpp has the model and sources).
#include "stackscope/experts/mesh_sim.hpp"

#include "layer_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

namespace stackscope::experts {
namespace {

constexpr long long kMaxNodes = 1 << 20;

using detail::num;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("simulate_layer: " + what);
}

void positive(double v, const std::string& name) {
  if (!(v > 0) || !std::isfinite(v))
    bad(name + " = " + num(v) + " out of range (allowed: finite, > 0)");
}

void check_mesh(const MeshConfig& m) {
  if (m.x < 1 || m.y < 1 || static_cast<long long>(m.x) * m.y > kMaxNodes)
    bad("mesh.x × mesh.y = " + std::to_string(m.x) + " × " + std::to_string(m.y) +
        " out of range (allowed: x >= 1, y >= 1, x·y <= " + std::to_string(kMaxNodes) +
        "; an empty mesh has no nodes)");
  positive(m.node_flops, "mesh.node_flops");
  positive(m.mem_Bps, "mesh.mem_Bps");
  positive(m.link_Bps, "mesh.link_Bps");
  if (!(m.alpha_s >= 0) || !std::isfinite(m.alpha_s))
    bad("mesh.alpha_s = " + num(m.alpha_s) + " out of range (allowed: finite, >= 0)");
  positive(m.chunk_bytes, "mesh.chunk_bytes");
  positive(m.activation_bytes, "mesh.activation_bytes");
}

// Directed links are numbered node·4 + direction.
enum Dir { east = 0, west = 1, north = 2, south = 3 };

int link_id(const MeshConfig& m, int from, int to) {
  int dir = east;
  if (to == from + 1)
    dir = east;
  else if (to == from - 1)
    dir = west;
  else if (to == from + m.x)
    dir = north;
  else
    dir = south;
  return from * 4 + dir;
}

struct Message {
  MessageRecord rec;
  double last_chunk_bytes = 0;
  std::vector<int> links;  // link ids along the XY route
  int arrived = 0;
};

enum class Kind : std::uint8_t { chunk, compute_done };

struct Event {
  double t = 0;
  std::uint64_t seq = 0;
  Kind kind = Kind::chunk;
  int id = 0;  // message (chunk) or node (compute_done)
  int chunk = 0;
  int hop = 0;  // next link to take; == links.size() means arrived
};

struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.t != b.t ? a.t > b.t : a.seq > b.seq;
  }
};

}  // namespace

std::vector<int> xy_route(const MeshConfig& mesh, int src, int dst) {
  if (mesh.x < 1 || mesh.y < 1 || static_cast<long long>(mesh.x) * mesh.y > kMaxNodes)
    throw std::invalid_argument("xy_route: mesh " + std::to_string(mesh.x) + " × " +
                                std::to_string(mesh.y) + " out of range (allowed: x, y >= 1)");
  const int n = mesh.nodes();
  for (const int v : {src, dst})
    if (v < 0 || v >= n)
      throw std::invalid_argument("xy_route: node " + std::to_string(v) +
                                  " out of range (allowed: 0.." + std::to_string(n - 1) + ")");
  std::vector<int> path{src};
  int cx = src % mesh.x, cy = src / mesh.x;
  const int tx = dst % mesh.x, ty = dst / mesh.x;
  while (cx != tx) {  // x first ...
    cx += tx > cx ? 1 : -1;
    path.push_back(cy * mesh.x + cx);
  }
  while (cy != ty) {  // ... then y (dimension-order routing)
    cy += ty > cy ? 1 : -1;
    path.push_back(cy * mesh.x + cx);
  }
  return path;
}

LayerBatch batch_from_trace(const moe::RoutingTrace& trace, std::size_t layer, int nodes,
                            int hidden, int intermediate, double weight_bytes) {
  moe::check(trace);
  if (layer >= trace.layers.size())
    throw std::invalid_argument("batch_from_trace: layer " + std::to_string(layer) +
                                " out of range (allowed: 0.." +
                                std::to_string(trace.layers.size() - 1) + ")");
  if (nodes < 1)
    throw std::invalid_argument("batch_from_trace: nodes = " + std::to_string(nodes) +
                                " out of range (allowed: >= 1)");
  LayerBatch b;
  b.top_k = trace.top_k;
  b.expert_ids.assign(trace.layers[layer].begin(), trace.layers[layer].end());
  const std::size_t t_count = trace.tokens(layer);
  b.home.resize(t_count);
  for (std::size_t t = 0; t < t_count; ++t)
    b.home[t] = static_cast<int>(t % static_cast<std::size_t>(nodes));
  b.hidden = hidden;
  b.intermediate = intermediate;
  b.weight_bytes = weight_bytes;
  return b;
}

LayerResult simulate_layer(const MeshConfig& mesh, const Placement& placement,
                           const LayerBatch& batch, CopyChoice choice) {
  check_mesh(mesh);
  const int n_nodes = mesh.nodes();
  const auto N = static_cast<std::size_t>(n_nodes);
  detail::check_batch("simulate_layer", placement, batch, n_nodes, "placement rejected", "");
  const double h = batch.hidden;

  LayerResult r;
  r.nodes.resize(N);
  // Token -> copy -> nodes (layer_work.hpp): per-node FLOPs, weight bytes, tokens and the
  // (home, node) pairs that need a dispatch.
  detail::LayerWork work = detail::assign_work(placement, batch, n_nodes, choice);
  for (std::size_t n = 0; n < N; ++n) {
    r.nodes[n].flops = work.flops[n];
    r.nodes[n].weight_bytes = work.weight_bytes[n];
    r.nodes[n].tokens = work.tokens[n];
  }
  std::vector<std::pair<int, int>>& pairs = work.remote;
  for (auto& n : r.nodes)
    n.compute_s = std::max(n.flops / mesh.node_flops, n.weight_bytes / mesh.mem_Bps);

  // Links of the mesh in (from, direction) order; link id -> index into r.links.
  std::vector<int> link_index(N * 4, -1);
  for (int v = 0; v < n_nodes; ++v) {
    const int vx = v % mesh.x, vy = v / mesh.x;
    const int nbr[4] = {vx + 1 < mesh.x ? v + 1 : -1, vx > 0 ? v - 1 : -1,
                        vy + 1 < mesh.y ? v + mesh.x : -1, vy > 0 ? v - mesh.x : -1};
    for (int d = 0; d < 4; ++d)
      if (nbr[d] >= 0) {
        link_index[static_cast<std::size_t>(v) * 4 + static_cast<std::size_t>(d)] =
            static_cast<int>(r.links.size());
        r.links.push_back({v, nbr[d], 0.0, 0.0, 0});
      }
  }
  std::vector<double> link_free(r.links.size(), 0.0);

  const double state_bytes = h * mesh.activation_bytes;  // one hidden state or partial output
  std::vector<Message> msgs;
  std::priority_queue<Event, std::vector<Event>, Later> queue;
  std::uint64_t seq = 0;
  auto send = [&](int src, int dst, Phase phase, int tokens, double t) {
    Message m;
    m.rec.src = src;
    m.rec.dst = dst;
    m.rec.phase = phase;
    m.rec.tokens = tokens;
    m.rec.bytes = tokens * state_bytes;
    const double whole = std::ceil(m.rec.bytes / mesh.chunk_bytes * (1 - 1e-12));
    m.rec.chunks = std::max(1, static_cast<int>(whole));
    m.last_chunk_bytes = m.rec.bytes - (m.rec.chunks - 1) * mesh.chunk_bytes;
    const auto path = xy_route(mesh, src, dst);
    for (std::size_t i = 0; i + 1 < path.size(); ++i)
      m.links.push_back(link_index[static_cast<std::size_t>(link_id(mesh, path[i], path[i + 1]))]);
    m.rec.hops = static_cast<int>(m.links.size());
    m.rec.start_s = t;
    r.nodes[static_cast<std::size_t>(src)].bytes_sent += m.rec.bytes;
    r.bytes_injected += m.rec.bytes;
    const int id = static_cast<int>(msgs.size());
    for (int c = 0; c < m.rec.chunks; ++c) queue.push({t, seq++, Kind::chunk, id, c, 0});
    msgs.push_back(std::move(m));
  };

  // Dispatch messages, (src, dst) order; combine from node v to d carries the same tokens as
  // dispatch from d to v, so keep those counts per sender too.
  std::sort(pairs.begin(), pairs.end());
  std::vector<int> waiting(N, 0);
  std::vector<std::vector<std::pair<int, int>>> combine_to(N);  // per node: (home, tokens)
  for (std::size_t i = 0; i < pairs.size();) {
    std::size_t j = i;
    while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
    const auto [src, dst] = pairs[i];
    send(src, dst, Phase::dispatch, static_cast<int>(j - i), 0.0);
    ++waiting[static_cast<std::size_t>(dst)];
    combine_to[static_cast<std::size_t>(dst)].emplace_back(src, static_cast<int>(j - i));
    i = j;
  }
  for (auto& c : combine_to) std::sort(c.begin(), c.end());
  for (std::size_t v = 0; v < N; ++v)
    if (waiting[v] == 0)
      queue.push({r.nodes[v].compute_s, seq++, Kind::compute_done, static_cast<int>(v), 0, 0});

  while (!queue.empty()) {
    const Event ev = queue.top();
    queue.pop();
    ++r.events;
    if (ev.kind == Kind::compute_done) {
      const auto v = static_cast<std::size_t>(ev.id);
      r.nodes[v].compute_end_s = ev.t;
      for (const auto& [home, tokens] : combine_to[v])
        send(ev.id, home, Phase::combine, tokens, ev.t);
      continue;
    }
    Message& m = msgs[static_cast<std::size_t>(ev.id)];
    const double bytes = ev.chunk + 1 == m.rec.chunks ? m.last_chunk_bytes : mesh.chunk_bytes;
    if (static_cast<std::size_t>(ev.hop) == m.links.size()) {  // arrived at its destination
      if (++m.arrived < m.rec.chunks) continue;
      m.rec.finish_s = ev.t;
      m.rec.delivered = true;
      const auto dst = static_cast<std::size_t>(m.rec.dst);
      r.nodes[dst].bytes_received += m.rec.bytes;
      r.bytes_delivered += m.rec.bytes;
      if (m.rec.phase == Phase::dispatch && --waiting[dst] == 0) {
        r.nodes[dst].compute_start_s = ev.t;
        queue.push({ev.t + r.nodes[dst].compute_s, seq++, Kind::compute_done, m.rec.dst, 0, 0});
      }
      continue;
    }
    // FIFO per directed link in event order; store-and-forward of whole chunks (α–β per hop).
    const auto l = static_cast<std::size_t>(m.links[static_cast<std::size_t>(ev.hop)]);
    const double service = mesh.alpha_s + bytes / mesh.link_Bps;
    const double end = std::max(ev.t, link_free[l]) + service;
    link_free[l] = end;
    r.links[l].busy_s += service;
    r.links[l].bytes += bytes;
    ++r.links[l].chunks;
    r.link_bytes += bytes;
    queue.push({end, seq++, Kind::chunk, ev.id, ev.chunk, ev.hop + 1});
  }

  double combine_end = -1;
  for (const auto& m : msgs) {
    if (!m.rec.delivered) throw std::logic_error("simulate_layer: a message was not delivered");
    if (m.rec.phase == Phase::dispatch)
      r.dispatch_end_s = std::max(r.dispatch_end_s, m.rec.finish_s);
    else
      combine_end = std::max(combine_end, m.rec.finish_s);
  }
  double max_c = 0, sum_c = 0;
  for (const auto& n : r.nodes) {
    r.compute_end_s = std::max(r.compute_end_s, n.compute_end_s);
    max_c = std::max(max_c, n.compute_s);
    sum_c += n.compute_s;
  }
  r.combine_end_s = combine_end >= 0 ? combine_end : r.compute_end_s;
  r.time_s = std::max(r.compute_end_s, r.combine_end_s);
  r.load_imbalance = sum_c > 0 ? max_c / (sum_c / static_cast<double>(N)) : 1.0;
  r.messages.reserve(msgs.size());
  for (auto& m : msgs) r.messages.push_back(m.rec);
  return r;
}

}  // namespace stackscope::experts
