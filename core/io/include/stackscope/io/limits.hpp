// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Size limits of every file format core/io reads, in one place. A file past a limit is refused
// with a ConfigError naming the limit, before it can cost unbounded memory or time. Each limit
// is far above what a real file needs (the reason is given beside it); the numeric ranges of
// the design itself are perf::validate()'s (stackscope/perf/limits.hpp).
#include <cstddef>

namespace stackscope::io::limits {

inline constexpr std::size_t kMiB = std::size_t{1} << 20;

// Project, preset and search-space files: the shipped ones are 1-8 KiB; 16 MiB is 2000x that
// and bounds the parsed document to a few hundred MB whatever it holds.
inline constexpr std::size_t kMaxProjectFileBytes = 16 * kMiB;
// MoE routing traces: the reference Mixtral traces are 2.6-3.2 MB (~650k expert ids); a trace
// of a 256-expert model over many more tokens stays far below 256 MiB. The trace is streamed
// (SAX), so the text itself is the memory bound.
inline constexpr std::size_t kMaxTraceFileBytes = 256 * kMiB;
// HotSpot power traces: one line per time step; 64 MiB holds ~10^5 steps of 100 blocks.
inline constexpr std::size_t kMaxPtraceFileBytes = 64 * kMiB;
// Measured-deployment samples (AIConfigurator's silicon_sample.csv): the whole public sample is
// 5,221 rows, about 2 MB; 64 MiB holds 30x that.
inline constexpr std::size_t kMaxSiliconSampleBytes = 64 * kMiB;
// Measured kernel tables (kernel_table.hpp, kernel_table_foreign.hpp): AIConfigurator's H200
// TensorRT-LLM gemm_perf exported to CSV is 100,668 rows, 8.8 MB; 64 MiB holds 7x that.
inline constexpr std::size_t kMaxKernelTableBytes = 64 * kMiB;
// HotSpot floorplans, layer configurations and configs: a few KiB in HotSpot's examples.
inline constexpr std::size_t kMaxHotspotFileBytes = 4 * kMiB;

// JSON documents (project, preset and search files; not traces, which have their own reader).
// The schema nests at most 6 deep (search -> hardware -> axis -> values -> ...); 64 leaves room
// for free-form "notes" while every recursive walk of a document (copy, merge, dump) stays far
// from the stack limit.
inline constexpr int kMaxJsonDepth = 64;
// Values of any kind (containers included) in one document: the largest shipped file has ~500.
inline constexpr std::size_t kMaxJsonValues = 1'000'000;
// Elements of one array: the longest schema array is a search axis' value list (tens).
inline constexpr std::size_t kMaxJsonArrayElements = 100'000;
// Members of one object: the largest schema object (hardware compute) has 18 keys; readers
// look keys up by linear search (ordered_json), so this bounds (members x known keys).
inline constexpr std::size_t kMaxJsonObjectMembers = 10'000;
// Bytes of one string or key: names, ids, paths and notes are a few hundred at most.
inline constexpr std::size_t kMaxJsonStringBytes = 64 * 1024;

// HotSpot interchange (io/hotspot.hpp). HotSpot's example floorplans have 10-100 blocks.
inline constexpr std::size_t kMaxHotspotBlocks = 16'384;    // per .flp
inline constexpr std::size_t kMaxPtraceColumns = 65'536;    // blocks over all power layers
inline constexpr std::size_t kMaxHotspotLayers = 64;        // per .lcf (examples: 2-12)
inline constexpr int kMaxHotspotGrid = 1024;                // -grid_rows/-grid_cols, as --grid
inline constexpr std::size_t kMaxHotspotConfigKeys = 1024;  // HotSpot 6 has ~60 keys

// Issues printed or carried per error: a million bad values need a handful of lines to explain.
inline constexpr std::size_t kMaxIssues = 50;

}  // namespace stackscope::io::limits
