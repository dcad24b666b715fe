// SPDX-License-Identifier: GPL-3.0-or-later
// Serving instances of a design (core/serving/cluster.hpp): KV capacity from the memory model,
// iteration costs from perf::IterationModel, and disaggregated KV transfers priced by the
// system's network model (issue 14 deliverable 6).
#include <gtest/gtest.h>

#include "stackscope/io/project.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/perf/iteration.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/cluster.hpp"

namespace stackscope::serving {
namespace {

perf::Design llama70b_h100_tp2() {
  const auto& p = io::builtin_presets();
  perf::Design d = p.project("default");
  d.hardware = p.hardware("h100-sxm");
  d.system = p.system("h100-sxm-x8");
  d.model = p.model("llama-3-70b");
  d.runtime = p.runtime("modern-gpu-2025");
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  d.workload.batch = 1;
  d.workload.batch_auto = false;
  d.parallel = {};
  d.parallel.tp = 2;
  d.parallel.dp = 4;
  return d;
}

TEST(ServingCluster, InstancesAreReplicasWithTheirOwnKvCache) {
  const perf::Design d = llama70b_h100_tp2();
  ASSERT_TRUE(perf::validate(d).empty());
  const SchedulerConfig s;
  const auto inst = colocated_instances(d, s, 4);
  ASSERT_EQ(inst.size(), 4u);
  perf::IterationModel model([&] {
    perf::Design r = d;
    r.parallel.dp = 1;
    return r;
  }());
  EXPECT_EQ(inst[0].devices, 2);
  EXPECT_EQ(inst[0].kv_blocks,
            static_cast<long long>(model.kv_capacity_tokens(s.max_num_batched_tokens) / 16));
  const perf::SequenceChunk batch[] = {{1, 1000, true}, {512, 0, true}};
  EXPECT_DOUBLE_EQ(inst[2].cost(batch).time_s, model.cost(batch).time_s);
  SchedulerConfig trt = tensorrt_llm_defaults();
  EXPECT_EQ(colocated_instances(d, trt, 1)[0].kv_blocks,
            static_cast<long long>(model.kv_capacity_tokens(8192) * 0.9 / 32));
}

TEST(ServingCluster, KvTransferTakesTheNetworkModelsTime) {
  const perf::Design d = llama70b_h100_tp2();
  const auto dis = disaggregated_instances(d, SchedulerConfig{}, SchedulerConfig{}, 1, 3);
  ASSERT_EQ(dis.instances.size(), 4u);
  EXPECT_EQ(dis.instances[0].role, Role::prefill);
  EXPECT_EQ(dis.instances[3].role, Role::decode);
  ASSERT_TRUE(dis.transfer);
  // 1000 tokens of Llama-3-70B FP8 KV, split over the 2 shards: prefill devices 0, 1 -> decode
  // instance 2 on devices 6, 7; each shard one point-to-point message on the NVSwitch.
  const double bytes = 1000 * dis.instances[0].kv_bytes_per_token;
  network::NetworkModel net(d.system);
  double expected = 0;
  for (int j = 0; j < 2; ++j) {
    const int ranks[2] = {j, 6 + j};
    network::CollectiveRequest r;
    r.op = network::Collective::point_to_point;
    r.bytes = bytes / 2;
    r.ranks = ranks;
    expected = std::max(expected, net.cost(r).time_s);
  }
  const KvTransfer t = dis.transfer(0, 3, bytes);
  EXPECT_DOUBLE_EQ(t.time_s, expected);
  EXPECT_GT(t.time_s, 0);
  EXPECT_GT(t.energy_J, 0);
  // 2 + 3 replicas of 2 devices do not fit 8 devices.
  EXPECT_THROW(disaggregated_instances(d, SchedulerConfig{}, SchedulerConfig{}, 2, 3),
               std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::serving
