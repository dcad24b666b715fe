// SPDX-License-Identifier: GPL-3.0-or-later
// The serving simulator (core/serving/simulator.hpp) against queueing theory and its own
// invariants, with cost functions written here so every expected value
// is known in closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "stackscope/serving/simulator.hpp"

namespace stackscope::serving {
namespace {

// time = fixed + per_token x tokens; energy 1 J per token.
CostFn linear_cost(double fixed_s, double per_token_s) {
  return [=](std::span<const perf::SequenceChunk> batch) {
    double tokens = 0;
    for (const auto& c : batch) tokens += c.new_tokens;
    return perf::IterationCost{fixed_s + per_token_s * tokens, tokens};
  };
}

InstanceConfig instance(CostFn cost, long long kv_blocks = 1 << 20, int max_seqs = 256,
                        int budget = 8192) {
  InstanceConfig c;
  c.name = "i";
  c.cost = std::move(cost);
  c.kv_blocks = kv_blocks;
  c.scheduler.max_num_seqs = max_seqs;
  c.scheduler.max_num_batched_tokens = budget;
  return c;
}

// Poisson arrivals written out here (exponential gaps by inversion) so the test does not rest
// on the generator it may be used to check.
std::vector<Request> poisson(std::size_t n, double rate, int input, int output,
                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Request> r(n);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    t += -std::log(u) / rate;
    r[i] = {i, t, input, output};
  }
  return r;
}

// M/D/1: one sequence at a time (max_num_seqs 1), one iteration of fixed length D per request
// (one output token, which prefill produces), Poisson arrivals at rate lambda. Mean wait
// (Pollaczek-Khinchine, deterministic service): Wq = rho D / (2 (1 - rho)), rho = lambda D.
TEST(ServingSimulator, MD1MeanWaitMatchesPollaczekKhinchine) {
  const double D = 0.010;
  for (const double rho : {0.5, 0.8}) {
    const double lambda = rho / D;
    const auto reqs = poisson(200000, lambda, 16, 1, 7);
    SimOptions opt;
    const SimResult r = simulate(reqs, {instance(linear_cost(D, 0.0), 1 << 20, 1)}, opt);
    ASSERT_EQ(r.completed, reqs.size());
    const double expected = rho * D / (2 * (1 - rho));
    // Tolerance: 200k arrivals give the mean wait to ~2 % at rho 0.8 (the waits are strongly
    // correlated at high load); 4 % leaves room.
    EXPECT_NEAR(r.queue.mean / expected, 1.0, 0.04) << "rho " << rho;
    // Every request is served for exactly D once scheduled.
    EXPECT_NEAR(r.e2e.mean - r.queue.mean, D, 1e-9);
  }
}

// Little's law on the whole system: the time-average number of requests in the system, from a
// sweep of the arrival and finish events, equals throughput x mean time in system.
TEST(ServingSimulator, LittlesLawAndCausality) {
  const auto reqs = poisson(20000, 40, 200, 50, 3);
  const SimResult r = simulate(reqs, {instance(linear_cost(0.004, 2e-5), 40000, 32, 2048)}, {});
  ASSERT_EQ(r.completed, reqs.size());
  std::vector<std::pair<double, int>> ev;
  for (const auto& q : r.requests) {
    ASSERT_LE(q.arrival_s, q.first_scheduled_s);
    ASSERT_LT(q.first_scheduled_s, q.first_token_s);
    ASSERT_LE(q.first_token_s, q.finish_s);
    ev.push_back({q.arrival_s, +1});
    ev.push_back({q.finish_s, -1});
  }
  std::sort(ev.begin(), ev.end());
  double area = 0, t = ev.front().first;
  int n = 0;
  for (const auto& [time, d] : ev) {
    area += n * (time - t);
    t = time;
    n += d;
  }
  const double L = area / (ev.back().first - ev.front().first);
  const double lambda = static_cast<double>(r.completed) / (ev.back().first - ev.front().first);
  EXPECT_NEAR(L / (lambda * r.e2e.mean), 1.0, 1e-9);
}

TEST(ServingSimulator, ConservesRequestsAndTokens) {
  auto reqs = poisson(5000, 400, 300, 1, 11);
  std::mt19937 rng(5);
  for (auto& q : reqs) q.output_tokens = 1 + static_cast<int>(rng() % 200);
  // A cache small enough to preempt.
  const SimResult r = simulate(reqs, {instance(linear_cost(0.003, 1e-5), 600, 64, 1024)}, {});
  ASSERT_EQ(r.completed + r.rejected, reqs.size());
  EXPECT_EQ(r.rejected, 0u);
  std::uint64_t gaps = 0, preemptions = 0;
  for (const auto& q : r.requests) {
    EXPECT_TRUE(q.done());
    gaps += static_cast<std::uint64_t>(q.output_tokens - 1);
    preemptions += static_cast<std::uint64_t>(q.preemptions);
  }
  EXPECT_EQ(r.itl.count, gaps);  // every generated token after the first, exactly once
  EXPECT_GT(preemptions, 0u);
  EXPECT_EQ(preemptions, r.instances[0].preemptions);
  // Energy: 1 J per computed token; recompute after preemption computes more tokens than
  // asked, never fewer.
  double asked = 0;
  for (const auto& q : reqs) asked += q.input_tokens + q.output_tokens - 1;
  EXPECT_GE(r.instances[0].energy_J, asked - 1e-6);
}

// Two 4-token prompts generating 4 tokens each with 1-token blocks: the cache holds both
// prompts (8 of 10 blocks) and one decode step each (10 of 10); the next step needs 2 more
// blocks, so the later request is preempted there — and with 16 blocks nothing is.
TEST(ServingSimulator, PreemptsExactlyWhenBlocksRunOut) {
  const std::vector<Request> reqs = {{0, 0.0, 4, 4}, {1, 0.0, 4, 4}};
  auto run = [&](long long blocks) {
    InstanceConfig c = instance(linear_cost(1.0, 0.0), blocks);
    c.scheduler.block_size = 1;
    return simulate(reqs, {c}, {});
  };
  const SimResult tight = run(10), roomy = run(16), exact = run(14);
  EXPECT_EQ(roomy.requests[0].preemptions + roomy.requests[1].preemptions, 0);
  // 4 + 4 prompt tokens, then each decode step adds one token per sequence: 14 blocks hold
  // both to the end (each needs 4 + 3 = 7: the last token is never written back).
  EXPECT_EQ(exact.requests[0].preemptions + exact.requests[1].preemptions, 0);
  EXPECT_EQ(tight.requests[0].preemptions, 0);
  EXPECT_GE(tight.requests[1].preemptions, 1);
  EXPECT_EQ(tight.completed, 2u);
  // Iterations of 1 s: together they finish at t = 4 (prefill + 3 decode steps).
  EXPECT_DOUBLE_EQ(roomy.requests[1].finish_s, 4.0);
  EXPECT_GT(tight.requests[1].finish_s, 4.0);
  // Without preemption request 0 is unaffected.
  EXPECT_DOUBLE_EQ(tight.requests[0].finish_s, 4.0);
}

TEST(ServingSimulator, SimultaneousArrivalsShareTheFirstIteration) {
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 64; ++i) reqs.push_back({i, 0.0, 100, 10});
  const SimResult r = simulate(reqs, {instance(linear_cost(0.01, 1e-5))}, {});
  for (const auto& q : r.requests) EXPECT_DOUBLE_EQ(q.first_scheduled_s, 0.0);
  // 64 x 100 prompt tokens fit the 8192 budget: one prefill iteration, then 9 decode steps.
  EXPECT_EQ(r.iterations, 10u);
}

// The front end's time per request (SimOptions::request_latency_s): each request reaches the
// engine that much after it was sent, so its TTFT, E2E and queueing grow by exactly it and its
// TPOT not at all; in a closed loop of one, every request is sent when the last finished and
// the makespan grows by the latency per request.
TEST(ServingSimulator, RequestLatencyAddsToTtftNotTpot) {
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 4; ++i) reqs.push_back({i, 0.0, 100, 10});
  SimOptions none;
  none.concurrency = 1;
  SimOptions slow = none;
  slow.request_latency_s = 0.05;
  const SimResult a = simulate(reqs, {instance(linear_cost(0.01, 1e-5))}, none);
  const SimResult b = simulate(reqs, {instance(linear_cost(0.01, 1e-5))}, slow);
  ASSERT_EQ(a.completed, 4u);
  ASSERT_EQ(b.completed, 4u);
  EXPECT_NEAR(b.ttft.mean - a.ttft.mean, 0.05, 1e-12);
  EXPECT_NEAR(b.e2e.mean - a.e2e.mean, 0.05, 1e-12);
  EXPECT_NEAR(b.tpot.mean, a.tpot.mean, 1e-12);
  EXPECT_NEAR(b.makespan_s - a.makespan_s, 4 * 0.05, 1e-9);
  SimOptions bad;
  bad.request_latency_s = -1;
  EXPECT_THROW(simulate(reqs, {instance(linear_cost(0.01, 1e-5))}, bad), std::invalid_argument);
}

// SGLang's scheduling (mixed_batches off): a request arriving while another decodes is
// prefilled in an iteration of its own, which the decode waits for; mixed (vLLM) the two share
// the next iteration. The decoding request finishes one iteration (0.01 s + its tokens) later,
// the arriving one gets its first token no later, and as many iterations run (the arriving
// request's last decode ends the run either way).
TEST(ServingSimulator, UnmixedBatchesRunPrefillAloneAndFirst) {
  const std::vector<Request> reqs{{0, 0.0, 100, 10}, {1, 0.015, 100, 10}};
  InstanceConfig mixed = instance(linear_cost(0.01, 1e-5));
  InstanceConfig alone = mixed;
  alone.scheduler.mixed_batches = false;
  const SimResult a = simulate(reqs, {mixed}, {});
  const SimResult b = simulate(reqs, {alone}, {});
  ASSERT_EQ(a.completed, 2u);
  ASSERT_EQ(b.completed, 2u);
  EXPECT_EQ(b.iterations, a.iterations);
  EXPECT_GT(b.requests[0].finish_s, a.requests[0].finish_s + 0.009);
  EXPECT_LE(b.requests[1].first_token_s, a.requests[1].first_token_s + 1e-12);
  // Every output token is still produced once.
  EXPECT_EQ(b.requests[0].output_tokens, 10);
  EXPECT_EQ(b.requests[1].output_tokens, 10);
}

// The overlap scheduler (TensorRT-LLM's overlapped executor loop, SGLang's overlap schedule):
// iteration n+1 is formed when n starts, so a request that arrives while n runs waits for n and
// n+1 and is first computed in n+2. Fixed 10 ms iterations: A arrives at 0 and is prefilled in
// [0, 0.01); B arrives at 0.005. Without overlap B runs in [0.01, 0.02) (TTFT 15 ms); with it
// the batch of [0.01, 0.02) was formed at 0, so B runs in [0.02, 0.03) (TTFT 25 ms).
TEST(ServingSimulator, OverlapSchedulerAdmitsArrivalsOneIterationLater) {
  const std::vector<Request> reqs{{0, 0.0, 100, 10}, {1, 0.005, 100, 10}};
  InstanceConfig sync = instance(linear_cost(0.01, 0.0));
  InstanceConfig overlap = sync;
  overlap.scheduler.overlap_scheduler = true;
  const SimResult a = simulate(reqs, {sync}, {});
  const SimResult b = simulate(reqs, {overlap}, {});
  ASSERT_EQ(a.completed, 2u);
  ASSERT_EQ(b.completed, 2u);
  EXPECT_NEAR(a.requests[1].ttft_s(), 0.015, 1e-12);
  EXPECT_NEAR(b.requests[1].ttft_s(), 0.025, 1e-12);
  // A, which found the instance idle, is scheduled at once either way.
  EXPECT_NEAR(b.requests[0].ttft_s(), 0.010, 1e-12);
  // Tokens still come one per iteration once running.
  EXPECT_NEAR(b.requests[1].tpot_s(), 0.010, 1e-12);
}

// A sequence that ends in iteration n holds its slot (and blocks) through n+1, which decodes
// one discarded token for it. One slot, closed loop of one, two requests of 10 in / 2 out and
// fixed 10 ms iterations: synchronously A is [0, 0.02), B is released at 0.02 and runs
// [0.02, 0.04); with overlap the iteration [0.02, 0.03) is A's discarded decode (formed before
// A's end was known), B reaches the engine after that batch was formed and runs [0.03, 0.05).
TEST(ServingSimulator, OverlapSchedulerHoldsAnEndedSequenceForOneIteration) {
  std::vector<std::size_t> chunks;
  CostFn cost = [&](std::span<const perf::SequenceChunk> batch) {
    chunks.push_back(batch.size());
    return perf::IterationCost{0.01, 0};
  };
  const std::vector<Request> reqs{{0, 0.0, 10, 2}, {1, 0.0, 10, 2}};
  SimOptions opt;
  opt.concurrency = 1;
  InstanceConfig sync = instance(cost, 1 << 20, 1);
  const SimResult a = simulate(reqs, {sync}, opt);
  const std::size_t sync_iterations = chunks.size();
  chunks.clear();
  InstanceConfig overlap = sync;
  overlap.scheduler.overlap_scheduler = true;
  const SimResult b = simulate(reqs, {overlap}, opt);
  ASSERT_EQ(a.completed, 2u);
  ASSERT_EQ(b.completed, 2u);
  EXPECT_EQ(sync_iterations, 4u);
  ASSERT_EQ(chunks.size(), 6u);  // A's discarded decode after each request's end
  EXPECT_EQ(chunks[2], 1u);      // the slot's one sequence: A, decoding nothing it keeps
  EXPECT_NEAR(a.requests[0].finish_s, 0.02, 1e-12);
  EXPECT_NEAR(b.requests[0].finish_s, 0.02, 1e-12);  // the client still sees A end at 0.02
  EXPECT_NEAR(a.requests[1].ttft_s(), 0.01, 1e-12);
  EXPECT_NEAR(b.requests[1].ttft_s(), 0.02, 1e-12);
  EXPECT_NEAR(b.requests[1].finish_s, 0.05, 1e-12);
  EXPECT_EQ(b.requests[1].output_tokens, 2);
}

// CUDA-graph padding: a decode-only iteration of n sequences is costed at the next listed batch
// size (dummy decodes of one cached token that emit nothing the requests see); an iteration
// with a prefill chunk is not padded, nor is a batch above the largest size.
TEST(ServingSimulator, DecodeOnlyIterationsArePaddedToTheNextGraphSize) {
  std::vector<std::size_t> sizes;  // chunks each iteration was costed with
  std::vector<bool> decode_only;
  CostFn cost = [&](std::span<const perf::SequenceChunk> batch) {
    sizes.push_back(batch.size());
    decode_only.push_back(std::all_of(batch.begin(), batch.end(), [](const auto& c) {
      return c.new_tokens == 1 && c.context > 0;
    }));
    return perf::IterationCost{0.01, 0};
  };
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 5; ++i) reqs.push_back({i, 0.0, 100, 4});
  InstanceConfig c = instance(cost);
  c.scheduler.cuda_graph_batch_sizes = {1, 2, 4, 8};
  const SimResult r = simulate(reqs, {c}, {});
  // One prefill iteration of 5 prompts (unpadded), then 3 decode steps of 5 sequences -> 8.
  ASSERT_EQ(sizes.size(), 4u);
  EXPECT_EQ(sizes[0], 5u);
  EXPECT_FALSE(decode_only[0]);
  for (std::size_t k = 1; k < 4; ++k) {
    EXPECT_EQ(sizes[k], 8u);
    EXPECT_TRUE(decode_only[k]);
  }
  // The padding produced nothing: 5 x 4 tokens over the 4 iterations' 0.04 s.
  EXPECT_EQ(r.completed, 5u);
  EXPECT_NEAR(r.makespan_s, 0.04, 1e-12);
  EXPECT_NEAR(r.output_tokens_per_s * r.makespan_s, 20.0, 1e-9);
  EXPECT_EQ(graph_padded_batch(c.scheduler, 5), 8);
  EXPECT_EQ(graph_padded_batch(c.scheduler, 8), 8);
  EXPECT_EQ(graph_padded_batch(c.scheduler, 9), 9);  // above the largest graph: eager
  c.scheduler.cuda_graph_batch_sizes = {4, 2};
  EXPECT_THROW(simulate(reqs, {c}, {}), std::invalid_argument);
}

// The progress callback (the CLI's TTY line) sees finished requests grow to at most the total and
// simulated time never run backwards; it does not change the result.
TEST(ServingSimulator, ReportsProgressWithoutChangingTheResult) {
  const auto reqs = poisson(5000, 50.0, 64, 8, 7);
  const InstanceConfig c = instance(linear_cost(0.002, 1e-6));
  SimOptions opt;
  std::size_t calls = 0, last_done = 0;
  double last_t = 0;
  bool ordered = true;
  opt.progress = [&](std::size_t done, std::size_t total, double t) {
    ++calls;
    ordered = ordered && done >= last_done && done <= total && total == 5000 && t >= last_t;
    last_done = done;
    last_t = t;
  };
  const SimResult with = simulate(reqs, {c}, opt);
  const SimResult without = simulate(reqs, {c}, {});
  EXPECT_GT(calls, 0u);
  EXPECT_TRUE(ordered);
  EXPECT_GT(last_done, 0u);
  EXPECT_EQ(with.completed, without.completed);
  EXPECT_DOUBLE_EQ(with.makespan_s, without.makespan_s);
}

TEST(ServingSimulator, ChunkedPrefillSplitsAPromptOverIterations) {
  const std::vector<Request> reqs = {{0, 0.0, 10000, 2}};
  InstanceConfig c = instance(linear_cost(1.0, 0.0), 1 << 20, 8, 2048);
  const SimResult chunked = simulate(reqs, {c}, {});
  EXPECT_DOUBLE_EQ(chunked.requests[0].first_token_s, 5.0);  // ceil(10000 / 2048) iterations
  c.scheduler.chunked_prefill = false;
  const SimResult whole = simulate(reqs, {c}, {});
  EXPECT_EQ(whole.requests[0].rejected, Rejection::prompt_over_budget);
  EXPECT_EQ(whole.rejected, 1u);
}

TEST(ServingSimulator, RejectsWhatCanNeverFit) {
  const std::vector<Request> reqs = {{0, 0.0, 100, 100}, {1, 0.1, 10, 10}};
  InstanceConfig c = instance(linear_cost(0.01, 0.0), 10);  // 10 blocks of 16 tokens
  const SimResult r = simulate(reqs, {c}, {});
  EXPECT_EQ(r.requests[0].rejected, Rejection::kv_capacity);
  EXPECT_TRUE(r.requests[1].done());
  c.scheduler.max_model_len = 15;
  EXPECT_EQ(simulate(reqs, {c}, {}).requests[1].rejected, Rejection::over_max_model_len);
}

// SLO attainment is over every request: 3 of 4 rejected, the one completed within the SLOs,
// is 25 %, not "100 % of requests". The rejections are counted per reason.
TEST(ServingSimulator, SloAttainmentCountsRejectedRequestsAsMisses) {
  const std::vector<Request> reqs = {
      {0, 0.0, 10, 2}, {1, 0.1, 400, 10}, {2, 0.2, 400, 10}, {3, 0.3, 30, 1}};
  InstanceConfig c = instance(linear_cost(0.01, 0.0), 10);  // 160 tokens of KV
  c.scheduler.max_model_len = 20;                             // request 3: 31 tokens
  SimOptions o;
  o.slo_ttft_s = 1;
  o.slo_tpot_s = 1;
  const SimResult r = simulate(reqs, {c}, o);
  ASSERT_EQ(r.completed, 1u);
  ASSERT_EQ(r.rejected, 3u);
  EXPECT_EQ(r.rejected_by[static_cast<std::size_t>(Rejection::kv_capacity)], 0u);
  // max_model_len is checked first: requests 1, 2 (410 tokens) and 3 (31) are over it.
  EXPECT_EQ(r.rejected_by[static_cast<std::size_t>(Rejection::over_max_model_len)], 3u);
  EXPECT_DOUBLE_EQ(r.slo_attainment, 0.25);
  EXPECT_EQ(rejection_text(r),
            "3 input + output over max_model_len (the model's context unless set)");
  c.scheduler.max_model_len = 0;
  const SimResult k = simulate(reqs, {c}, o);
  EXPECT_EQ(k.rejected_by[static_cast<std::size_t>(Rejection::kv_capacity)], 2u);
  EXPECT_DOUBLE_EQ(k.slo_attainment, 0.5);
  EXPECT_EQ(rejection_text(k), "2 needs more KV blocks than the instance holds");
  const std::vector<Request> first = {reqs.front()};
  EXPECT_EQ(rejection_text(simulate(first, {c}, o)), "");
}

TEST(ServingSimulator, ClosedLoopKeepsTheConcurrency) {
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 100; ++i) reqs.push_back({i, 0.0, 10, 5});
  SimOptions opt;
  opt.concurrency = 4;
  const SimResult r = simulate(reqs, {instance(linear_cost(1.0, 0.0))}, opt);
  ASSERT_EQ(r.completed, 100u);
  // Four at a time, each batch of four taking 5 iterations: 25 batches of 5 s.
  EXPECT_DOUBLE_EQ(r.makespan_s, 125.0);
  for (const auto& q : r.requests) EXPECT_DOUBLE_EQ(q.e2e_s(), 5.0);
}

TEST(ServingSimulator, SameInputSameResult) {
  const auto reqs = poisson(3000, 100, 500, 64, 9);
  auto run = [&] {
    return simulate(reqs,
                    {instance(linear_cost(0.005, 1e-5), 5000, 64, 2048),
                     instance(linear_cost(0.005, 1e-5), 5000, 64, 2048)},
                    {});
  };
  const SimResult a = run(), b = run();
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].finish_s, b.requests[i].finish_s);
    EXPECT_EQ(a.requests[i].instance, b.requests[i].instance);
  }
}

TEST(ServingSimulator, MoreInstancesNeverLowerGoodput) {
  const auto reqs = poisson(4000, 60, 800, 100, 13);
  SimOptions opt;
  opt.slo_ttft_s = 0.5;
  opt.slo_tpot_s = 0.05;
  double last = -1;
  for (int n = 1; n <= 4; ++n) {
    std::vector<InstanceConfig> inst;
    for (int i = 0; i < n; ++i) inst.push_back(instance(linear_cost(0.02, 2e-5), 20000, 64, 4096));
    for (const Router router : {Router::join_shortest_queue, Router::least_kv}) {
      opt.router = router;
      const SimResult r = simulate(reqs, inst, opt);
      if (router == Router::join_shortest_queue) {
        EXPECT_GE(r.slo_attainment, last - 1e-12) << n << " instances";
        last = r.slo_attainment;
      }
      EXPECT_EQ(r.completed, reqs.size());
    }
  }
  EXPECT_GT(last, 0.9);
}

// Disaggregation: 1 prefill + 1 decode instance, iterations of 1 s, a transfer of 1 ns per
// byte at 1000 bytes per token. A 1000-token prompt: its first token at t = 1 (prefill), its KV
// (10^6 bytes) on the decode instance at 1 + 1e-3, then 2 decode steps: done at 3.001.
TEST(ServingSimulator, DisaggregatedRequestWaitsForItsKvTransfer) {
  InstanceConfig p = instance(linear_cost(1.0, 0.0)), d = instance(linear_cost(1.0, 0.0));
  p.role = Role::prefill;
  d.role = Role::decode;
  p.kv_bytes_per_token = d.kv_bytes_per_token = 1000;
  SimOptions opt;
  opt.kv_transfer = [](int from, int to, double bytes, double) {
    EXPECT_EQ(from, 0);
    EXPECT_EQ(to, 1);
    return KvTransfer{bytes * 1e-9, bytes * 1e-12};
  };
  const std::vector<Request> one = {{0, 0.0, 1000, 3}};
  const SimResult r = simulate(one, {p, d}, opt);
  ASSERT_TRUE(r.requests[0].done());
  EXPECT_DOUBLE_EQ(r.requests[0].first_token_s, 1.0);
  EXPECT_DOUBLE_EQ(r.requests[0].finish_s, 3.001);
  EXPECT_EQ(r.requests[0].instance, 1);
  EXPECT_EQ(r.kv_transfers, 1u);
  EXPECT_DOUBLE_EQ(r.kv_transfer_bytes, 1e6);
  EXPECT_NEAR(r.kv_transfer_s.mean, 1e-3, 1e-15);
  EXPECT_EQ(r.instances[0].iterations, 1u);  // prefill only
  EXPECT_EQ(r.instances[1].iterations, 2u);  // decodes only
  // Two prompts prefilled together hand off at once: the second transfer queues behind the
  // first on the decode instance's ingress.
  const std::vector<Request> two = {{0, 0.0, 1000, 3}, {1, 0.0, 1000, 3}};
  const SimResult q = simulate(two, {p, d}, opt);
  EXPECT_NEAR(q.kv_transfer_s.max, 2e-3, 1e-15);
  EXPECT_EQ(q.completed, 2u);
  // A single-token request never leaves the prefill instance.
  const SimResult s1 = simulate(std::vector<Request>{{0, 0.0, 1000, 1}}, {p, d}, opt);
  EXPECT_EQ(s1.kv_transfers, 0u);
  EXPECT_TRUE(s1.requests[0].done());
}

// A transfer also holds its prefill instance's egress: two prompts prefilled together and sent
// to two decode instances (round-robin) leave one after the other, so the second takes 2 ms.
// Each instance draws its idle power whenever it runs no iteration: with 100 W idle, the
// prefill instance (busy 1 s of the 3.002 s makespan) adds 100 x 2.002 J.
TEST(ServingSimulator, TransfersShareTheSourcesLinksAndIdleInstancesDrawPower) {
  InstanceConfig p = instance(linear_cost(1.0, 0.0)), d = instance(linear_cost(1.0, 0.0));
  p.role = Role::prefill;
  d.role = Role::decode;
  p.kv_bytes_per_token = d.kv_bytes_per_token = 1000;
  p.idle_power_W = d.idle_power_W = 100;
  SimOptions opt;
  opt.router = Router::round_robin;
  opt.kv_transfer = [](int, int, double bytes, double) { return KvTransfer{bytes * 1e-9, 0.0}; };
  const std::vector<Request> two = {{0, 0.0, 1000, 3}, {1, 0.0, 1000, 3}};
  const SimResult q = simulate(two, {p, d, d}, opt);
  ASSERT_EQ(q.completed, 2u);
  EXPECT_EQ(q.requests[0].instance, 1);
  EXPECT_EQ(q.requests[1].instance, 2);
  EXPECT_NEAR(q.kv_transfer_s.max, 2e-3, 1e-15);
  EXPECT_NEAR(q.makespan_s, 3.002, 1e-12);
  EXPECT_NEAR(q.instances[0].busy_s, 1.0, 1e-12);
  EXPECT_NEAR(q.instances[0].idle_energy_J, 100 * 2.002, 1e-9);
  // The iterations' own energy (linear_cost: 1 J per token, 2000 prompt tokens) plus idle.
  EXPECT_NEAR(q.instances[0].energy_J, 2000 + 100 * 2.002, 1e-9);
  // Decode instance 2 is busy 2 s (two steps of 1 s).
  EXPECT_NEAR(q.instances[2].idle_energy_J, 100 * (3.002 - 2.0), 1e-9);
}

// A transfer holds each end only as long as that end's NICs work: two prefill instances that
// hand off at once into one decode instance, each sending for 1 ms into an ingress that is busy
// 0.25 ms per transfer (a 4-device decode instance receives on four NICs), overlap on the
// senders and queue only for the receiver's 0.25 ms: the second is ready at 1.25 ms, where
// holding the receiver for the whole transfer would give 2 ms.
TEST(ServingSimulator, TransfersHoldEachEndForItsOwnTime) {
  InstanceConfig p = instance(linear_cost(1.0, 0.0)), d = instance(linear_cost(1.0, 0.0));
  p.role = Role::prefill;
  d.role = Role::decode;
  p.kv_bytes_per_token = d.kv_bytes_per_token = 1000;
  SimOptions opt;
  opt.router = Router::round_robin;
  const std::vector<Request> two = {{0, 0.0, 1000, 3}, {1, 0.0, 1000, 3}};
  opt.kv_transfer = [](int, int, double, double) {
    KvTransfer t;
    t.time_s = 1e-3;
    t.egress_s = 1e-3;
    t.ingress_s = 0.25e-3;
    return t;
  };
  const SimResult q = simulate(two, {p, p, d}, opt);
  ASSERT_EQ(q.completed, 2u);
  EXPECT_EQ(q.requests[0].instance, 2);
  EXPECT_EQ(q.requests[1].instance, 2);
  EXPECT_NEAR(q.kv_transfer_s.mean, (1e-3 + 1.25e-3) / 2, 1e-15);
  EXPECT_NEAR(q.kv_transfer_s.max, 1.25e-3, 1e-15);
  // Unset ends hold their link for the whole transfer.
  opt.kv_transfer = [](int, int, double, double) { return KvTransfer{1e-3, 0.0}; };
  EXPECT_NEAR(simulate(two, {p, p, d}, opt).kv_transfer_s.max, 2e-3, 1e-15);
}

TEST(ServingSimulator, DisaggregationConservesRequestsAndTokens) {
  const auto reqs = poisson(3000, 50, 800, 120, 21);
  InstanceConfig p = instance(linear_cost(0.01, 2e-5), 20000, 64, 4096);
  p.role = Role::prefill;
  p.kv_bytes_per_token = 1e5;
  std::vector<InstanceConfig> inst = {p};
  for (int i = 0; i < 3; ++i) {
    InstanceConfig d = instance(linear_cost(0.01, 2e-5), 20000, 128, 4096);
    d.role = Role::decode;
    inst.push_back(d);
  }
  SimOptions opt;
  opt.kv_transfer = [](int, int, double bytes, double) { return KvTransfer{bytes / 50e9, 0.0}; };
  const SimResult r = simulate(reqs, inst, opt);
  EXPECT_EQ(r.completed, reqs.size());
  EXPECT_EQ(r.kv_transfers, reqs.size());
  std::uint64_t gaps = 0;
  for (const auto& q : r.requests) gaps += static_cast<std::uint64_t>(q.output_tokens - 1);
  EXPECT_EQ(r.itl.count, gaps);
  EXPECT_EQ(r.instances[0].requests, reqs.size());
  std::uint64_t decoded = 0;
  for (std::size_t i = 1; i < r.instances.size(); ++i) decoded += r.instances[i].requests;
  EXPECT_EQ(decoded, reqs.size());
}

TEST(ServingSimulator, BadConfigurationsAreRefused) {
  const std::vector<Request> reqs = {{0, 0.0, 10, 10}};
  InstanceConfig c = instance(linear_cost(0.01, 0.0));
  c.kv_blocks = 0;
  EXPECT_THROW(simulate(reqs, {c}, {}), std::invalid_argument);
  EXPECT_THROW(simulate(reqs, {}, {}), std::invalid_argument);
  const std::vector<Request> unsorted = {{0, 1.0, 10, 10}, {1, 0.5, 10, 10}};
  EXPECT_THROW(simulate(unsorted, {instance(linear_cost(0.01, 0.0))}, {}), std::invalid_argument);
  InstanceConfig p = instance(linear_cost(0.01, 0.0));
  p.role = Role::prefill;
  EXPECT_THROW(simulate(reqs, {p}, {}), std::invalid_argument);  // no decode instance
  p.role = Role::decode;
  EXPECT_THROW(simulate(reqs, {p}, {}), std::invalid_argument);  // none takes arrivals
}

}  // namespace
}  // namespace stackscope::serving
