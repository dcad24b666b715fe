// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/serving/cluster.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

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

}  // namespace stackscope::serving
