// SPDX-License-Identifier: GPL-3.0-or-later
// The serving simulator (simulator.hpp): an event loop over arrivals and iteration ends, a
// vLLM-v1-style scheduler per instance, metrics at the end.
#include "stackscope/serving/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace stackscope::serving {

const char* key(Rejection r) {
  switch (r) {
    case Rejection::none: return "none";
    case Rejection::kv_capacity: return "kv_capacity";
    case Rejection::prompt_over_budget: return "prompt_over_budget";
    case Rejection::over_max_model_len: return "over_max_model_len";
  }
  return "?";
}

std::string rejection_text(const SimResult& result) {
  std::vector<std::pair<std::size_t, std::size_t>> kinds;  // count, Rejection index
  for (std::size_t k = 1; k < kRejectionKinds; ++k)
    if (result.rejected_by[k] > 0) kinds.emplace_back(result.rejected_by[k], k);
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [n, k] : kinds)
    s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(static_cast<Rejection>(k));
  return s;
}

const char* to_string(Rejection r) {
  switch (r) {
    case Rejection::none: return "none";
    case Rejection::kv_capacity: return "needs more KV blocks than the instance holds";
    case Rejection::prompt_over_budget:
      return "prompt longer than max_num_batched_tokens without chunked prefill";
    case Rejection::over_max_model_len:
      return "input + output over max_model_len (the model's context unless set)";
  }
  return "?";
}

SchedulerConfig tensorrt_llm_defaults() {
  SchedulerConfig s;
  s.max_num_seqs = 2048;
  s.max_num_batched_tokens = 8192;
  s.block_size = 32;
  s.kv_policy = KvPolicy::guaranteed_no_evict;
  s.kv_cache_fraction = 0.9;
  s.chunked_prefill = true;
  return s;
}

int graph_padded_batch(const SchedulerConfig& s, int seqs) {
  const auto it =
      std::lower_bound(s.cuda_graph_batch_sizes.begin(), s.cuda_graph_batch_sizes.end(), seqs);
  return it == s.cuda_graph_batch_sizes.end() ? seqs : *it;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Inter-token latencies go to a log-bucket histogram (1 % wide buckets from 100 ns), so a
// million requests of thousands of tokens need no per-token storage; percentiles are exact to
// the bucket (+-0.5 %).
class LogHistogram {
 public:
  void add(double x) {
    sum_ += x;
    ++n_;
    max_ = std::max(max_, x);
    const double v = std::max(x, kMin);
    const auto b = static_cast<std::size_t>(std::log(v / kMin) / kLogStep);
    if (b >= counts_.size()) counts_.resize(b + 1, 0);
    ++counts_[b];
  }
  Percentiles percentiles() const {
    Percentiles p;
    p.count = n_;
    if (n_ == 0) return p;
    p.mean = sum_ / static_cast<double>(n_);
    p.max = max_;
    auto at = [&](double q) {
      const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n_)));
      std::uint64_t seen = 0;
      for (std::size_t b = 0; b < counts_.size(); ++b) {
        seen += counts_[b];
        if (seen >= std::max<std::uint64_t>(rank, 1))
          return std::min(max_, kMin * std::exp((static_cast<double>(b) + 0.5) * kLogStep));
      }
      return max_;
    };
    p.p50 = at(0.50);
    p.p90 = at(0.90);
    p.p99 = at(0.99);
    return p;
  }

 private:
  static constexpr double kMin = 1e-7;
  static constexpr double kLogStep = 0.00995033085;  // ln(1.01)
  std::vector<std::uint64_t> counts_;
  std::uint64_t n_ = 0;
  double sum_ = 0, max_ = 0;
};

Percentiles exact_percentiles(std::vector<double> v) {
  Percentiles p;
  p.count = v.size();
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (const double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  // Nearest-rank percentiles.
  auto at = [&](double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  p.max = v.back();
  return p;
}

// A request inside an instance.
struct Seq {
  std::size_t req = 0;     // index into the request results
  long long len = 0;       // tokens known: input + generated so far
  long long computed = 0;  // tokens whose KV is in the cache
  long long blocks = 0;    // KV blocks held
  int generated = 0;
  double last_token_s = 0;
  bool started = false;
  // Overlap scheduler: when the request reached the engine (eligible for an iteration that
  // started after it), and whether it ended and only holds its slot for one more iteration.
  double ready_s = 0;
  bool retiring = false;
};

struct Instance {
  InstanceConfig cfg;
  std::vector<Seq> seqs;  // slots, reused
  std::vector<std::size_t> free_slots;
  std::vector<std::size_t> running;  // slots, in admission order
  std::deque<std::size_t> waiting;   // slots, FCFS (preempted ones at the front)
  long long free_blocks = 0;
  bool busy = false;
  double busy_until = 0;
  // The iteration in flight.
  std::vector<std::size_t> batch_slots;
  std::vector<int> batch_tokens;
  std::vector<perf::SequenceChunk> chunks;
  double iteration_start = 0;
  InstanceStats stats;
  std::size_t timeline_stride = 1;
  std::uint64_t timeline_seen = 0;

  long long blocks_for(long long tokens) const {
    const long long b = cfg.scheduler.block_size;
    return (tokens + b - 1) / b;
  }
  std::size_t load() const { return running.size() + waiting.size(); }
  // A free sequence slot (reused after a request leaves).
  std::size_t new_slot() {
    if (free_slots.empty()) {
      seqs.emplace_back();
      return seqs.size() - 1;
    }
    const std::size_t slot = free_slots.back();
    free_slots.pop_back();
    return slot;
  }
  double kv_used() const {
    return cfg.kv_blocks > 0
               ? 1.0 - static_cast<double>(free_blocks) / static_cast<double>(cfg.kv_blocks)
               : 0.0;
  }
};

void check(const InstanceConfig& c, std::size_t i) {
  const std::string where = "instance " + std::to_string(i) + " (" + c.name + "): ";
  const auto& s = c.scheduler;
  if (s.max_num_seqs < 1) throw std::invalid_argument(where + "max_num_seqs must be at least 1");
  if (s.max_num_batched_tokens < 1)
    throw std::invalid_argument(where + "max_num_batched_tokens must be at least 1");
  if (s.block_size < 1) throw std::invalid_argument(where + "block_size must be at least 1");
  if (s.max_model_len < 0) throw std::invalid_argument(where + "max_model_len must be >= 0");
  if (!(s.kv_cache_fraction > 0 && s.kv_cache_fraction <= 1))
    throw std::invalid_argument(where + "kv_cache_fraction must be in (0, 1]");
  if (c.kv_blocks < 1)
    throw std::invalid_argument(where + "kv_blocks must be at least 1 (no room for a KV cache)");
  for (std::size_t k = 0; k < s.cuda_graph_batch_sizes.size(); ++k) {
    const int b = s.cuda_graph_batch_sizes[k];
    if (b < 1 || (k > 0 && b <= s.cuda_graph_batch_sizes[k - 1]))
      throw std::invalid_argument(where + "cuda_graph_batch_sizes must be ascending and >= 1 (" +
                                  std::to_string(b) + " at position " + std::to_string(k) + ")");
  }
  if (!c.cost) throw std::invalid_argument(where + "no cost function");
  if (c.devices < 1) throw std::invalid_argument(where + "devices must be at least 1");
}

class Simulation {
 public:
  Simulation(std::span<const Request> requests, std::vector<InstanceConfig> configs,
             const SimOptions& opt)
      : reqs_(requests), opt_(opt) {
    if (configs.empty()) throw std::invalid_argument("no instances");
    if (opt.concurrency < 0) throw std::invalid_argument("concurrency must be >= 0");
    if (!(opt.request_latency_s >= 0) || !std::isfinite(opt.request_latency_s))
      throw std::invalid_argument("request_latency_s must be finite and >= 0");
    for (std::size_t i = 0; i < configs.size(); ++i) check(configs[i], i);
    for (std::size_t i = 1; i < requests.size(); ++i)
      if (requests[i].arrival_s < requests[i - 1].arrival_s)
        throw std::invalid_argument("requests must be in arrival order (request " +
                                    std::to_string(i) + ")");
    for (std::size_t i = 0; i < configs.size(); ++i)
      (configs[i].role == Role::decode ? decode_pool_ : entry_pool_).push_back(i);
    if (entry_pool_.empty())
      throw std::invalid_argument("every instance is a decode instance: none takes arrivals");
    const bool has_prefill = std::any_of(configs.begin(), configs.end(),
                                         [](const auto& c) { return c.role == Role::prefill; });
    if (has_prefill && decode_pool_.empty())
      throw std::invalid_argument("prefill instances need at least one decode instance");
    for (auto& c : configs) {
      Instance in;
      in.free_blocks = c.kv_blocks;
      in.stats.name = c.name;
      in.cfg = std::move(c);
      inst_.push_back(std::move(in));
    }
    ingress_free_.assign(inst_.size(), 0.0);
    egress_free_.assign(inst_.size(), 0.0);
    out_.requests.resize(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      auto& r = out_.requests[i];
      r.id = requests[i].id;
      r.input_tokens = requests[i].input_tokens;
      r.output_tokens = requests[i].output_tokens;
      r.arrival_s = requests[i].arrival_s;
    }
  }

  SimResult run() {
    std::size_t next = 0;  // next request to arrive
    std::size_t in_system = 0;
    double release_clock = 0;  // closed loop: time the next request may enter
    // When request i reaches the router: its arrival (closed loop: not before a slot freed)
    // plus the front end's time.
    auto arrival_time = [&](std::size_t i) {
      const double sent =
          opt_.concurrency > 0 ? std::max(reqs_[i].arrival_s, release_clock) : reqs_[i].arrival_s;
      return sent + opt_.request_latency_s;
    };
    std::uint64_t loops = 0;
    while (true) {
      if ((++loops & 1023) == 0) {
        if (opt_.stop.stop_requested()) {
          out_.stopped = true;
          break;
        }
        if (opt_.progress) opt_.progress(out_.completed + out_.rejected, reqs_.size(), now_);
      }
      const bool can_arrive =
          next < reqs_.size() &&
          (opt_.concurrency == 0 || in_system < static_cast<std::size_t>(opt_.concurrency));
      const double t_arr = can_arrive ? arrival_time(next) : kInf;
      std::size_t who = inst_.size();
      double t_done = kInf;
      for (std::size_t i = 0; i < inst_.size(); ++i)
        if (inst_[i].busy && inst_[i].busy_until < t_done) {
          t_done = inst_[i].busy_until;
          who = i;
        }
      const double t_xfer = transfers_.empty() ? kInf : transfers_.front().ready_s;
      if (t_arr == kInf && t_done == kInf && t_xfer == kInf) break;
      if (t_xfer <= t_arr && t_xfer <= t_done) {
        std::pop_heap(transfers_.begin(), transfers_.end(), later);
        const Transfer x = transfers_.back();
        transfers_.pop_back();
        now_ = x.ready_s;
        hand_in(x.req, x.to, x.first_token_s);
        if (!inst_[x.to].busy) start_iteration(inst_[x.to]);
      } else if (t_arr <= t_done) {
        auto& r = out_.requests[next];
        r.arrival_s = t_arr - opt_.request_latency_s;  // when the client sent it
        if (admit(next, t_arr)) ++in_system;
        ++next;
        // Requests arriving together are batched together: idle instances start once the
        // last arrival at this instant is in.
        const bool more_now =
            next < reqs_.size() &&
            (opt_.concurrency == 0 || in_system < static_cast<std::size_t>(opt_.concurrency)) &&
            arrival_time(next) <= t_arr;
        if (!more_now)
          for (auto& in : inst_)
            if (!in.busy) start_iteration(in);
      } else {
        now_ = t_done;
        const std::size_t finished = complete(inst_[who]);
        in_system -= finished;
        if (finished > 0) release_clock = now_;
        start_iteration(inst_[who], /*back_to_back=*/true);
      }
    }
    finish();
    return std::move(out_);
  }

 private:
  // The instance a request goes to: arrivals to prefill and co-located instances, hand-offs to
  // decode instances.
  std::size_t route(bool decode) {
    std::vector<std::size_t>& pool = decode ? decode_pool_ : entry_pool_;
    std::size_t pick = pool.front();
    switch (opt_.router) {
      case Router::round_robin: pick = pool[(decode ? rr_decode_ : rr_)++ % pool.size()]; break;
      case Router::join_shortest_queue:
        for (const std::size_t k : pool)
          if (inst_[k].load() < inst_[pick].load()) pick = k;
        break;
      case Router::least_kv:
        for (const std::size_t k : pool)
          if (inst_[k].kv_used() < inst_[pick].kv_used()) pick = k;
        break;
    }
    return pick;
  }

  // A request whose KV cache arrived at decode instance d: it joins the queue with its prompt
  // cached and its first token out.
  void hand_in(std::size_t req, std::size_t d, double first_token_s) {
    Instance& in = inst_[d];
    ++in.stats.requests;
    const std::size_t slot = in.new_slot();
    const long long input = reqs_[req].input_tokens;
    in.seqs[slot] = Seq{req, input + 1, input, 0, 1, first_token_s, true, now_, false};
    in.waiting.push_back(slot);
    out_.requests[req].instance = static_cast<int>(d);
  }

  // Routes request i; false if it is rejected.
  bool admit(std::size_t i, double t) {
    now_ = t;
    const Request& q = reqs_[i];
    auto& r = out_.requests[i];
    const std::size_t pick = route(/*decode=*/false);
    Instance& in = inst_[pick];
    r.instance = static_cast<int>(pick);
    ++in.stats.requests;
    const auto& s = in.cfg.scheduler;
    const long long total = static_cast<long long>(q.input_tokens) + q.output_tokens;
    if (s.max_model_len > 0 && total > s.max_model_len) {
      r.rejected = Rejection::over_max_model_len;
    } else if (!s.chunked_prefill && q.input_tokens > s.max_num_batched_tokens) {
      r.rejected = Rejection::prompt_over_budget;
    } else if (in.blocks_for(total) > in.cfg.kv_blocks) {
      r.rejected = Rejection::kv_capacity;
    }
    if (r.rejected != Rejection::none) {
      ++out_.rejected;
      ++out_.rejected_by[static_cast<std::size_t>(r.rejected)];
      return false;
    }
    const std::size_t slot = in.new_slot();
    in.seqs[slot] = Seq{i, q.input_tokens, 0, 0, 0, 0, false, t, false};
    in.waiting.push_back(slot);
    return true;
  }

  void preempt(Instance& in, std::size_t slot) {
    Seq& s = in.seqs[slot];
    in.free_blocks += s.blocks;
    s.blocks = 0;
    s.computed = 0;  // recompute: prompt + generated tokens are prefilled again
    s.ready_s = 0;   // already known to the engine
    ++out_.requests[s.req].preemptions;
    ++in.stats.preemptions;
    in.waiting.push_front(slot);
  }

  // `back_to_back`: the instance just ended an iteration (the overlap scheduler's batch was
  // formed while that one ran); otherwise it was idle.
  void start_iteration(Instance& in, bool back_to_back = false) {
    in.busy = false;
    in.batch_slots.clear();
    in.batch_tokens.clear();
    in.chunks.clear();
    const auto& cfg = in.cfg.scheduler;
    long long budget = cfg.max_num_batched_tokens;
    bool preempted = false;
    // Without mixed batches (SGLang), a pass is prefill only or decode only: a sequence with
    // more than one token to compute is mid-prompt (or re-prefilling after a preemption).
    enum class Pass { all, prefill, decode };
    const auto in_pass = [&](Pass p, const Seq& s) {
      return p == Pass::all || ((s.len - s.computed > 1) == (p == Pass::prefill));
    };
    const auto run_running = [&](Pass pass) {
      // 1. Running sequences, in admission order; a block shortage preempts from the back.
      for (std::size_t k = 0; k < in.running.size() && budget > 0;) {
        const std::size_t slot = in.running[k];
        Seq& s = in.seqs[slot];
        if (s.retiring) {
          // Ended in the iteration before: one discarded decode in its held slot.
          if (pass != Pass::prefill) {
            in.batch_slots.push_back(slot);
            in.batch_tokens.push_back(0);
            in.chunks.push_back({1, static_cast<int>(s.computed), true});
            budget -= 1;
          }
          ++k;
          continue;
        }
        if (!in_pass(pass, s)) {
          ++k;
          continue;
        }
        const long long remaining = s.len - s.computed;
        const long long n = std::min(remaining, budget);
        const long long need = std::max(0LL, in.blocks_for(s.computed + n) - s.blocks);
        bool self_preempted = false;
        while (need > in.free_blocks) {
          const std::size_t victim = in.running.back();
          in.running.pop_back();
          if (Seq& v = in.seqs[victim]; v.retiring) {
            // An ended sequence's held blocks go first; it needs no recompute.
            in.free_blocks += v.blocks;
            v.blocks = 0;
            v.retiring = false;
            v.len = -1;
            in.free_slots.push_back(victim);
            continue;
          }
          preempt(in, victim);
          preempted = true;
          if (victim == slot) {
            self_preempted = true;
            break;
          }
        }
        if (self_preempted) break;
        in.free_blocks -= need;
        s.blocks += need;
        schedule(in, slot, static_cast<int>(n));
        budget -= n;
        ++k;
      }
    };
    // Overlap scheduler: this batch was formed when the iteration before started.
    double cutoff = back_to_back && cfg.overlap_scheduler ? in.iteration_start : kInf;
    const auto admit_waiting = [&] {
      // 2. Waiting requests, FCFS, unless this iteration had to preempt (vLLM v1).
      while (!preempted && !in.waiting.empty() && budget > 0 &&
             in.running.size() < static_cast<std::size_t>(cfg.max_num_seqs)) {
        const std::size_t slot = in.waiting.front();
        Seq& s = in.seqs[slot];
        if (s.ready_s >= cutoff) break;  // reached the engine after the batch was formed
        const long long remaining = s.len - s.computed;
        long long n = remaining;
        if (cfg.chunked_prefill) {
          n = std::min(remaining, budget);
        } else if (remaining > budget) {
          break;
        }
        // GUARANTEED_NO_EVICT reserves the whole request (its last token's KV is never written).
        const long long target =
            cfg.kv_policy == KvPolicy::guaranteed_no_evict
                ? std::max(s.computed + n, static_cast<long long>(reqs_[s.req].input_tokens) +
                                               reqs_[s.req].output_tokens - 1)
                : s.computed + n;
        const long long need = std::max(0LL, in.blocks_for(target) - s.blocks);
        if (need > in.free_blocks) break;
        in.free_blocks -= need;
        s.blocks += need;
        in.waiting.pop_front();
        in.running.push_back(slot);
        schedule(in, slot, static_cast<int>(n));
        budget -= n;
      }
    };
    const auto form = [&] {
      if (cfg.mixed_batches) {
        run_running(Pass::all);
        admit_waiting();
      } else {
        run_running(Pass::prefill);
        admit_waiting();
        if (in.chunks.empty()) run_running(Pass::decode);
      }
    };
    form();
    if (in.chunks.empty() && !in.waiting.empty() && cutoff < kInf) {
      // Nothing to run from the overlapped batch: the host waits for requests and schedules
      // the ones that came at once, as an idle instance does.
      cutoff = kInf;
      budget = cfg.max_num_batched_tokens;
      form();
    }
    if (in.chunks.empty()) return;  // idle until the next arrival
    // A decode-only iteration replays the captured graph of the next listed batch size; the
    // padding rows are dummy decodes of one cached token (TensorRT-LLM's padding requests).
    if (!cfg.cuda_graph_batch_sizes.empty()) {
      const bool decode_only = std::all_of(in.chunks.begin(), in.chunks.end(), [](const auto& x) {
        return x.new_tokens == 1 && x.context > 0;
      });
      const int n = static_cast<int>(in.chunks.size());
      if (decode_only)
        for (int k = graph_padded_batch(cfg, n); k > n; --k) in.chunks.push_back({1, 1, true});
    }
    const perf::IterationCost c = in.cfg.cost(in.chunks);
    in.busy = true;
    in.iteration_start = now_;
    in.busy_until = now_ + std::max(0.0, c.time_s);
    in.stats.busy_s += std::max(0.0, c.time_s);
    in.stats.energy_J += c.energy_J;
    ++in.stats.iterations;
    ++out_.iterations;
    const double kv = in.kv_used();
    in.stats.kv_peak_utilisation = std::max(in.stats.kv_peak_utilisation, kv);
    record_timeline(in, kv, static_cast<int>(cfg.max_num_batched_tokens - budget));
  }

  void schedule(Instance& in, std::size_t slot, int n) {
    Seq& s = in.seqs[slot];
    auto& r = out_.requests[s.req];
    if (!s.started) {
      s.started = true;
      r.first_scheduled_s = now_;
    }
    in.batch_slots.push_back(slot);
    in.batch_tokens.push_back(n);
    in.chunks.push_back({n, static_cast<int>(s.computed), s.computed + n == s.len});
  }

  // Ends the iteration in flight at now_; returns the requests that finished.
  std::size_t complete(Instance& in) {
    in.busy = false;
    std::size_t finished = 0;
    bool released = false;
    // Overlap scheduler: sequences that ended in the iteration before leave now, whether or
    // not this iteration's pass decoded them.
    if (in.cfg.scheduler.overlap_scheduler)
      for (const std::size_t slot : in.running) {
        Seq& s = in.seqs[slot];
        if (!s.retiring || s.len == -2) continue;
        in.free_blocks += s.blocks;
        s.blocks = 0;
        s.len = -1;
        released = true;
      }
    for (std::size_t k = 0; k < in.batch_slots.size(); ++k) {
      const std::size_t slot = in.batch_slots[k];
      Seq& s = in.seqs[slot];
      if (s.retiring) continue;
      s.computed += in.batch_tokens[k];
      if (s.computed < s.len) continue;  // a prefill chunk that does not end the prompt
      auto& r = out_.requests[s.req];
      ++s.generated;
      if (s.generated == 1) {
        r.first_token_s = now_;
      } else if (s.generated > 1) {
        itl_.add(now_ - s.last_token_s);
      }
      s.last_token_s = now_;
      // A preempted request re-emits nothing: its recompute ends where it stopped, and the
      // token this prefill produces is its next one.
      if (in.cfg.role == Role::prefill && s.generated == 1 && r.output_tokens > 1) {
        if (!hand_off(in, s)) ++finished;  // rejected: it leaves the system
        s.len = -1;
      } else if (s.generated >= r.output_tokens) {
        r.finish_s = now_;
        r.finished = true;
        ++out_.completed;
        ++finished;
        if (in.cfg.scheduler.overlap_scheduler) {
          s.retiring = true;  // holds its slot through the iteration already formed
          s.len = -2;         // not released by this completion
        } else {
          in.free_blocks += s.blocks;
          s.blocks = 0;
          s.len = -1;  // marks the slot for removal below
        }
      } else {
        ++s.len;
      }
    }
    if (finished > 0 || released || in.cfg.role == Role::prefill) {
      std::erase_if(in.running, [&](std::size_t slot) {
        Seq& s = in.seqs[slot];
        if (s.len == -2) {
          s.len = 0;  // retiring: released after the next iteration
          return false;
        }
        if (s.len >= 0) return false;
        s.retiring = false;
        in.free_slots.push_back(slot);
        return true;
      });
    }
    return finished;
  }

  // A prefill instance's request leaves for a decode instance: its blocks are freed here and
  // its KV crosses the network, behind earlier transfers into the same decode instance. False if
  // the decode instance can never hold it (rejected).
  bool hand_off(Instance& from, Seq& s) {
    const std::size_t to = route(/*decode=*/true);
    from.free_blocks += s.blocks;
    s.blocks = 0;
    // Never fits the decode instance: rejected there, before anything moves.
    const Request& q = reqs_[s.req];
    if (inst_[to].blocks_for(static_cast<long long>(q.input_tokens) + q.output_tokens) >
        inst_[to].cfg.kv_blocks) {
      out_.requests[s.req].rejected = Rejection::kv_capacity;
      ++out_.rejected;
      ++out_.rejected_by[static_cast<std::size_t>(Rejection::kv_capacity)];
      return false;
    }
    const double bytes = from.cfg.kv_bytes_per_token * static_cast<double>(s.computed);
    KvTransfer cost;
    const auto src = static_cast<std::size_t>(&from - inst_.data());
    if (opt_.kv_transfer)
      cost = opt_.kv_transfer(static_cast<int>(src), static_cast<int>(to), bytes, now_);
    // A transfer holds the source's egress and the destination's ingress links for its time;
    // it starts when both are free (unless the transfer function scheduled it).
    double& link = ingress_free_[to];
    double& out_link = egress_free_[src];
    const double start =
        cost.start_s >= 0 ? std::max(now_, cost.start_s) : std::max({now_, link, out_link});
    link = std::max(link, start + (cost.ingress_s >= 0 ? cost.ingress_s : cost.time_s));
    out_link = std::max(out_link, start + (cost.egress_s >= 0 ? cost.egress_s : cost.time_s));
    const double ready = start + cost.time_s;
    ++out_.kv_transfers;
    out_.kv_transfer_bytes += cost.bytes >= 0 ? cost.bytes : bytes;
    out_.kv_transfer_energy_J += cost.energy_J;
    transfer_times_.push_back(ready - now_);
    transfers_.push_back({ready, s.req, to, now_});
    std::push_heap(transfers_.begin(), transfers_.end(), later);
    return true;
  }

  struct Transfer {
    double ready_s;
    std::size_t req, to;
    double first_token_s;
  };
  static bool later(const Transfer& a, const Transfer& b) {
    return a.ready_s != b.ready_s ? a.ready_s > b.ready_s : a.req > b.req;
  }

  void record_timeline(Instance& in, double kv, int tokens) {
    const std::size_t cap = std::max<std::size_t>(2, opt_.max_timeline_points);
    if (in.timeline_seen++ % in.timeline_stride != 0) return;
    auto& tl = in.stats.timeline;
    tl.push_back({now_, static_cast<int>(in.running.size()), static_cast<int>(in.waiting.size()),
                  kv, tokens});
    if (tl.size() >= cap) {  // keep every other point and halve the sampling rate
      std::size_t w = 0;
      for (std::size_t i = 0; i < tl.size(); i += 2) tl[w++] = tl[i];
      tl.resize(w);
      in.timeline_stride *= 2;
    }
  }

  void finish() {
    std::vector<double> ttft, tpot, e2e, queue;
    double first = kInf, last = 0;
    double in_tokens = 0, out_tokens = 0;
    std::size_t good = 0;
    for (const auto& r : out_.requests) {
      if (!r.done()) continue;
      first = std::min(first, r.arrival_s);
      last = std::max(last, r.finish_s);
      ttft.push_back(r.ttft_s());
      e2e.push_back(r.e2e_s());
      queue.push_back(r.queue_s());
      if (r.output_tokens > 1) tpot.push_back(r.tpot_s());
      in_tokens += r.input_tokens;
      out_tokens += r.output_tokens;
      if (r.ttft_s() <= opt_.slo_ttft_s && r.tpot_s() <= opt_.slo_tpot_s) ++good;
    }
    out_.ttft = exact_percentiles(std::move(ttft));
    out_.tpot = exact_percentiles(std::move(tpot));
    out_.e2e = exact_percentiles(std::move(e2e));
    out_.queue = exact_percentiles(std::move(queue));
    out_.itl = itl_.percentiles();
    if (out_.completed > 0) {
      out_.start_s = first;
      out_.makespan_s = last - first;
      const double span = out_.makespan_s > 0 ? out_.makespan_s : 0.0;
      if (span > 0) {
        out_.input_tokens_per_s = in_tokens / span;
        out_.output_tokens_per_s = out_tokens / span;
        out_.requests_per_s = static_cast<double>(out_.completed) / span;
        out_.goodput_rps = static_cast<double>(good) / span;
      }
    }
    // Over every request that left the system, the rejected ones as misses (simulator.hpp).
    if (out_.completed + out_.rejected > 0)
      out_.slo_attainment =
          static_cast<double>(good) / static_cast<double>(out_.completed + out_.rejected);
    double energy = 0;
    for (auto& in : inst_) {
      // An instance draws its static power from the first arrival to the last finish; its
      // iterations' energy holds it over their time, the rest is idle.
      const double idle_s = std::max(0.0, out_.makespan_s - in.stats.busy_s);
      in.stats.idle_energy_J = in.cfg.idle_power_W * idle_s;
      in.stats.energy_J += in.stats.idle_energy_J;
      energy += in.stats.energy_J;
      out_.instances.push_back(std::move(in.stats));
    }
    energy += out_.kv_transfer_energy_J;
    out_.energy_per_output_token_J = out_tokens > 0 ? energy / out_tokens : 0.0;
    out_.kv_transfer_s = exact_percentiles(std::move(transfer_times_));
  }

  std::span<const Request> reqs_;
  const SimOptions& opt_;
  std::vector<Instance> inst_;
  SimResult out_;
  LogHistogram itl_;
  double now_ = 0;
  std::size_t rr_ = 0, rr_decode_ = 0;
  std::vector<std::size_t> entry_pool_, decode_pool_;
  std::vector<Transfer> transfers_;  // min-heap on ready time
  std::vector<double> ingress_free_;
  std::vector<double> egress_free_;  // when each prefill instance's links are free again
  std::vector<double> transfer_times_;
};

}  // namespace

SimResult simulate(std::span<const Request> requests, std::vector<InstanceConfig> instances,
                   const SimOptions& options) {
  Simulation sim(requests, std::move(instances), options);
  return sim.run();
}

}  // namespace stackscope::serving
