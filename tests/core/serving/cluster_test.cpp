// SPDX-License-Identifier: GPL-3.0-or-later
// Serving instances of a design (core/serving/cluster.hpp): KV capacity from the memory model,
// iteration costs from perf::IterationModel, and disaggregated KV transfers priced by the
// system's network model.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "stackscope/io/project.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/perf/iteration.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/kv_reshard.hpp"
#include "stackscope/serving/spec.hpp"

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
  // Idle power is the replica's static power: positive, and below the power of a busy iteration
  // (which holds it plus the dynamic energy of its work).
  EXPECT_DOUBLE_EQ(inst[0].idle_power_W, model.idle_power_W());
  EXPECT_GT(inst[0].idle_power_W, 0);
  const auto busy = model.cost(batch);
  EXPECT_LT(inst[0].idle_power_W, busy.energy_J / busy.time_s);
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
  const KvTransfer t = dis.transfer(0, 3, bytes, 0.0);
  EXPECT_DOUBLE_EQ(t.time_s, expected);
  EXPECT_GT(t.time_s, 0);
  EXPECT_GT(t.energy_J, 0);
  // 2 + 3 replicas of 2 devices do not fit 8 devices.
  EXPECT_THROW(disaggregated_instances(d, SchedulerConfig{}, SchedulerConfig{}, 2, 3),
               std::invalid_argument);
}

// A 1-device prefill instance sending to a 4-device decode instance sends four shards from
// its one NIC, while each decode device receives one: the transfer holds the sender for the
// four messages and the receiver for one, and is done when the sender is.
TEST(ServingCluster, KvTransferHoldsTheSenderAndReceiverForTheirOwnShare) {
  perf::Design d = llama70b_h100_tp2();
  perf::Design p = d, q = d;
  p.parallel = {};
  p.parallel.tp = 2;
  q.parallel = {};
  q.parallel.tp = 4;
  p.system.devices = 8;
  const auto dis = disaggregated_instances(Pool{p, SchedulerConfig{}, 1}, Pool{q, SchedulerConfig{}, 1});
  ASSERT_TRUE(dis.transfer);
  const double bytes = 1000 * dis.instances[0].kv_bytes_per_token;
  const KvTransfer t = dis.transfer(0, 1, bytes, 0.0);
  // Each of the 2 senders holds two of the 4 receivers' shards.
  EXPECT_GT(t.egress_s, 0);
  EXPECT_NEAR(t.ingress_s, t.egress_s / 2, t.egress_s * 1e-9);
  EXPECT_DOUBLE_EQ(t.time_s, t.egress_s);
}

// The design with plan tp x pp x cp (dp = 1): one replica of a pool.
perf::Design with_plan(perf::Design d, int tp, int pp = 1, int cp = 1) {
  d.parallel = {};
  d.parallel.tp = tp;
  d.parallel.pp = pp;
  d.parallel.cp = cp;
  d.system.devices = tp * pp * cp;
  return d;
}

// Routes as {(from, to) -> bytes per token}.
std::map<std::pair<int, int>, double> route_map(const std::vector<KvRoute>& routes) {
  std::map<std::pair<int, int>, double> m;
  for (const auto& r : routes) m[{r.from, r.to}] = r.bytes_per_token;
  return m;
}

// Llama-3-70B FP8: 80 layers x 8 KV heads x 128 x (K, V) x 1 byte = 163,840 B per token
// (config.json: num_hidden_layers 80, num_key_value_heads 8, head_dim 128).
constexpr double kLlama70bFp8KvPerToken = 80 * 8 * 128 * 2 * 1.0;

TEST(KvReshard, SamePlanMovesEachShardToItsPeer) {
  const auto d = with_plan(llama70b_h100_tp2(), 2);
  ASSERT_TRUE(perf::validate(d).empty());
  const auto m = route_map(kv_reshard_routes(d, d));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ((m.at({0, 0})), kLlama70bFp8KvPerToken / 2);
  EXPECT_DOUBLE_EQ((m.at({1, 1})), kLlama70bFp8KvPerToken / 2);
}

TEST(KvReshard, TensorDegreeChangeSplitsHeads) {
  // TP2 -> TP4: prefill rank 0 holds heads 0-3, rank 1 heads 4-7; decode rank r holds heads
  // 2r, 2r+1, so ranks 0, 1 draw from prefill rank 0 and ranks 2, 3 from rank 1.
  const auto p = with_plan(llama70b_h100_tp2(), 2), d = with_plan(llama70b_h100_tp2(), 4);
  ASSERT_TRUE(perf::validate(p).empty());
  ASSERT_TRUE(perf::validate(d).empty());
  const auto m = route_map(kv_reshard_routes(p, d));
  ASSERT_EQ(m.size(), 4u);
  for (const auto& key : {std::pair{0, 0}, std::pair{0, 1}, std::pair{1, 2}, std::pair{1, 3}})
    EXPECT_DOUBLE_EQ(m.at(key), kLlama70bFp8KvPerToken / 4) << key.first << "->" << key.second;
  // And back: TP4 -> TP2 gathers two ranks into one.
  const auto back = route_map(kv_reshard_routes(d, p));
  ASSERT_EQ(back.size(), 4u);
  EXPECT_DOUBLE_EQ((back.at({3, 1})), kLlama70bFp8KvPerToken / 4);
}

TEST(KvReshard, PipelineToTensorCrossesLayersAndHeads) {
  // TP1 PP2 -> TP2: prefill device s holds layers [40 s, 40 s + 40) of every head; decode
  // device r all layers of heads [4 r, 4 r + 4): every pair moves a quarter.
  const auto p = with_plan(llama70b_h100_tp2(), 1, 2), d = with_plan(llama70b_h100_tp2(), 2);
  ASSERT_TRUE(perf::validate(p).empty());
  const auto m = route_map(kv_reshard_routes(p, d));
  ASSERT_EQ(m.size(), 4u);
  for (const auto& [pair, b] : m) EXPECT_DOUBLE_EQ(b, kLlama70bFp8KvPerToken / 4);
}

TEST(KvReshard, ContextParallelPrefillSendsEachRanksTokens) {
  // CP2 prefill: each ring rank holds half the prompt's tokens (all layers, all heads).
  const auto p = with_plan(llama70b_h100_tp2(), 1, 1, 2), d = with_plan(llama70b_h100_tp2(), 1);
  ASSERT_TRUE(perf::validate(p).empty());
  const auto m = route_map(kv_reshard_routes(p, d));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ((m.at({0, 0})), kLlama70bFp8KvPerToken / 2);
  EXPECT_DOUBLE_EQ((m.at({1, 0})), kLlama70bFp8KvPerToken / 2);
}

TEST(KvReshard, ReplicatedHeadsArriveOncePerCopyFromSpreadHolders) {
  // 2 KV heads on TP4: ranks 0, 1 hold head 0 and ranks 2, 3 head 1 (parallel::
  // kv_bytes_per_token_layer replicates). From TP1 every copy comes from device 0; from TP4 each
  // destination draws from its own peer, not all from the first holder.
  perf::Design base = llama70b_h100_tp2();
  base.model.kv_heads = 2;
  const auto one = with_plan(base, 1), four = with_plan(base, 4);
  ASSERT_TRUE(perf::validate(four).empty());
  const double head = 80 * 128 * 2 * 1.0;  // one KV head, all layers, FP8
  const auto from_one = route_map(kv_reshard_routes(one, four));
  ASSERT_EQ(from_one.size(), 4u);
  double sum = 0;
  for (int r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ((from_one.at({0, r})), head);
    sum += from_one.at({0, r});
  }
  EXPECT_DOUBLE_EQ(sum, perf::IterationModel(four).kv_bytes_per_token());
  const auto same = route_map(kv_reshard_routes(four, four));
  ASSERT_EQ(same.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_DOUBLE_EQ((same.at({r, r})), head);
}

TEST(KvReshard, MlaLatentGoesWholeToEveryRank) {
  // DeepSeek-V2-Lite: MLA latent 512 + 64 per token per layer, 27 layers (config.json), BF16 KV
  // here; every TP rank holds it whole.
  const auto& presets = io::builtin_presets();
  perf::Design base = llama70b_h100_tp2();
  base.model = presets.model("deepseek-v2-lite");
  base.workload.numerics = {Precision::bf16, Precision::bf16, Precision::bf16};
  const auto two = with_plan(base, 2), one = with_plan(base, 1);
  ASSERT_TRUE(perf::validate(two).empty()) << perf::validate(two).front().message;
  const double latent = 27 * (512 + 64) * 2.0;
  const auto m = route_map(kv_reshard_routes(two, two));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ((m.at({0, 0})), latent);
  EXPECT_DOUBLE_EQ((m.at({1, 1})), latent);
  const auto gather = route_map(kv_reshard_routes(two, one));
  ASSERT_EQ(gather.size(), 1u);  // one copy needed, taken from the first holder
  EXPECT_DOUBLE_EQ((gather.at({0, 0})), latent);
}

TEST(KvReshard, RefusesDifferentModelsOrKvPrecision) {
  const auto p = with_plan(llama70b_h100_tp2(), 2);
  auto other = p;
  other.workload.numerics.kv_cache = Precision::bf16;
  EXPECT_THROW(kv_reshard_routes(p, other), std::invalid_argument);
  other = p;
  other.model = io::builtin_presets().model("llama-3-8b");
  EXPECT_THROW(kv_reshard_routes(p, other), std::invalid_argument);
}

TEST(ServingCluster, PoolsOfTheirOwnPlanReshardOverTheNetwork) {
  // 2 prefill TP2 replicas (devices 0-1, 2-3) + 1 decode TP4 replica (devices 4-7) on 8 H100s.
  const perf::Design d = llama70b_h100_tp2();
  Pool prefill{with_plan(d, 2), SchedulerConfig{}, 2};
  Pool decode{with_plan(d, 4), SchedulerConfig{}, 1};
  prefill.design.system = decode.design.system = d.system;
  decode.scheduler.max_num_seqs = 512;
  const auto dis = disaggregated_instances(prefill, decode);
  ASSERT_EQ(dis.instances.size(), 3u);
  EXPECT_EQ(dis.instances[0].devices, 2);
  EXPECT_EQ(dis.instances[2].devices, 4);
  EXPECT_EQ(dis.instances[2].role, Role::decode);
  EXPECT_EQ(dis.instances[2].scheduler.max_num_seqs, 512);
  EXPECT_EQ(dis.instances[0].scheduler.max_num_seqs, 256);
  // The decode replica's KV cache is its own plan's (4 devices' memory after TP4 weights).
  perf::IterationModel tp4(with_plan(d, 4));
  EXPECT_EQ(dis.instances[2].kv_blocks,
            static_cast<long long>(tp4.kv_capacity_tokens(8192) / 16));
  // Prefill instance 1 (devices 2, 3) -> decode (4-7): device 2 sends heads 0-3 to devices 4, 5,
  // device 3 heads 4-7 to 6, 7; a device's messages serialise, so the transfer takes device 2's
  // (or 3's) two messages back to back.
  const double tokens = 1000;
  const double bytes = tokens * dis.instances[1].kv_bytes_per_token;
  network::NetworkModel net(d.system);
  const auto p2p = [&](int a, int b) {
    const int ranks[2] = {a, b};
    network::CollectiveRequest r;
    r.op = network::Collective::point_to_point;
    r.bytes = tokens * kLlama70bFp8KvPerToken / 4;
    r.ranks = ranks;
    return net.cost(r);
  };
  const double expected =
      std::max(p2p(2, 4).time_s + p2p(2, 5).time_s, p2p(3, 6).time_s + p2p(3, 7).time_s);
  const KvTransfer t = dis.transfer(1, 2, bytes, 0.0);
  EXPECT_DOUBLE_EQ(t.time_s, expected);
  EXPECT_DOUBLE_EQ(t.bytes, tokens * kLlama70bFp8KvPerToken);
  EXPECT_DOUBLE_EQ(t.energy_J, 2 * (p2p(2, 4).energy_J + p2p(2, 5).energy_J +
                                    p2p(3, 6).energy_J + p2p(3, 7).energy_J));
  // 2 x 2 + 2 x 4 = 12 devices do not fit 8.
  decode.count = 2;
  EXPECT_THROW(disaggregated_instances(prefill, decode), std::invalid_argument);
}

TEST(ServingCluster, DeployBuildsEachPoolFromItsConfig) {
  const perf::Design d = llama70b_h100_tp2();
  ServingSpec spec;
  spec.disaggregate.prefill = 2;
  spec.disaggregate.decode = 1;
  spec.disaggregate.decode_pool.tp = 4;
  spec.disaggregate.decode_pool.max_num_seqs = 512;
  spec.disaggregate.prefill_pool.max_num_batched_tokens = 16384;
  ASSERT_TRUE(validate(spec).empty());
  const auto dep = deploy(d, spec);
  EXPECT_EQ(dep.layout, "2 prefill (tp2) + 1 decode (tp4)");
  ASSERT_EQ(dep.instances.size(), 3u);
  EXPECT_EQ(dep.instances[0].scheduler.max_num_batched_tokens, 16384);
  EXPECT_EQ(dep.instances[0].scheduler.max_num_seqs, 256);
  EXPECT_EQ(dep.instances[2].devices, 4);
  EXPECT_EQ(dep.instances[2].scheduler.max_num_seqs, 512);
  EXPECT_EQ(dep.instances[2].scheduler.max_num_batched_tokens, 8192);
  // A pool whose plan the model cannot take names its pool and perf::validate's reason.
  spec.disaggregate.decode_pool.tp = 3;
  try {
    (void)deploy(d, spec);
    ADD_FAILURE() << "tp 3 of 64 heads accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/serving/disaggregate/decode_pool"), std::string::npos) << what;
    EXPECT_NE(what.find("/parallel/tp"), std::string::npos) << what;
  }
  // Out-of-range pool fields are validate()'s, at their paths.
  spec.disaggregate.decode_pool.tp = -1;
  spec.disaggregate.prefill_pool.max_num_seqs = (1 << 20) + 1;
  const auto issues = validate(spec);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].path, "/serving/disaggregate/prefill_pool/max_num_seqs");
  EXPECT_EQ(issues[1].path, "/serving/disaggregate/decode_pool/tp");
}

// Co-located instances of different plans behind one router: 2 x TP2 + 1 x TP4 replicas of
// Llama-3-70B FP8 on the 8 H100s.
TEST(ServingCluster, DeployPlacesInstanceGroupsOfTheirOwnPlans) {
  const perf::Design d = llama70b_h100_tp2();
  ServingSpec spec;
  PoolConfig tp4;
  tp4.tp = 4;
  tp4.max_num_seqs = 128;
  spec.instance_groups = {{2, {}}, {1, tp4}};
  ASSERT_TRUE(validate(spec).empty());
  const auto dep = deploy(d, spec);
  EXPECT_EQ(dep.layout, "2 (tp2) + 1 (tp4) co-located");
  ASSERT_EQ(dep.instances.size(), 3u);
  ASSERT_EQ(dep.pools.size(), 2u);
  EXPECT_EQ(dep.pools[0].first, 0u);
  EXPECT_EQ(dep.pools[0].count, 2);
  EXPECT_EQ(dep.pools[0].plan, "tp2");
  EXPECT_EQ(dep.pools[1].first, 2u);
  EXPECT_EQ(dep.pools[1].plan, "tp4");
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(dep.instances[i].name, "instance " + std::to_string(i));
    EXPECT_EQ(dep.instances[i].role, Role::colocated);
  }
  EXPECT_EQ(dep.instances[0].devices, 2);
  EXPECT_EQ(dep.instances[2].devices, 4);
  EXPECT_EQ(dep.instances[0].scheduler.max_num_seqs, 256);
  EXPECT_EQ(dep.instances[2].scheduler.max_num_seqs, 128);
  EXPECT_FALSE(dep.options.kv_transfer);
  // The TP4 replica holds its 70.6 GB of FP8 weights on 4 x 80 GB instead of 2 x 80 GB: more
  // than twice the TP2 replica's KV blocks (the weights' share of its memory halves), and its
  // decode step at the same batch is faster (each device streams half the weights).
  EXPECT_GT(dep.instances[2].kv_blocks, 2 * dep.instances[0].kv_blocks);
  std::vector<perf::SequenceChunk> decodes(32, perf::SequenceChunk{1, 1024});
  EXPECT_LT(dep.instances[2].cost(decodes).time_s, 0.75 * dep.instances[0].cost(decodes).time_s);
  // One router over all three: every request finishes once, on one of them.
  std::vector<Request> reqs = benchmark(60, 512, 32);
  const auto r = simulate(reqs, deploy(d, spec).instances, dep.options);
  EXPECT_EQ(r.completed, 60u);
  std::size_t served = 0;
  for (const auto& s : r.instances) {
    EXPECT_GT(s.requests, 0u) << s.name;
    served += s.requests;
  }
  EXPECT_EQ(served, 60u);

  // Groups that need more devices than the system has: 2 x 2 + 1 x 8 = 12 > 8.
  spec.instance_groups[1].pool.tp = 8;
  try {
    (void)deploy(d, spec);
    ADD_FAILURE() << "12 devices on 8 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("need 12 devices; the system has 8"), std::string::npos)
        << e.what();
  }
  // ...checked before any instance is built: 65,536 TP2 replicas fail at once.
  try {
    ServingSpec huge;
    huge.instance_groups = {{65'536, {}}};
    (void)deploy(d, huge);
    ADD_FAILURE() << "131,072 devices on 8 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("need 131072 devices"), std::string::npos) << e.what();
  }
  // A group whose plan the model cannot take names its group.
  spec.instance_groups[1].pool.tp = 3;
  try {
    (void)deploy(d, spec);
    ADD_FAILURE() << "tp 3 of 64 heads accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/serving/instance_groups/1: the group's plan tp3"), std::string::npos)
        << what;
    EXPECT_NE(what.find("/parallel/tp"), std::string::npos) << what;
  }
  // validate(): a count out of range, groups beside instances or disaggregation.
  spec.instance_groups[1].pool.tp = 4;
  spec.instance_groups[0].count = 0;
  spec.instances = 2;
  spec.disaggregate.prefill = 1;
  spec.disaggregate.decode = 1;
  const auto issues = validate(spec);
  std::vector<std::string> paths;
  for (const auto& i : issues) paths.push_back(i.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/serving/instances", "/serving/instance_groups",
                                             "/serving/instance_groups/0/count"}));
}

TEST(ServingSpec, InstanceGroupTextRoundTripsAndNamesItsErrors) {
  const auto g = parse_instance_groups("2:tp=2+1:tp=4,max-seqs=128,max-tokens=16384+3", "--g");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].count, 2);
  EXPECT_EQ(g[0].pool.tp, 2);
  EXPECT_EQ(g[1].pool.tp, 4);
  EXPECT_EQ(g[1].pool.max_num_seqs, 128);
  EXPECT_EQ(g[1].pool.max_num_batched_tokens, 16384);
  EXPECT_EQ(g[2].count, 3);
  EXPECT_EQ(g[2].pool, PoolConfig{});
  EXPECT_EQ(instance_groups_text(g), "2:tp=2+1:tp=4,max-seqs=128,max-tokens=16384+3");
  EXPECT_EQ(pool_text(parse_pool_text("pp=2,cp=2,ep=4", "--p")), "pp=2,ep=4,cp=2");
  EXPECT_EQ(parse_pool_text("", "--p"), PoolConfig{});
  for (const char* bad : {"", "0", "2:", "2+", "x:tp=2", "2:tp=x", "2:tp=-1", "2:dp=2", "2:tp",
                          "70000", "2:max-seqs=2000000", "1:tp=2,tp=4", "1:max-seqs=8,max-seqs=8"}) {
    try {
      (void)parse_instance_groups(bad, "--instance-groups");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ConfigError& e) {
      ASSERT_EQ(e.issues().size(), 1u) << bad;
      EXPECT_EQ(e.issues()[0].path, "--instance-groups") << bad;
      EXPECT_FALSE(e.issues()[0].allowed.empty()) << bad;
    }
  }
  // A key given twice is named (not "the last one wins").
  try {
    (void)parse_pool_text("tp=2,pp=2,tp=4", "--prefill-pool");
    ADD_FAILURE() << "a repeated key was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(e.issues()[0].message.find("key 'tp' given more than once"), std::string::npos);
  }
}

// The model's context (workload::Model::max_context_tokens, Llama 3 70B: 8192 tokens) is the
// default max_model_len of every instance and its upper bound; a stream that can only draw
// longer requests is refused up front, a trace's longer requests are rejected with the reason.
TEST(ServingContext, TheModelsContextBoundsEveryRequest) {
  const auto& r = io::builtin_presets();
  perf::Design d = r.project("llama-3-70b-h100-serving");
  ASSERT_EQ(d.model.max_context_tokens, 8192);
  const auto inst = colocated_instances(serving::pool_design(d, {}), SchedulerConfig{}, 1);
  EXPECT_EQ(inst.front().scheduler.max_model_len, 8192);
  SchedulerConfig over;
  over.max_model_len = 9000;
  EXPECT_THROW(colocated_instances(serving::pool_design(d, {}), over, 1), std::invalid_argument);
  over.max_model_len = 4096;  // a tighter limit of the user's stays
  EXPECT_EQ(colocated_instances(serving::pool_design(d, {}), over, 1).front().scheduler.max_model_len,
            4096);

  ServingSpec s;
  s.source = SourceKind::benchmark;
  s.input = ServingSpec::fixed_length(8000);
  s.output = ServingSpec::fixed_length(192);
  EXPECT_TRUE(check_context(s, d.model).empty());  // 8192 exactly
  s.output = ServingSpec::fixed_length(193);
  const auto issues = check_context(s, d.model);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "/serving/input_len");
  EXPECT_NE(issues[0].message.find("8193 tokens, over the context of llama-3-70b (8192"),
            std::string::npos);
  s.source = SourceKind::generated;
  s.input = parse_length_dist("lognormal:8000:0.5", "in");  // some fit: rejected one by one
  EXPECT_TRUE(check_context(s, d.model).empty());
  s.input = parse_length_dist("uniform:9000:10000", "in");
  EXPECT_EQ(check_context(s, d.model).size(), 1u);

  // Three requests, the second over the context: it alone is rejected, with its reason.
  const std::vector<Request> reqs = {{0, 0, 100, 10}, {1, 0.1, 20000, 10}, {2, 0.2, 100, 10}};
  const auto result = simulate(reqs, colocated_instances(serving::pool_design(d, {}), {}, 1), {});
  EXPECT_EQ(result.completed, 2u);
  EXPECT_EQ(result.rejected, 1u);
  EXPECT_EQ(result.requests[1].rejected, Rejection::over_max_model_len);
}

}  // namespace
}  // namespace stackscope::serving
