// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The hardware template of one device (docs/model.md §2). Plain aggregates with defaults; units are
// in the field names. JSON keys are exactly these member names (core/io). Defaults describe an
// H100-SXM-like GPU so a partially specified device is still physical; presets override all.
#include <memory>
#include <string>
#include <vector>

#include "stackscope/common/precision.hpp"

namespace stackscope::kernels {
struct Table;
}  // namespace stackscope::kernels

namespace stackscope::hw {

struct ComputeDie {
  int cores = 132;          // SMs / PEs on the die
  double clock_GHz = 1.83;  // sustained clock under load
  // Dense matrix-unit FLOP per cycle per core for each precision; 0 = not supported (the
  // evaluator then runs the op at the next wider supported precision).
  double matrix_flops_per_cycle_fp16 = 4096;  // also bf16
  double matrix_flops_per_cycle_fp8 = 8192;   // also int8
  double matrix_flops_per_cycle_fp4 = 0;
  double matrix_flops_per_cycle_fp32 = 0;  // 0 -> vector unit
  double vector_flops_per_cycle = 256;     // fp32 FLOP per cycle per core (FMA = 2)
  double sram_per_core_KiB = 228;          // scratchpad/L1 per core
  double sram_bw_bytes_per_cycle_per_core = 128;
  double shared_buffer_MiB = 50;  // on-die shared SRAM (L2 / global buffer)
  // Minimum matrix-instruction tile (rows x cols of the output) a core computes at a time;
  // smaller GEMMs are padded to it (tile quantisation).
  int mma_tile_m = 64;
  int mma_tile_n = 128;
  // Smallest N (output columns) one matrix instruction computes. A GEMM with fewer rows M than
  // mma_tile_m (decode: a few tokens) is run transposed, C^T = B^T A^T ("swap-AB", as
  // TensorRT-LLM's and CUTLASS's small-M Hopper kernels do), so its M is padded to mma_min_n
  // instead of mma_tile_m. 8 on Hopper/Ampere tensor cores (PTX ISA: wgmma m64nNk16 takes
  // N = 8..256 in steps of 8; mma.sync m16n8k16); a fixed MAC array that cannot take a narrower
  // operand keeps its own width. 0 = mma_tile_n (no transposed mapping is cheaper).
  int mma_min_n = 0;
  // Fixed time for the device's front end to start one kernel and retire it across the die
  // when the host is out of the loop (graph replay, an on-die sequencer), excluding the on-die
  // mesh barrier, which runtime::device_dispatch_s derives from the mesh. How often it is paid,
  // and whether a host launch comes on top, is the runtime profile's business (core/runtime):
  // kernel efficiencies, launch costs and KV re-reads are software, not silicon.
  double op_dispatch_ns = 500;
  double area_per_core_mm2 = 4.0;
  double die_area_mm2 = 814;
};

enum class MemoryKind { hbm, stacked_3d, sram_only };
enum class VerticalLinkKind { tsv, hybrid_bond };

// DRAM timing parameters in nanoseconds (published values: DRAMsim3 configs/*.ini, Ramulator2
// src/dram/impl/HBM*.cpp).
struct DramTiming {
  double tRCD_ns = 14;
  double tRP_ns = 14;
  double tRAS_ns = 34;
  double tFAW_ns = 30;
  double tRRD_ns = 4;
  double tREFI_ns = 3900;
  double tRFC_ns = 260;
  double tWTR_ns = 6;  // write-to-read turnaround
  double tCCD_ns = 2;  // column-to-column within a bank group
};

struct VerticalLink {
  VerticalLinkKind kind = VerticalLinkKind::tsv;
  double pitch_um = 40;
  double signal_fraction = 0.5;  // fraction of vertical links carrying data
  double gbps_per_link = 5.2;
  double energy_pJ_per_bit = 0.5;
  double keepout_um2 = 100;  // keep-out area per TSV
  // Power/ground links through the logic die for each DRAM layer, connected or not: every die
  // of the stack draws its supply current through the logic die's vertical field, so a taller
  // stack costs logic area even where its layers share one data link (0 = supply is counted
  // in signal_fraction only).
  double supply_links_per_layer = 0;
};

// One DRAM die of a stacked_3d stack as edited layer by layer (docs/model.md §4.8). A zero value
// takes the stack's uniform one, so a layer written as {} is exactly a layer of the uniform stack.
struct DramLayer {
  // Owns a vertical link; false: its channels share a connected die's link (round-robin, the
  // same rule as the uniform stack's k % layers_connected).
  bool connected = true;
  double thickness_um = 0;  // thinned die; 0 = the thermal stack's DRAM die (50 um)
  double capacity_GiB = 0;  // per stack; 0 = capacity_per_layer_GiB (or the bit-density value)
  double pitch_um = 0;      // this die's vertical links; 0 = vertical.pitch_um
};

// One memory system per device: 2.5D HBM stacks, 3D DRAM stacked on the logic die, or none
// (SRAM only, e.g. wafer-scale). Peak = stacks x layers_connected x channels_per_layer x
// bytes_per_transfer x transfers_per_clock x clock (docs/model.md §4.1).
struct Memory {
  MemoryKind kind = MemoryKind::hbm;
  int stacks = 5;
  int layers_total = 8;            // DRAM dies per stack
  int layers_connected = 8;        // dies with active vertical links (3D) / carrying channels (HBM)
  int channels_per_layer = 4;      // independent (pseudo-)channels per connected die
  int banks_per_channel = 16;      // per channel in each layer (die); a 3D link fronts T/C layers
  double bytes_per_transfer = 4;   // channel data width in bytes
  double transfers_per_clock = 2;  // DDR
  double clock_MHz = 2616;
  double row_bytes = 1024;       // page size per channel
  double sector_bytes = 32;      // minimum access granularity (burst)
  double cycles_per_sector = 4;  // memory clock cycles to transfer one sector
  DramTiming timing;
  double capacity_per_layer_GiB = 2;
  // DRAM bit density per layer; > 0 derives a stacked_3d layer's capacity from the die area
  // left after the vertical-link field (docs/model.md §4.7), overriding capacity_per_layer_GiB.
  double bit_density_Gb_per_mm2 = 0;
  double reserved_GiB = 0;             // not usable by the model (firmware, runtime, ECC)
  double round_trip_latency_ns = 400;  // load-to-use latency seen by a core (Little's law)
  double utilisation_cap = 0.9;        // achievable fraction of peak for ideal streams
  double energy_pJ_per_bit = 3.9;      // DRAM core + I/O per bit read or written
  VerticalLink vertical;               // used when kind == stacked_3d
  // Per-layer description of a stacked_3d stack, bottom die (bonded on the logic die) first.
  // Empty: the uniform stack above. Non-empty: it is the stack; layers_total must equal its size
  // and layers_connected its connected count (validate() reports a disagreement), and its
  // values replace the uniform ones where set (hw/stack_layers.hpp).
  std::vector<DramLayer> layers;
};

// Board power (docs/model.md §13.1-§13.2): idle power, a busy floor, energy per operation at the
// top of the DVFS range, and the voltage-frequency curve that scales the logic-die terms.
struct Energy {
  double pJ_per_flop_fp16 = 0.3;  // per dense matrix FLOP at the top clock and voltage
  double pJ_per_flop_fp8 = 0.16;
  double pJ_per_flop_fp4 = 0.09;
  double pJ_per_flop_fp32 = 1.0;
  double sram_pJ_per_byte = 1.0;
  double noc_pJ_per_bit_per_hop = 0.1;
  // On-die memory path per DRAM bit moved: PHY, memory controller, L2/crossbar and the core's
  // load/store path (the DRAM side is memory.energy_pJ_per_bit); scales with the logic voltage.
  double memory_path_pJ_per_bit = 0;
  double static_power_W = 100;  // idle: the whole device powered, clocks at their floor
  // Board power above static_power_W while kernels run at the top clock, before any work
  // (clock tree, leakage at the top voltage); scales as clock x voltage^2.
  double busy_power_W = 0;
  double tdp_W = 700;  // the power cap: a phase above it runs at the clock that meets it
  // Voltage-frequency curve: linear from (dvfs_min_clock, dvfs_min_voltage) to (1, 1), both
  // relative to the top of the range; equal values give V ~ f (the cubic law).
  double dvfs_min_clock = 0.2;
  double dvfs_min_voltage = 0.2;
  // The top of the DVFS range as the device reports it (nvidia-smi's max SM clock), for the
  // clock each phase is reported at; compute.clock_GHz stays the clock of the datasheet peak the
  // runtime efficiencies are relative to. 0 = compute.clock_GHz.
  double dvfs_top_clock_MHz = 0;
};

// Area of the parts of a die that are not cores (docs/model.md §13.3). Cores include their own
// SRAM.
struct Area {
  double sram_mm2_per_MiB = 0.35;  // shared buffer incl. periphery (5 nm-class high-density
                                   // bitcell 0.021 um^2 x 8.4 Mbit = 0.18 mm^2 raw, x ~2)
  double router_mm2 = 0.1;         // one NoC mesh router
  double memory_phy_mm2 = 11;      // per HBM stack interface (2.5D); 0 for stacked DRAM
  double io_phy_mm2 = 40;          // chip-to-chip / network PHYs
  double other_mm2 = 50;           // control, clocking, misc. uncore
  double reticle_mm2 = 858;        // 26 mm x 33 mm lithography field
  // true: the die holds as many cores as fit in the area the uncore, PHYs and vertical-link
  // field leave, at most compute.cores (DeepStack's area model: its max SM count per design
  // point), so more connected or taller DRAM layers leave fewer cores; false: compute.cores as
  // given, and a design that does not fit its die is infeasible.
  bool fit_cores = false;
};

// Where the compact model's resistances come from.
enum class CompactSource {
  fixed,     // r_base_K_per_W and r_layer_K_per_W as given (e.g. a measured package)
  geometry,  // fitted to core/thermal's grid solver for this die area and the HotSpot-default
             // package (thermal::geometry_compact_model); r_base/r_layer are ignored
};

// Compact thermal model for the search inner loop (docs/model.md §14.2): peak DRAM temperature =
// ambient + device power x (r_base + r_layer x DRAM layers). Defaults are DeepStack's
// 0.56 + 0.01 L K/W; core/thermal fits them to its grid solver.
struct Thermal {
  double ambient_C = 45;
  CompactSource compact = CompactSource::fixed;
  double r_base_K_per_W = 0.56;
  double r_layer_K_per_W = 0.01;
  // true: a stack whose DRAM would pass 95 C is throttled (logic clock and DRAM command rate
  // scaled together) until it sits at the limit; false: it is reported infeasible.
  bool throttle = true;
};

// On-die mesh (compute/noc.hpp models its traffic). The defaults describe the H100-like
// default device: a 1 x 1 "mesh" is the GPU's crossbar to L2, crossed once by every DRAM byte,
// at the L2 bandwidth 5120 B/clk (A100 whitepaper; none published for H100) x 1.83 GHz.
struct Noc {
  int mesh_x = 1;
  int mesh_y = 1;
  double link_GBps = 9370;    // per link and direction
  double hop_latency_ns = 2;  // per router
};

// One device (chip / package). `id` names the preset it came from.
struct Hardware {
  std::string id;
  std::string name;
  std::string source;  // where the numbers come from
  ComputeDie compute;
  Memory memory;
  Noc noc;
  Energy energy;
  Area area;
  Thermal thermal;
  double runtime_reserved_GiB = 0;  // framework/runtime workspace per device
  // Measured kernel times of this device (docs/model.md §3.5): `kernel_table` names them, a
  // built-in table's id ("h200": presets/kernels/h200.csv) or CSV files (a value with a '.' or
  // a '/', comma-separated, relative to the project file's folder), "" for none; core/io loads it
  // into `kernel_times` (null: none). Kernels the table covers take its interpolated time
  // instead of the roofline's; shared, never changed once set.
  std::string kernel_table;
  std::shared_ptr<const kernels::Table> kernel_times;
};

// ---- System network (parameters per level; core/network builds the model from them) ----
enum class Topology { switch_fabric, ring, mesh2d, torus2d, fully_connected };

// Level 0 is innermost (e.g. NVSwitch inside a node). `size` devices (or level-below units)
// form one group at this level; size 0 on the outermost level means "as many as needed".
// Outer levels are rail-style: the device with local index k in one unit links to the device
// with the same local index in the neighbouring units (or to the level's switch), so every
// device has its own port at every level (DGX NICs per GPU; DeepStack chip-to-chip links).
struct NetworkLevel {
  std::string name;
  Topology topology = Topology::switch_fabric;
  int size = 8;
  int dims_x = 0;  // mesh2d/torus2d shape (dims_x x dims_y == size); 0 = squarest
  int dims_y = 0;
  double link_GBps = 450;       // per link (mesh/torus/ring/fully connected) or per device port
                                // (switch), per direction
  double latency_us = 2.0;      // per algorithm step at this level (alpha: software + sync)
  double hop_latency_ns = 500;  // per link traversed (wire + router/switch)
  double efficiency = 0.82;     // achievable fraction of line rate (protocol overhead)
  double energy_pJ_per_bit = 5;
  bool in_network_reduction = false;    // switch-side reduction (e.g. NVLS)
  double in_network_efficiency = 0.61;  // achieved fraction of line rate of switch reductions
};

struct System {
  std::string id;
  std::string name;
  // Preset id of the device this system is built from (empty: any). Picking a system without
  // naming hardware (CLI --system, GUI) brings this device along.
  std::string hardware;
  int devices = 1;
  std::vector<NetworkLevel> levels;
};

}  // namespace stackscope::hw
