// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/serving/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "stackscope/network/model.hpp"
#include "stackscope/perf/iteration.hpp"

namespace stackscope::serving {

std::vector<InstanceConfig> colocated_instances(const perf::Design& design,
                                                const SchedulerConfig& scheduler, int count) {
  if (count < 1) throw std::invalid_argument("instances must be at least 1");
  perf::Design replica = design;
  replica.parallel.dp = 1;
  std::vector<InstanceConfig> out;
  for (int i = 0; i < count; ++i) {
    // One model per instance: its memo is its own, and instances never share mutable state.
    auto model = std::make_shared<perf::IterationModel>(replica);
    const double tokens =
        model->kv_capacity_tokens(scheduler.max_num_batched_tokens) * scheduler.kv_cache_fraction;
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
    c.kv_blocks = blocks;
    c.devices = model->devices();
    c.cost = [model](std::span<const perf::SequenceChunk> batch) { return model->cost(batch); };
    out.push_back(std::move(c));
  }
  return out;
}

Disaggregated disaggregated_instances(const perf::Design& design, const SchedulerConfig& prefill,
                                      const SchedulerConfig& decode, int prefill_count,
                                      int decode_count) {
  if (prefill_count < 1 || decode_count < 1)
    throw std::invalid_argument(
        "disaggregation needs at least one prefill and one decode instance");
  Disaggregated out;
  out.instances = colocated_instances(design, prefill, prefill_count);
  auto decoders = colocated_instances(design, decode, decode_count);
  const int k = out.instances.front().devices;
  const long long needed = static_cast<long long>(prefill_count + decode_count) * k;
  if (needed > design.system.devices)
    throw std::invalid_argument(
        "disaggregation " + std::to_string(prefill_count) + ":" + std::to_string(decode_count) +
        " of " + std::to_string(k) + "-device replicas needs " + std::to_string(needed) +
        " devices; the system has " + std::to_string(design.system.devices));
  perf::IterationModel probe(design);
  const double kv_bytes = probe.kv_bytes_per_token();
  for (auto& c : out.instances) {
    c.role = Role::prefill;
    c.kv_bytes_per_token = kv_bytes;
    c.name = "prefill " + c.name.substr(c.name.find(' ') + 1);
  }
  for (std::size_t i = 0; i < decoders.size(); ++i) {
    decoders[i].role = Role::decode;
    decoders[i].kv_bytes_per_token = kv_bytes;
    decoders[i].name = "decode " + std::to_string(i);
    out.instances.push_back(std::move(decoders[i]));
  }
  if (design.system.levels.empty() || design.system.devices <= 1) return out;  // no network
  auto net = std::make_shared<network::NetworkModel>(design.system);
  out.transfer = [net, k](int from, int to, double bytes) {
    KvTransfer t;
    for (int j = 0; j < k; ++j) {
      const int ranks[2] = {from * k + j, to * k + j};
      network::CollectiveRequest r;
      r.op = network::Collective::point_to_point;
      r.bytes = bytes / k;
      r.ranks = ranks;
      const auto c = net->cost(r);
      t.time_s = std::max(t.time_s, c.time_s);
      t.energy_J += 2 * c.energy_J;  // the cost's energy is per device of the pair
    }
    return t;
  };
  return out;
}

}  // namespace stackscope::serving
