// SPDX-License-Identifier: GPL-3.0-or-later
// Cycle-stepped bank-level DRAM scheduler, the reference the analytic model (dram.cpp) is
// checked against. One cycle = one memory data clock (1 / clock_MHz). Per channel:
//  - banks with an open row and earliest-issue times for ACT, column commands and PRE;
//    tRCD (ACT -> RD/WR), tRAS (ACT -> PRE), tRP (PRE -> ACT), tRRD (ACT -> ACT in the channel),
//    tFAW (rolling window of 4 ACTs per channel), JEDEC JESD235 (HBM) / JESD238 (HBM3);
//  - bank groups of 4 per die (JESD235A HBM2, JESD238 HBM3: 4 bank groups x 4 banks; fewer
//    banks, one group each): consecutive column commands in one group are tCCD_L = tCCD_ns
//    apart, across groups only the data burst (tCCD_S = burst);
//  - data bus busy cycles_per_sector per sector; write-to-read turnaround burst + tWTR, read-to-
//    write burst + tCCD_L (the model has no CL/CWL, so the read-to-write gap is approximated);
//    write recovery before PRE approximated by tRCD (HBM2 tWR 16 vs tRCD 14 cycles, DRAMsim3);
//  - one row command (ACT/PRE/REF) and one column command (RD/WR) per cycle: HBM has separate
//    row and column command buses (JESD235);
//  - all-bank refresh: every tREFI (halved above 85 C) the channel stops issuing, closes all
//    banks with one precharge-all once each may precharge, and issues REF tRP later, which
//    blocks it for tRFC (DRAMsim3 refresh_policy RANK_LEVEL_SIMULTANEOUS);
//  - open-page policy, FR-FCFS over a bounded request queue (Rixner et al., ISCA 2000): the
//    oldest ready row hit first, otherwise the oldest request whose ACT/PRE can issue; a row
//    with queued hits is not closed.
// Address mapping: row : bank : bank group : channel : column (DRAMsim3's rorabgbachco with the
// bank-group bits moved below the bank bits so that sequential rows alternate bank groups, the
// usual HBM choice when tCCD_L > tCCD_S). A sequential stream therefore fills one row-sized
// column run per channel, then moves to the next channel; each channel sees row-sized runs in
// consecutive banks. Channels are identical, so `channels_simulated` channels (default one) are
// simulated, each with its own share of the pattern, and the result is scaled.
// stacked_3d: each DRAM layer carries channels_per_layer channel slices of banks_per_channel
// banks each (the preset's organisation), and the layers_total layers share the layers_connected
// vertical links, so one link fronts floor or ceil(layers_total / layers_connected) layers. The
// simulated channel is one link: the layers behind it share its command and data buses, each
// layer is its own die, so tRRD and tFAW hold per layer (a rank in DDR terms: DRAMsim3 checks
// both per rank) and bank groups are per layer (a column command to another layer's bank is
// only held by the data bus, like tCCD_S). HBM: one layer's worth of banks per channel.
#include "stackscope/memory/bank_sim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "stackscope/hw/stack_layers.hpp"

namespace stackscope::memory {
namespace {

using Cycle = std::int64_t;
constexpr Cycle kNever = -1;
constexpr int kBankGroups = 4;
constexpr std::int64_t kRowsPerBank = 32768;  // HBM2 8 Gb x128 (DRAMsim3); only sets hit odds

struct Request {
  int bank = 0;
  std::int64_t row = 0;
  bool write = false;
};

struct Bank {
  std::int64_t open_row = kNever;
  Cycle act_ready = 0;  // earliest ACT (after tRP / tRFC)
  Cycle col_ready = 0;  // earliest RD/WR to the open row (tRCD)
  Cycle pre_ready = 0;  // earliest PRE (tRAS, read-to-precharge, write recovery)
};

struct Timing {
  Cycle burst, tRCD, tRP, tRAS, tRRD, tFAW, tCCD_L, tWTR, tWR, tRFC, tREFI;
};

Cycle to_cycles(double ns, double t_ck_ns) {
  return std::max<Cycle>(1, static_cast<Cycle>(std::ceil(ns / t_ck_ns - 1e-9)));
}

// The per-channel share of an access pattern (docs/model.md §4 patterns).
class Generator {
 public:
  Generator(const hw::Memory& m, const AccessPattern& p, int banks, double channels,
            std::uint64_t seed)
      : p_(p), banks_(banks), rng_(seed) {
    sectors_per_row_ = std::max<std::int64_t>(1, std::llround(m.row_bytes / m.sector_bytes));
    switch (p.kind) {
      case PatternKind::stream:
      case PatternKind::mix: run_sectors_ = sectors_per_row_; break;
      case PatternKind::random:
      case PatternKind::row_conflict: run_sectors_ = 1; break;
      case PatternKind::chunk: {
        // A chunk of at most one row stays in one row of one channel; a longer one spreads
        // row-sized pieces over the channels (column bits below channel bits) and only gives a
        // channel several consecutive rows when it is longer than a row in every channel.
        const double bytes = std::max(p.chunk_bytes, m.sector_bytes);
        if (bytes <= m.row_bytes) {
          run_sectors_ = std::max<std::int64_t>(1, std::llround(bytes / m.sector_bytes));
        } else {
          const double rows_here = std::max(1.0, std::floor(bytes / (m.row_bytes * channels)));
          run_sectors_ = static_cast<std::int64_t>(rows_here) * sectors_per_row_;
        }
        break;
      }
    }
  }

  Request next() {
    if (left_ == 0) start_run();
    --left_;
    Request r{bank_, row_, write_};
    if (++col_ == sectors_per_row_) {  // run continues in the next bank (then next row)
      col_ = 0;
      if (++bank_ == banks_) {
        bank_ = 0;
        ++row_;
      }
    }
    return r;
  }

 private:
  void start_run() {
    left_ = run_sectors_;
    switch (p_.kind) {
      case PatternKind::stream:
      case PatternKind::mix:
        // Sequential: the next row-sized run follows where the last one ended.
        if (p_.kind == PatternKind::mix)
          write_ = std::uniform_real_distribution<double>(0, 1)(rng_) >= p_.read_fraction;
        break;
      case PatternKind::row_conflict:
        bank_ = 0;
        row_ = (row_ + 1) % kRowsPerBank;
        col_ = 0;
        break;
      case PatternKind::random:
      case PatternKind::chunk: {
        bank_ = static_cast<int>(rng_() % static_cast<std::uint64_t>(banks_));
        row_ = static_cast<std::int64_t>(rng_() % kRowsPerBank);
        // Runs shorter than a row start at a run-aligned column so they stay in one row.
        const std::int64_t slots = std::max<std::int64_t>(1, sectors_per_row_ / run_sectors_);
        col_ = run_sectors_ < sectors_per_row_
                   ? static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(slots)) *
                         run_sectors_
                   : 0;
        break;
      }
    }
  }

  AccessPattern p_;
  int banks_;
  std::mt19937_64 rng_;
  std::int64_t sectors_per_row_ = 1;
  std::int64_t run_sectors_ = 1;
  std::int64_t left_ = 0;
  int bank_ = 0;
  std::int64_t row_ = 0;
  std::int64_t col_ = 0;
  bool write_ = false;
};

struct Stats {
  std::uint64_t acts = 0, reads = 0, writes = 0, refresh_cycles = 0;
};

// How the banks behind one channel are organised: `layers` dies of `banks` banks each; bank
// index = layer x banks + bank in the layer, and a bank's group is its index in the layer
// modulo the groups per layer.
struct Organisation {
  int layers = 1;
  int banks = 1;   // per layer
  int groups = 1;  // bank groups per layer
  int total() const { return layers * banks; }
  int layer_of(int bank) const { return bank / banks; }
  int group_of(int bank) const { return layer_of(bank) * groups + (bank % banks) % groups; }
};

// Per-die activation window: tRRD between ACTs and at most four ACTs per tFAW.
struct ActWindow {
  std::array<Cycle, 4> faw{};
  std::size_t head = 0;
  Cycle next_act = 0;
};

class Channel {
 public:
  Channel(const Timing& t, const Organisation& org, int queue_depth, Generator gen)
      : t_(t),
        org_(org),
        banks_(static_cast<std::size_t>(org.total())),
        depth_(queue_depth),
        gen_(std::move(gen)),
        hits_(static_cast<std::size_t>(org.total()), 0),
        seen_(static_cast<std::size_t>(org.total()), 0),
        windows_(static_cast<std::size_t>(org.layers)),
        group_next_col_(static_cast<std::size_t>(org.layers * org.groups), 0) {
    for (auto& w : windows_) w.faw.fill(-t.tFAW);
    next_ref_ = t.tREFI;
  }

  void step(Cycle now, bool measure, Stats& s) {
    while (static_cast<int>(queue_.size()) < depth_) queue_.push_back(gen_.next());
    if (now < ref_busy_until_) {
      if (measure) ++s.refresh_cycles;
      return;
    }
    if (now >= next_ref_) {
      if (measure) ++s.refresh_cycles;
      refresh(now);
      return;
    }
    column_command(now, measure, s);
    row_command(now, measure, s);
  }

 private:
  // All-bank refresh, planned once per tREFI (O(banks) per refresh, not per cycle): the channel
  // stops issuing, waits until every open bank may precharge (tRAS, read-to-precharge, write
  // recovery), closes them with one precharge-all (JEDEC PREA) and refreshes tRP later for
  // tRFC (DRAMsim3 RANK_LEVEL_SIMULTANEOUS).
  void refresh(Cycle now) {
    Cycle prea = kNever;
    Cycle start = now;
    for (const auto& b : banks_) {
      if (b.open_row != kNever) prea = std::max({prea, now, b.pre_ready});
      start = std::max(start, b.act_ready);
    }
    if (prea != kNever) start = std::max(start, prea + t_.tRP);
    ref_busy_until_ = start + t_.tRFC;
    for (auto& b : banks_) {
      b.open_row = kNever;
      b.act_ready = std::max(b.act_ready, ref_busy_until_);
    }
    next_ref_ += t_.tREFI;
  }

  void precharge(Bank& b, Cycle now) {
    b.open_row = kNever;
    b.act_ready = std::max(b.act_ready, now + t_.tRP);
  }

  // FR-FCFS: the oldest request whose row is open and whose column command may issue now.
  void column_command(Cycle now, bool measure, Stats& s) {
    if (now < bus_free_) return;
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      Bank& b = banks_[static_cast<std::size_t>(it->bank)];
      const auto g = static_cast<std::size_t>(org_.group_of(it->bank));
      if (b.open_row != it->row || now < b.col_ready || now < group_next_col_[g]) continue;
      if (it->write ? now < next_wr_ : now < next_rd_) continue;
      bus_free_ = now + t_.burst;
      group_next_col_[g] = now + t_.tCCD_L;
      if (it->write) {
        next_rd_ = std::max(next_rd_, now + t_.burst + t_.tWTR);
        b.pre_ready = std::max(b.pre_ready, now + t_.burst + t_.tWR);
        if (measure) ++s.writes;
      } else {
        next_wr_ = std::max(next_wr_, now + t_.burst + t_.tCCD_L);
        b.pre_ready = std::max(b.pre_ready, now + std::max(t_.burst, t_.tCCD_L));
        if (measure) ++s.reads;
      }
      queue_.erase(it);
      return;
    }
  }

  // Oldest request (one per bank) whose PRE or ACT may issue now.
  void row_command(Cycle now, bool measure, Stats& s) {
    ++stamp_;
    // Queued row hits per bank: a row with pending hits is not closed (row hits first). Only
    // the queued banks are counted and cleared, so a cycle costs O(queue), not O(banks).
    for (const auto& q : queue_)
      if (banks_[static_cast<std::size_t>(q.bank)].open_row == q.row)
        ++hits_[static_cast<std::size_t>(q.bank)];
    for (const auto& r : queue_) {
      const auto bi = static_cast<std::size_t>(r.bank);
      if (seen_[bi] == stamp_) continue;
      seen_[bi] = stamp_;
      Bank& b = banks_[bi];
      if (b.open_row == r.row) continue;
      if (b.open_row != kNever) {
        if (hits_[bi] == 0 && now >= b.pre_ready) {
          precharge(b, now);
          break;
        }
        continue;
      }
      ActWindow& w = windows_[static_cast<std::size_t>(org_.layer_of(r.bank))];
      if (now < b.act_ready || now < w.next_act || now < w.faw[w.head] + t_.tFAW) continue;
      b.open_row = r.row;
      b.col_ready = now + t_.tRCD;
      b.pre_ready = now + t_.tRAS;
      w.next_act = now + t_.tRRD;
      w.faw[w.head] = now;
      w.head = (w.head + 1) % w.faw.size();
      if (measure) ++s.acts;
      break;
    }
    for (const auto& q : queue_) hits_[static_cast<std::size_t>(q.bank)] = 0;
  }

  Timing t_;
  Organisation org_;
  std::vector<Bank> banks_;
  int depth_;
  Generator gen_;
  std::deque<Request> queue_;
  std::vector<int> hits_;
  std::vector<std::uint64_t> seen_;
  std::uint64_t stamp_ = 0;
  std::vector<ActWindow> windows_;
  std::vector<Cycle> group_next_col_;
  Cycle bus_free_ = 0;
  Cycle next_rd_ = 0;
  Cycle next_wr_ = 0;
  Cycle next_ref_ = 0;
  Cycle ref_busy_until_ = 0;
};

}  // namespace

double analytic_dram_limit_Bps(const DramBandwidth& bw) noexcept {
  return std::min(bw.row_limited_Bps, bw.activation_Bps) * (1.0 - bw.refresh_overhead);
}

BankSimResult simulate_bank_level(const hw::Memory& m, const AccessPattern& pattern,
                                  const BankSimConfig& cfg) {
  BankSimResult res;
  const int total = hw::stack_layer_count(m);
  const int connected = hw::stack_connected_count(m);
  const double channels = static_cast<double>(m.stacks) * connected * m.channels_per_layer;
  if (m.kind == hw::MemoryKind::sram_only || channels <= 0 || m.clock_MHz <= 0) return res;

  const double t_ck = 1e3 / m.clock_MHz;  // ns
  const auto& tm = m.timing;
  double trefi = tm.tREFI_ns;
  if (cfg.temperature_C > kRefreshDoublingC) trefi *= 0.5;
  const Cycle burst = std::max<Cycle>(1, std::llround(m.cycles_per_sector));
  const Timing t{burst,
                 to_cycles(tm.tRCD_ns, t_ck),
                 to_cycles(tm.tRP_ns, t_ck),
                 to_cycles(tm.tRAS_ns, t_ck),
                 to_cycles(tm.tRRD_ns, t_ck),
                 to_cycles(tm.tFAW_ns, t_ck),
                 std::max(burst, to_cycles(tm.tCCD_ns, t_ck)),
                 to_cycles(tm.tWTR_ns, t_ck),
                 to_cycles(tm.tRCD_ns, t_ck),
                 to_cycles(tm.tRFC_ns, t_ck),
                 to_cycles(trefi, t_ck)};

  // Layers behind one channel. HBM: one (a channel's banks are banks_per_channel).
  // stacked_3d: the layers_total layers are spread over the layers_connected vertical links,
  // so floor(T/C) or ceil(T/C) layers of banks_per_channel banks share a link; both kinds are
  // simulated and weighted by how many links there are of each.
  struct Kind {
    int layers;
    double share;
  };
  Kind kinds[2] = {{1, 1.0}, {0, 0.0}};
  if (m.kind == hw::MemoryKind::stacked_3d && connected > 0) {
    const int lo = std::max(1, total / connected);
    const int extra = total - lo * connected;  // connections with lo + 1
    const double hi_share = std::clamp(static_cast<double>(extra) / connected, 0.0, 1.0);
    kinds[0] = {lo, 1.0 - hi_share};
    kinds[1] = {lo + 1, hi_share};
  }
  const int banks = std::max(1, m.banks_per_channel);
  const int groups = std::min(kBankGroups, banks);
  res.banks_per_channel = kinds[0].layers * banks;
  res.cycle_ns = t_ck;

  const auto warm = static_cast<Cycle>(std::ceil(cfg.warmup_us * 1e3 / t_ck));
  const auto window = std::max<Cycle>(1, static_cast<Cycle>(std::ceil(cfg.window_us * 1e3 / t_ck)));
  const int nsim = std::max(1, cfg.channels_simulated);
  double per_channel = 0, hit = 0, refresh = 0;
  for (const Kind& k : kinds) {
    if (k.share <= 0) continue;
    std::vector<Channel> chans;
    chans.reserve(static_cast<std::size_t>(nsim));
    const Organisation org{k.layers, banks, groups};
    for (int c = 0; c < nsim; ++c)
      chans.emplace_back(
          t, org, std::max(1, cfg.queue_depth),
          Generator(m, pattern, org.total(), channels,
                    cfg.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(c)));
    Stats s;
    for (Cycle now = 0; now < warm + window; ++now) {
      const bool measure = now >= warm;
      for (auto& ch : chans) ch.step(now, measure, s);
    }
    const double seconds = static_cast<double>(window) * t_ck * 1e-9 * nsim;
    const double bytes = static_cast<double>(s.reads + s.writes) * m.sector_bytes;
    per_channel += k.share * bytes / seconds;
    const double cols = static_cast<double>(s.reads + s.writes);
    hit += k.share * (cols > 0 ? std::max(0.0, 1.0 - static_cast<double>(s.acts) / cols) : 0.0);
    refresh += k.share * static_cast<double>(s.refresh_cycles) / static_cast<double>(window * nsim);
    res.activations += s.acts;
    res.reads += s.reads;
    res.writes += s.writes;
  }
  res.per_channel_Bps = per_channel;
  res.effective_Bps = per_channel * channels;
  res.row_hit_rate = hit;
  res.refresh_share = refresh;
  return res;
}

std::vector<std::string> agreement_patterns() {
  return {"stream",      "random",  "chunk:256", "chunk:1024",
          "chunk:65536", "mix:0.7", "mix:0.5",   "row-conflict"};
}

std::vector<std::pair<std::string, hw::Memory>> agreement_memories(const std::string& id,
                                                                   const hw::Memory& mem) {
  std::vector<std::pair<std::string, hw::Memory>> out;
  if (mem.kind == hw::MemoryKind::sram_only) return out;
  out.emplace_back(id, mem);
  if (mem.kind != hw::MemoryKind::stacked_3d) return out;
  for (const int total : {2, 4, 8, 12, 16}) {
    for (const int connected : {total / 2, total}) {
      if (total == mem.layers_total && connected == mem.layers_connected) continue;
      hw::Memory v = mem;
      v.layers.clear();  // the variants are uniform stacks of these counts
      v.layers_total = total;
      v.layers_connected = connected;
      out.emplace_back(id + " L" + std::to_string(total) + "/C" + std::to_string(connected), v);
    }
  }
  return out;
}

AgreementRow agreement_row(const std::string& name, const hw::Memory& mem,
                           const std::string& pattern, const BankSimConfig& config) {
  AgreementRow row;
  row.memory = name;
  row.pattern = pattern;
  const auto p = parse_pattern(pattern, nullptr);
  if (!p) return row;
  const hw::ComputeDie die;  // the DRAM-device limit does not use the die
  row.model_Bps = analytic_dram_limit_Bps(effective_bandwidth(mem, die, *p, config.temperature_C));
  row.reference_Bps = simulate_bank_level(mem, *p, config).effective_Bps;
  row.error = row.reference_Bps > 0 ? (row.model_Bps - row.reference_Bps) / row.reference_Bps : 0;
  return row;
}

}  // namespace stackscope::memory
