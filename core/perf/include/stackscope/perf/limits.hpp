// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Numeric ranges perf::validate() enforces beyond "positive" and "at least 1", in one place.
// They are far outside any real design (the reason is given beside each) but bound the memory
// and time of an evaluation and keep every product the model forms finite and inside 64 bits:
// counts multiply as integers (tp x pp x dp x ep x cp, mesh X x Y, level sizes) and rates
// divide byte counts, so a rate too small (a denormal clock) would make times infinite.
#include <cstdint>

namespace stackscope::perf::limits {

// Devices of a system, and the device positions its network levels describe: 10x the largest
// GPU clusters built (~10^5 GPUs). network::Topology stores every position and its links.
inline constexpr std::int64_t kMaxDevices = 1 << 20;
// Each parallel degree (tp, pp, dp, ep, cp, module tp/ep) is at most the device count; their
// product is then < 2^100 before it is compared, so it is formed with checked arithmetic.
inline constexpr std::int64_t kMaxDegree = kMaxDevices;

// network_report() (evaluate --links / --reference-sim, the GUI's Links tab) replays every
// group's collectives on a per-link load array, so its cost grows with devices^2 (0.9 s at
// 2^14 devices, ~1 h at 2^20); past this many devices it reports no per-link detail.
inline constexpr std::int64_t kMaxNetworkReportDevices = 1 << 14;

// Model shape. Published models: <= 126 layers, hidden <= 25,600, 256 routed experts.
inline constexpr int kMaxLayers = 4096;
inline constexpr int kMaxHidden = 1 << 20;  // also heads x head_dim, ffn_dim, ranks
inline constexpr int kMaxHeads = 1 << 16;
inline constexpr int kMaxVocab = 1 << 24;    // published vocabularies: <= 256k
inline constexpr int kMaxExperts = 1 << 16;  // per-expert arrays are sized by it

// Workload: the CLI's --batch, --input-len/--output-len bounds (10^7 requests per replica;
// 10^8 tokens, 10x the longest context windows offered).
inline constexpr int kMaxBatch = 10'000'000;
inline constexpr int kMaxTokens = 100'000'000;

// Compute die. The wafer-scale preset has 900,000 cores on a 750 x 1200 mesh.
inline constexpr int kMaxCores = 1 << 24;
inline constexpr int kMaxMeshSide = 4096;  // mesh_x, mesh_y: 16.7 M blocks at most
inline constexpr int kMaxTile = 4096;      // mma_tile_m/n
// Clocks: no accelerator logic runs below 1 MHz or above 100 GHz (shipped presets: 1-2.1 GHz).
inline constexpr double kMinClockGHz = 1e-3;
inline constexpr double kMaxClockGHz = 100;
// Work per core per cycle (FLOPs, SRAM bytes): the widest tensor core does 32,768 FP4 FLOPs.
inline constexpr double kMaxPerCycle = 1e7;

// DRAM. The bank-level simulator steps every memory clock of a ~110 us window and keeps one
// record per bank: the clock bounds its time (2.2 M cycles at the maximum), banks its memory.
inline constexpr double kMinMemoryClockMHz = 1;
inline constexpr double kMaxMemoryClockMHz = 20'000;  // presets: 1000-3906 MHz
inline constexpr int kMaxStacks = 64;                 // presets: <= 8
inline constexpr int kMaxMemoryLayers = 1024;         // presets: <= 12 dies per stack
inline constexpr int kMaxChannels = 4096;             // per layer; presets <= 64
inline constexpr int kMaxBanks = 1024;                // per channel; HBM3: 16-64
inline constexpr double kMaxTimingNs = 1e9;           // 1 s; tREFI is 3.9 us
// One die of a per-layer stack (hw::DramLayer). Thinned stacked DRAM dies are 30-60 um (twelve
// HBM3 dies fit JESD238's 720 um stack height) and a whole 300 mm wafer is 775 um (SEMI M1):
// above 1000 um the value is a unit slip, not a die.
inline constexpr double kMaxDramDieThicknessUm = 1000;
// Die-to-die link pitch: ~1-10 um hybrid bonds, ~40 um micro-bumps, ~150 um C4 bumps; no
// vertical link is built at a pitch above 1 mm.
inline constexpr double kMaxVerticalPitchUm = 1000;

// Bandwidths (on-die mesh links, network levels, vertical links): 1 MB/s to 10 PB/s.
inline constexpr double kMinLinkGBps = 1e-3;
inline constexpr double kMaxLinkGBps = 1e7;
// Achieved fractions of a peak (efficiencies, utilisation caps): below 0.1 % nothing useful runs
// and times would be 1000x the peak-rate time.
inline constexpr double kMinFraction = 1e-3;
// Fixed per-kernel overheads (runtime host launch, device dispatch): at most 1 s, six orders
// above any measured launch (~5-20 us), so a typo in the unit is caught.
inline constexpr double kMaxOverheadUs = 1e6;
// Kernels per modelled operator: an unfused runtime runs a handful (quantise, GEMM, bias,
// activation...); 64 is far past any.
inline constexpr double kMaxKernelsPerOp = 64;

// Everything else with a unit (areas in mm^2, energies in pJ, powers in W, latencies, GiB):
// finite and at most 1e12, so sums and products with counts stay finite.
inline constexpr double kMaxQuantity = 1e12;

}  // namespace stackscope::perf::limits
