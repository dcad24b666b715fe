// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to core/io: the one table of JSON keys per config struct. Keys are exactly the member
// names. describe() is used for both reading and writing, so the two cannot drift apart; a
// member added to a shared struct must be added here (tests/io checks the member counts).
#include <array>
#include <utility>

#include "json_detail.hpp"
#include "stackscope/hw/hardware.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::io::detail {

// Matches T and const T, so one describe() serves the reader (mutable) and the writer (const).
template <class S, class T>
concept Is = std::same_as<std::remove_const_t<S>, T>;

template <>
struct EnumTable<Precision> {
  static constexpr std::string_view what = "precision";
  static constexpr std::array<std::pair<Precision, std::string_view>, 6> entries{{
      {Precision::fp32, "fp32"},
      {Precision::fp16, "fp16"},
      {Precision::bf16, "bf16"},
      {Precision::fp8, "fp8"},
      {Precision::int8, "int8"},
      {Precision::fp4, "fp4"},
  }};
};

template <>
struct EnumTable<hw::MemoryKind> {
  static constexpr std::string_view what = "memory kind";
  static constexpr std::array<std::pair<hw::MemoryKind, std::string_view>, 3> entries{{
      {hw::MemoryKind::hbm, "hbm"},
      {hw::MemoryKind::stacked_3d, "stacked_3d"},
      {hw::MemoryKind::sram_only, "sram_only"},
  }};
};

template <>
struct EnumTable<hw::CompactSource> {
  static constexpr std::string_view what = "compact thermal source";
  static constexpr std::array<std::pair<hw::CompactSource, std::string_view>, 2> entries{{
      {hw::CompactSource::fixed, "fixed"},
      {hw::CompactSource::geometry, "geometry"},
  }};
};

template <>
struct EnumTable<hw::VerticalLinkKind> {
  static constexpr std::string_view what = "vertical link kind";
  static constexpr std::array<std::pair<hw::VerticalLinkKind, std::string_view>, 2> entries{{
      {hw::VerticalLinkKind::tsv, "tsv"},
      {hw::VerticalLinkKind::hybrid_bond, "hybrid_bond"},
  }};
};

// Topology::switch_fabric is spelled "switch" in files (`switch` is a C++ keyword).
template <>
struct EnumTable<hw::Topology> {
  static constexpr std::string_view what = "topology";
  static constexpr std::array<std::pair<hw::Topology, std::string_view>, 5> entries{{
      {hw::Topology::switch_fabric, "switch"},
      {hw::Topology::ring, "ring"},
      {hw::Topology::mesh2d, "mesh2d"},
      {hw::Topology::torus2d, "torus2d"},
      {hw::Topology::fully_connected, "fully_connected"},
  }};
};

template <>
struct EnumTable<hw::WaferDram> {
  static constexpr std::string_view what = "wafer DRAM attachment";
  static constexpr std::array<std::pair<hw::WaferDram, std::string_view>, 3> entries{{
      {hw::WaferDram::none, "none"},
      {hw::WaferDram::edge, "edge"},
      {hw::WaferDram::stacked, "stacked"},
  }};
};

// Overlap::auto_tiles is spelled "auto" in files (`auto` is a C++ keyword).
template <>
struct EnumTable<runtime::DeviceClass> {
  static constexpr std::string_view what = "device class";
  static constexpr std::array<std::pair<runtime::DeviceClass, std::string_view>, 3> entries{{
      {runtime::DeviceClass::gpu, "gpu"},
      {runtime::DeviceClass::accelerator, "accelerator"},
      {runtime::DeviceClass::any, "any"},
  }};
};

template <>
struct EnumTable<parallel::Overlap> {
  static constexpr std::string_view what = "overlap mode";
  static constexpr std::array<std::pair<parallel::Overlap, std::string_view>, 3> entries{{
      {parallel::Overlap::off, "off"},
      {parallel::Overlap::fixed, "fixed"},
      {parallel::Overlap::auto_tiles, "auto"},
  }};
};

template <>
struct EnumTable<parallel::ExpertStrategy> {
  static constexpr std::string_view what = "expert placement strategy";
  static constexpr std::array<std::pair<parallel::ExpertStrategy, std::string_view>, 8> entries{{
      {parallel::ExpertStrategy::plan, "plan"},
      {parallel::ExpertStrategy::tp, "tp"},
      {parallel::ExpertStrategy::ep, "ep"},
      {parallel::ExpertStrategy::eplb, "eplb"},
      {parallel::ExpertStrategy::balanced, "balanced"},
      {parallel::ExpertStrategy::hd, "hd"},
      {parallel::ExpertStrategy::hd_dynamic, "hd-dynamic"},
      {parallel::ExpertStrategy::shadow, "shadow"},
  }};
};

template <>
struct EnumTable<workload::AttentionKind> {
  static constexpr std::string_view what = "attention kind";
  static constexpr std::array<std::pair<workload::AttentionKind, std::string_view>, 3> entries{{
      {workload::AttentionKind::mha, "mha"},
      {workload::AttentionKind::gqa, "gqa"},
      {workload::AttentionKind::mla, "mla"},
  }};
};

template <>
struct EnumTable<workload::FfnKind> {
  static constexpr std::string_view what = "ffn kind";
  static constexpr std::array<std::pair<workload::FfnKind, std::string_view>, 2> entries{{
      {workload::FfnKind::swiglu, "swiglu"},
      {workload::FfnKind::gelu, "gelu"},
  }};
};

template <>
struct EnumTable<workload::RoutingKind> {
  static constexpr std::string_view what = "routing kind";
  static constexpr std::array<std::pair<workload::RoutingKind, std::string_view>, 4> entries{{
      {workload::RoutingKind::uniform, "uniform"},
      {workload::RoutingKind::zipf, "zipf"},
      {workload::RoutingKind::dirichlet, "dirichlet"},
      {workload::RoutingKind::trace, "trace"},
  }};
};

template <class V, Is<hw::ComputeDie> S>
void describe(V& v, S& c) {
  v("cores", c.cores);
  v("clock_GHz", c.clock_GHz);
  v("matrix_flops_per_cycle_fp16", c.matrix_flops_per_cycle_fp16);
  v("matrix_flops_per_cycle_fp8", c.matrix_flops_per_cycle_fp8);
  v("matrix_flops_per_cycle_fp4", c.matrix_flops_per_cycle_fp4);
  v("matrix_flops_per_cycle_fp32", c.matrix_flops_per_cycle_fp32);
  v("vector_flops_per_cycle", c.vector_flops_per_cycle);
  v("sram_per_core_KiB", c.sram_per_core_KiB);
  v("sram_bw_bytes_per_cycle_per_core", c.sram_bw_bytes_per_cycle_per_core);
  v("shared_buffer_MiB", c.shared_buffer_MiB);
  v("mma_tile_m", c.mma_tile_m);
  v("mma_tile_n", c.mma_tile_n);
  v("mma_min_n", c.mma_min_n);
  v("op_dispatch_ns", c.op_dispatch_ns);
  v("area_per_core_mm2", c.area_per_core_mm2);
  v("die_area_mm2", c.die_area_mm2);
}

template <class V, Is<hw::DramTiming> S>
void describe(V& v, S& t) {
  v("tRCD_ns", t.tRCD_ns);
  v("tRP_ns", t.tRP_ns);
  v("tRAS_ns", t.tRAS_ns);
  v("tFAW_ns", t.tFAW_ns);
  v("tRRD_ns", t.tRRD_ns);
  v("tREFI_ns", t.tREFI_ns);
  v("tRFC_ns", t.tRFC_ns);
  v("tWTR_ns", t.tWTR_ns);
  v("tCCD_ns", t.tCCD_ns);
}

template <class V, Is<hw::VerticalLink> S>
void describe(V& v, S& l) {
  v("kind", l.kind);
  v("pitch_um", l.pitch_um);
  v("signal_fraction", l.signal_fraction);
  v("gbps_per_link", l.gbps_per_link);
  v("energy_pJ_per_bit", l.energy_pJ_per_bit);
  v("keepout_um2", l.keepout_um2);
  v("supply_links_per_layer", l.supply_links_per_layer);
}

template <class V, Is<hw::DramLayer> S>
void describe(V& v, S& l) {
  v("connected", l.connected);
  v("thickness_um", l.thickness_um);
  v("capacity_GiB", l.capacity_GiB);
  v("pitch_um", l.pitch_um);
}

template <class V, Is<hw::Memory> S>
void describe(V& v, S& m) {
  v("kind", m.kind);
  v("stacks", m.stacks);
  v("layers_total", m.layers_total);
  v("layers_connected", m.layers_connected);
  v("channels_per_layer", m.channels_per_layer);
  v("banks_per_channel", m.banks_per_channel);
  v("bytes_per_transfer", m.bytes_per_transfer);
  v("transfers_per_clock", m.transfers_per_clock);
  v("clock_MHz", m.clock_MHz);
  v("row_bytes", m.row_bytes);
  v("sector_bytes", m.sector_bytes);
  v("cycles_per_sector", m.cycles_per_sector);
  v("timing", m.timing);
  v("capacity_per_layer_GiB", m.capacity_per_layer_GiB);
  v("bit_density_Gb_per_mm2", m.bit_density_Gb_per_mm2);
  v("reserved_GiB", m.reserved_GiB);
  v("round_trip_latency_ns", m.round_trip_latency_ns);
  v("utilisation_cap", m.utilisation_cap);
  v("energy_pJ_per_bit", m.energy_pJ_per_bit);
  v("vertical", m.vertical);
  // Only a per-layer stack writes "layers": a uniform stack's file is unchanged.
  if constexpr (std::is_same_v<V, ObjectWriter>) {
    if (!m.layers.empty()) v("layers", m.layers);
  } else {
    v("layers", m.layers);
  }
}

template <class V, Is<hw::Energy> S>
void describe(V& v, S& e) {
  v("pJ_per_flop_fp16", e.pJ_per_flop_fp16);
  v("pJ_per_flop_fp8", e.pJ_per_flop_fp8);
  v("pJ_per_flop_fp4", e.pJ_per_flop_fp4);
  v("pJ_per_flop_fp32", e.pJ_per_flop_fp32);
  v("sram_pJ_per_byte", e.sram_pJ_per_byte);
  v("noc_pJ_per_bit_per_hop", e.noc_pJ_per_bit_per_hop);
  v("memory_path_pJ_per_bit", e.memory_path_pJ_per_bit);
  v("static_power_W", e.static_power_W);
  v("busy_power_W", e.busy_power_W);
  v("tdp_W", e.tdp_W);
  v("dvfs_min_clock", e.dvfs_min_clock);
  v("dvfs_min_voltage", e.dvfs_min_voltage);
  v("dvfs_top_clock_MHz", e.dvfs_top_clock_MHz);
}

template <class V, Is<hw::Thermal> S>
void describe(V& v, S& t) {
  v("ambient_C", t.ambient_C);
  v("compact", t.compact);
  v("r_base_K_per_W", t.r_base_K_per_W);
  v("r_layer_K_per_W", t.r_layer_K_per_W);
  v("throttle", t.throttle);
}

template <class V, Is<hw::Area> S>
void describe(V& v, S& a) {
  v("sram_mm2_per_MiB", a.sram_mm2_per_MiB);
  v("router_mm2", a.router_mm2);
  v("memory_phy_mm2", a.memory_phy_mm2);
  v("io_phy_mm2", a.io_phy_mm2);
  v("other_mm2", a.other_mm2);
  v("reticle_mm2", a.reticle_mm2);
  v("fit_cores", a.fit_cores);
}

template <class V, Is<hw::Noc> S>
void describe(V& v, S& n) {
  v("mesh_x", n.mesh_x);
  v("mesh_y", n.mesh_y);
  v("link_GBps", n.link_GBps);
  v("hop_latency_ns", n.hop_latency_ns);
}

template <class V, Is<hw::Hardware> S>
void describe(V& v, S& h) {
  v("id", h.id);
  v("name", h.name);
  v("source", h.source);
  v("compute", h.compute);
  v("memory", h.memory);
  v("noc", h.noc);
  v("energy", h.energy);
  v("area", h.area);
  v("thermal", h.thermal);
  v("runtime_reserved_GiB", h.runtime_reserved_GiB);
  v("kernel_table", h.kernel_table);
}

template <class V, Is<runtime::Profile> S>
void describe(V& v, S& p) {
  v("id", p.id);
  v("name", p.name);
  v("source", p.source);
  v("device_class", p.device_class);
  v("matmul_efficiency", p.matmul_efficiency);
  v("matmul_efficiency_fp4", p.matmul_efficiency_fp4);
  v("attention_efficiency", p.attention_efficiency);
  v("decode_kv_reread_fraction", p.decode_kv_reread_fraction);
  v("kernels_per_op", p.kernels_per_op);
  v("graph_capture", p.graph_capture);
  v("host_launch_us", p.host_launch_us);
  v("eager_launch_us", p.eager_launch_us);
  v("kernel_gap_us", p.kernel_gap_us);
  v("collective_is_kernel", p.collective_is_kernel);
  v("iteration_overhead_us", p.iteration_overhead_us);
  v("request_latency_us", p.request_latency_us);
  v("memory_reserved_GiB", p.memory_reserved_GiB);
  v("mixed_iteration_efficiency", p.mixed_iteration_efficiency);
  v("elementwise_traffic", p.elementwise_traffic);
  v("decode_attention_split_kv", p.decode_attention_split_kv);
}

template <class V, Is<hw::NetworkLevel> S>
void describe(V& v, S& l) {
  v("name", l.name);
  v("topology", l.topology);
  v("size", l.size);
  v("dims_x", l.dims_x);
  v("dims_y", l.dims_y);
  v("link_GBps", l.link_GBps);
  v("latency_us", l.latency_us);
  v("hop_latency_ns", l.hop_latency_ns);
  v("efficiency", l.efficiency);
  v("energy_pJ_per_bit", l.energy_pJ_per_bit);
  v("in_network_reduction", l.in_network_reduction);
  v("in_network_efficiency", l.in_network_efficiency);
}

template <class V, Is<hw::System> S>
void describe(V& v, S& s) {
  v("id", s.id);
  v("name", s.name);
  v("hardware", s.hardware);
  v("devices", s.devices);
  v("levels", s.levels);
}

template <class V, Is<hw::Wafer> S>
void describe(V& v, S& w) {
  v("id", w.id);
  v("name", w.name);
  v("source", w.source);
  v("usable_area_mm2", w.usable_area_mm2);
  v("die_width_mm", w.die_width_mm);
  v("die_height_mm", w.die_height_mm);
  v("dies_x", w.dies_x);
  v("dies_y", w.dies_y);
  v("spare_dies", w.spare_dies);
  v("defect_density_per_cm2", w.defect_density_per_cm2);
  v("compute_fraction", w.compute_fraction);
  v("sram_fraction", w.sram_fraction);
  v("d2d_GBps", w.d2d_GBps);
  v("d2d_shoreline_GBps_per_mm", w.d2d_shoreline_GBps_per_mm);
  v("d2d_phy_depth_mm", w.d2d_phy_depth_mm);
  v("d2d_hop_latency_ns", w.d2d_hop_latency_ns);
  v("d2d_message_latency_us", w.d2d_message_latency_us);
  v("d2d_pJ_per_bit", w.d2d_pJ_per_bit);
  v("d2d_efficiency", w.d2d_efficiency);
  v("dram", w.dram);
  v("dram_GB", w.dram_GB);
  v("dram_GBps", w.dram_GBps);
  v("dram_latency_ns", w.dram_latency_ns);
  v("dram_pJ_per_bit", w.dram_pJ_per_bit);
  v("dram_footprint_mm2_per_GB", w.dram_footprint_mm2_per_GB);
  v("dram_phy_mm2_per_TBps", w.dram_phy_mm2_per_TBps);
  v("power_limit_W_per_die", w.power_limit_W_per_die);
  v("cooling_W_per_mm2", w.cooling_W_per_mm2);
}

template <class V, Is<workload::Mla> S>
void describe(V& v, S& m) {
  v("q_lora_rank", m.q_lora_rank);
  v("kv_lora_rank", m.kv_lora_rank);
  v("qk_nope_head_dim", m.qk_nope_head_dim);
  v("qk_rope_head_dim", m.qk_rope_head_dim);
  v("v_head_dim", m.v_head_dim);
}

template <class V, Is<workload::Moe> S>
void describe(V& v, S& m) {
  v("experts", m.experts);
  v("top_k", m.top_k);
  v("shared_experts", m.shared_experts);
  v("expert_ffn_dim", m.expert_ffn_dim);
  v("shared_expert_ffn_dim", m.shared_expert_ffn_dim);
  v("first_dense_layers", m.first_dense_layers);
}

template <class V, Is<workload::Model> S>
void describe(V& v, S& m) {
  v("id", m.id);
  v("name", m.name);
  v("source", m.source);
  v("layers", m.layers);
  v("hidden", m.hidden);
  v("heads", m.heads);
  v("kv_heads", m.kv_heads);
  v("head_dim", m.head_dim);
  v("ffn_dim", m.ffn_dim);
  v("vocab", m.vocab);
  v("attention", m.attention);
  v("ffn", m.ffn);
  v("parallel_attention", m.parallel_attention);
  v("tied_embeddings", m.tied_embeddings);
  v("max_context_tokens", m.max_context_tokens);
  v("sliding_window", m.sliding_window);
  v("full_attention_interval", m.full_attention_interval);
  v("mla", m.mla);
  v("moe", m.moe);
}

// expert_frequency is derived data (loaded from `trace`), never read from or written to JSON.
template <class V, Is<workload::Routing> S>
void describe(V& v, S& r) {
  v("kind", r.kind);
  v("zipf_s", r.zipf_s);
  v("dirichlet_alpha", r.dirichlet_alpha);
  v("seed", r.seed);
  v("trace", r.trace);
}

template <class V, Is<workload::Numerics> S>
void describe(V& v, S& n) {
  v("weights", n.weights);
  v("activations", n.activations);
  v("kv_cache", n.kv_cache);
}

template <class V, Is<workload::Workload> S>
void describe(V& v, S& w) {
  v("batch", w.batch);
  v("batch_auto", w.batch_auto);
  v("input_len", w.input_len);
  v("output_len", w.output_len);
  v("numerics", w.numerics);
  v("routing", w.routing);
}

template <class V, Is<parallel::ModulePlan> S>
void describe(V& v, S& m) {
  v("tp", m.tp);
  v("ep", m.ep);
}

template <class V, Is<parallel::ExpertPlacement> S>
void describe(V& v, S& e) {
  v("strategy", e.strategy);
  v("eplb_groups", e.eplb_groups);
  v("hd_time_limit_s", e.hd_time_limit_s);
  v("hd_max_sets", e.hd_max_sets);
  v("link_iterations", e.link_iterations);
  v("fit_tokens", e.fit_tokens);
  v("seed", e.seed);
}

template <class V, Is<parallel::Plan> S>
void describe(V& v, S& p) {
  v("tp", p.tp);
  v("pp", p.pp);
  v("dp", p.dp);
  v("ep", p.ep);
  v("cp", p.cp);
  v("sequence_parallel", p.sequence_parallel);
  v("micro_batches", p.micro_batches);
  v("placement", p.placement);
  v("attention", p.attention);
  v("dense_ffn", p.dense_ffn);
  v("moe", p.moe);
  v("redundant_experts_per_rank", p.redundant_experts_per_rank);
  v("experts", p.experts);
  v("overlap", p.overlap);
  v("overlap_tiles", p.overlap_tiles);
}

template <class T>
void ObjectReader::operator()(std::string_view key, T& member) {
  known_.emplace_back(key);
  auto it = object_.find(std::string(key));
  if (it != object_.end()) read_value(*it, child_path(path_, key), member, issues_);
}

template <class T>
void ObjectWriter::operator()(std::string_view key, const T& member) {
  object[std::string(key)] = write_value(member);
}

template <Described T>
void read_value(const Json& j, const std::string& path, T& out, Issues& issues) {
  if (!j.is_object()) {
    issues.push_back({path, "expected object, got " + type_text(j), value_text(j), "object"});
    return;
  }
  ObjectReader reader(j, path, issues);
  describe(reader, out);
  reader.finish();
}

template <Described T>
void read_value(const Json& j, const std::string& path, std::vector<T>& out, Issues& issues) {
  if (!j.is_array()) {
    issues.push_back({path, "expected array, got " + type_text(j), value_text(j), "array"});
    return;
  }
  std::vector<T> items(j.size());
  for (std::size_t i = 0; i < j.size(); ++i)
    read_value(j[i], child_path(path, i), items[i], issues);
  out = std::move(items);
}

template <Described T>
Json write_value(const T& v) {
  ObjectWriter writer;
  describe(writer, v);
  return std::move(writer.object);
}

template <Described T>
Json write_value(const std::vector<T>& v) {
  Json a = Json::array();
  for (const auto& item : v) a.push_back(write_value(item));
  return a;
}

// Reads `j` (an object) into a default-constructed T. `extra_keys` are accepted and ignored.
template <Described T>
T read_object(const Json& j, const std::string& path, Issues& issues,
              std::initializer_list<std::string_view> extra_keys = {}) {
  T out{};
  if (!j.is_object()) {
    issues.push_back({path, "expected object, got " + type_text(j), value_text(j), "object"});
    return out;
  }
  ObjectReader reader(j, path, issues);
  reader.allow(extra_keys);
  describe(reader, out);
  reader.finish();
  return out;
}

}  // namespace stackscope::io::detail
