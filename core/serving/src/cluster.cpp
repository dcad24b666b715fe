// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/serving/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "stackscope/network/model.hpp"
#include "stackscope/perf/iteration.hpp"
#include "stackscope/serving/kv_reshard.hpp"

namespace stackscope::serving {

std::vector<InstanceConfig> colocated_instances(const perf::Design& design,
                                                const SchedulerConfig& scheduler, int count) {
  if (count < 1) throw std::invalid_argument("instances must be at least 1");
  // The model's context bounds max_model_len, and is its default (vLLM: max_model_len defaults
  // to the config's max_position_embeddings and may not exceed it).
  const int context = design.model.max_context_tokens;
  if (context > 0 && scheduler.max_model_len > context)
    throw std::invalid_argument("max_model_len " + std::to_string(scheduler.max_model_len) +
                                " is over the context of " + design.model.id + " (" +
                                std::to_string(context) + " tokens; allowed: 0 = the model's, or 1.." +
                                std::to_string(context) + ")");
  perf::Design replica = design;
  replica.parallel.dp = 1;
  std::vector<InstanceConfig> out;
  for (int i = 0; i < count; ++i) {
    // One model per instance: its memo is its own, and instances never share mutable state.
    auto model = std::make_shared<perf::IterationModel>(replica);
    const double tokens =
        model->kv_capacity_tokens(scheduler.max_num_batched_tokens, scheduler.max_num_seqs) *
        scheduler.kv_cache_fraction;
    const auto blocks = static_cast<long long>(std::floor(tokens / scheduler.block_size));
    if (blocks < 1)
      throw std::invalid_argument(
          "no room for the KV cache: a replica of " + design.name + " (" +
          std::to_string(model->devices()) +
          " devices) holds the weights and the activations of max_num_batched_tokens = " +
          std::to_string(scheduler.max_num_batched_tokens) +
          " but not one KV block; use more tp/pp/ep, a smaller precision or fewer batched tokens");
    InstanceConfig c;
    c.name = "instance " + std::to_string(i);
    c.scheduler = scheduler;
    if (c.scheduler.max_model_len == 0) c.scheduler.max_model_len = context;
    c.kv_blocks = blocks;
    c.devices = model->devices();
    c.idle_power_W = model->idle_power_W();
    c.cost = [model](std::span<const perf::SequenceChunk> batch) { return model->cost(batch); };
    out.push_back(std::move(c));
  }
  return out;
}

Disaggregated disaggregated_instances(const Pool& prefill, const Pool& decode) {
  if (prefill.count < 1 || decode.count < 1)
    throw std::invalid_argument(
        "disaggregation needs at least one prefill and one decode instance");
  // The routes check that the pools run the same model at the same KV precision.
  const auto routes = kv_reshard_routes(prefill.design, decode.design);
  Disaggregated out;
  out.instances = colocated_instances(prefill.design, prefill.scheduler, prefill.count);
  auto decoders = colocated_instances(decode.design, decode.scheduler, decode.count);
  const int kp = out.instances.front().devices;
  const int kd = decoders.front().devices;
  const int np = prefill.count;
  const long long needed =
      static_cast<long long>(np) * kp + static_cast<long long>(decode.count) * kd;
  const int system_devices = prefill.design.system.devices;
  if (needed > system_devices)
    throw std::invalid_argument(
        "disaggregation " + std::to_string(np) + ":" + std::to_string(decode.count) + " of " +
        std::to_string(kp) + "-device prefill and " + std::to_string(kd) +
        "-device decode replicas needs " + std::to_string(needed) + " devices; the system has " +
        std::to_string(system_devices));
  const double kv_prefill = perf::IterationModel(prefill.design).kv_bytes_per_token();
  const double kv_decode = perf::IterationModel(decode.design).kv_bytes_per_token();
  for (auto& c : out.instances) {
    c.role = Role::prefill;
    c.kv_bytes_per_token = kv_prefill;
    c.name = "prefill " + c.name.substr(c.name.find(' ') + 1);
  }
  for (std::size_t i = 0; i < decoders.size(); ++i) {
    decoders[i].role = Role::decode;
    decoders[i].kv_bytes_per_token = kv_decode;
    decoders[i].name = "decode " + std::to_string(i);
    out.instances.push_back(std::move(decoders[i]));
  }
  const auto& system = prefill.design.system;
  if (system.levels.empty() || system.devices <= 1) return out;  // no network
  auto net = std::make_shared<network::NetworkModel>(system);
  out.transfer = [net, routes, kp, kd, np, kv_prefill](int from, int to, double bytes, double) {
    const double tokens = kv_prefill > 0 ? bytes / kv_prefill : 0.0;
    const int src_base = from * kp;
    const int dst_base = np * kp + (to - np) * kd;
    // Per device of the pair: what it sends, what it receives (s).
    std::vector<double> sends(static_cast<std::size_t>(kp)), receives(static_cast<std::size_t>(kd));
    KvTransfer t;
    t.bytes = 0;
    for (const KvRoute& route : routes) {
      const int ranks[2] = {src_base + route.from, dst_base + route.to};
      network::CollectiveRequest r;
      r.op = network::Collective::point_to_point;
      r.bytes = route.bytes_per_token * tokens;
      r.ranks = ranks;
      const auto c = net->cost(r);
      sends[static_cast<std::size_t>(route.from)] += c.time_s;
      receives[static_cast<std::size_t>(route.to)] += c.time_s;
      t.energy_J += 2 * c.energy_J;  // the cost's energy is per device of the pair
      t.bytes += r.bytes;
    }
    // Each device's NIC works in parallel with the others': an instance's egress is busy for
    // its slowest sender, its ingress for its slowest receiver; the KV is usable when both
    // ends are done.
    t.egress_s = 0;
    t.ingress_s = 0;
    for (const double s : sends) t.egress_s = std::max(t.egress_s, s);
    for (const double s : receives) t.ingress_s = std::max(t.ingress_s, s);
    t.time_s = std::max(t.egress_s, t.ingress_s);
    return t;
  };
  return out;
}

Disaggregated disaggregated_instances(const perf::Design& design, const SchedulerConfig& prefill,
                                      const SchedulerConfig& decode, int prefill_count,
                                      int decode_count) {
  return disaggregated_instances(Pool{design, prefill, prefill_count},
                                 Pool{design, decode, decode_count});
}

}  // namespace stackscope::serving
