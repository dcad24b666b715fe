// SPDX-License-Identifier: GPL-3.0-or-later
// `collective`: one collective on a system network through the dual-stage model (docs/model.md §5):
// time, chosen algorithm, nccl-tests bus bandwidth and the per-link loads, optionally checked
// against the flow-level reference simulator.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <random>
#include <utility>

#include "commands.hpp"
#include "resolve.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/io/network_json.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/network/flow_sim.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::cli {
namespace {

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 40;  // 1 TiB per rank
constexpr double kGB = 1e9;  // bandwidths in decimal GB/s, as nccl-tests prints them
constexpr std::size_t kLinkRows = 10;

std::vector<OptionSpec> collective_options() {
  return {
      {"--system", "ID|FILE", "system network: system preset id or JSON file"},
      {"--op", "OP", "the collective (OP above)"},
      {"--bytes", "N", "per-rank buffer in bytes; suffix K, M, G = 2^10, 2^20, 2^30"},
      {"--group", "N", "ranks taking part (point_to_point: 2)"},
      {"--placement", "P", "contiguous (default) | strided:S | random:SEED (P above)"},
      {"--algorithm", "A", "auto (fastest applicable, default) or one algorithm (A above)"},
      {"--reference-sim", "", "also run the flow-level reference simulator and report the error"},
      {"--json", "", "print the result as JSON"},
      {"--help", "", "show this help"},
  };
}

constexpr std::array<network::Collective, 6> kOps = {
    network::Collective::all_reduce,     network::Collective::all_gather,
    network::Collective::reduce_scatter, network::Collective::all_to_all,
    network::Collective::broadcast,      network::Collective::point_to_point};

constexpr std::array<network::Algorithm, 8> kAlgorithms = {
    network::Algorithm::ring,     network::Algorithm::halving_doubling, network::Algorithm::tree,
    network::Algorithm::two_d,    network::Algorithm::hierarchical,     network::Algorithm::direct,
    network::Algorithm::pairwise, network::Algorithm::in_network};

template <class E, std::size_t N>
std::string names(const std::array<E, N>& values) {
  std::string s;
  for (E v : values) s += (s.empty() ? "" : ", ") + std::string(network::to_string(v));
  return s;
}

network::Collective parse_op(const std::string& text) {
  for (auto op : kOps)
    if (network::to_string(op) == text) return op;
  throw CliError("--op: unknown collective '" + text + "' (allowed: " + names(kOps) + ")");
}

network::Algorithm parse_algorithm(const std::string& text) {
  if (text == "auto") return network::Algorithm::automatic;
  for (auto a : kAlgorithms)
    if (network::to_string(a) == text) return a;
  throw CliError("--algorithm: unknown algorithm '" + text + "' (allowed: auto, " +
                 names(kAlgorithms) + ")");
}

// Device of each rank. random: a Fisher-Yates shuffle of all devices driven by mt19937_64
// directly (not std::shuffle, whose algorithm differs between standard libraries), so a seed
// names the same placement everywhere.
std::vector<int> place_ranks(const std::string& text, int group, int devices) {
  std::vector<int> ranks(static_cast<std::size_t>(group));
  const std::string allowed =
      "allowed: contiguous, strided:S with (group-1)*S < devices = " + std::to_string(devices) +
      ", random:SEED";
  if (text == "contiguous") {
    std::iota(ranks.begin(), ranks.end(), 0);
    return ranks;
  }
  if (text.rfind("strided:", 0) == 0) {
    const std::int64_t stride = parse_int("--placement strided", text.substr(8), 1, devices);
    if ((group - 1) * stride >= devices)
      throw CliError("--placement: stride " + std::to_string(stride) + " puts rank " +
                     std::to_string(group - 1) + " on device " +
                     std::to_string((group - 1) * stride) + " of " + std::to_string(devices) +
                     " (" + allowed + ")");
    for (int k = 0; k < group; ++k)
      ranks[static_cast<std::size_t>(k)] = static_cast<int>(k * stride);
    return ranks;
  }
  if (text.rfind("random:", 0) == 0) {
    const auto seed = static_cast<std::uint64_t>(parse_int(
        "--placement random", text.substr(7), 0, std::numeric_limits<std::int64_t>::max()));
    std::vector<int> all(static_cast<std::size_t>(devices));
    std::iota(all.begin(), all.end(), 0);
    std::mt19937_64 rng(seed);
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng() % i]);
    std::copy_n(all.begin(), group, ranks.begin());
    return ranks;
  }
  throw CliError("--placement: unknown placement '" + text + "' (" + allowed + ")");
}

// The system's own checks from perf::validate (level shapes, sizes, rates), so a bad system
// file is reported by path before network::Topology would refuse it.
void validate_system(const hw::System& system, const std::string& arg) {
  perf::Design d;
  d.system = system;
  std::vector<std::string> lines;
  for (const auto& issue : perf::validate(d))
    if (issue.path.rfind("/system", 0) == 0)
      lines.push_back("--system '" + arg + "': " + format_issue(issue));
  if (!lines.empty()) throw CliError(std::move(lines));
}

struct LinkRow {
  int id = 0;
  double bytes = 0;
  double busy_s = 0;
};

std::string level_name(const hw::System& s, int level) {
  if (level < 0 || static_cast<std::size_t>(level) >= s.levels.size()) return "?";
  const auto& name = s.levels[static_cast<std::size_t>(level)].name;
  return name.empty() ? "level " + std::to_string(level) : name;
}

std::string size_text(double bytes) {
  static constexpr std::array<const char*, 4> kUnits = {"B", "KiB", "MiB", "GiB"};
  std::size_t u = 0;
  while (u + 1 < kUnits.size() && bytes >= 1024.0) {
    bytes /= 1024.0;
    ++u;
  }
  return (bytes == std::floor(bytes) ? fixed(bytes, 0) : readable(bytes)) + " " + kUnits[u];
}

// Seconds in a unit that keeps the digits readable (collectives span ns to s): {value, unit}.
std::pair<std::string, std::string> time_text(double s) {
  if (s >= 1) return {readable(s), "s"};
  if (s >= 1e-3) return {readable(s * 1e3), "ms"};
  return {readable(s * 1e6), "us"};
}

// Signed percentage; rounding noise around zero prints as 0.00 rather than -0.00.
std::string percent_text(double fraction) {
  const double p = 100.0 * fraction;
  if (std::fabs(p) < 0.005) return "0.00";
  return (p > 0 ? "+" : "") + fixed(p, 2);
}

int run_collective(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = collective_options();
  const ParsedArgs a = parse_args("collective", args, options, 0);
  if (a.has("--help")) {
    print_command_help(make_collective_command(), ctx.out);
    return kExitOk;
  }
  for (const char* required : {"--system", "--op", "--bytes", "--group"})
    if (!a.has(required))
      throw CliError(std::string("collective: ") + required +
                     " is required (usage: collective --system ID|FILE --op OP --bytes N "
                     "--group N)");
  const std::string system_arg = *a.get("--system");
  const network::Collective op = parse_op(*a.get("--op"));
  const std::int64_t bytes = parse_bytes("--bytes", *a.get("--bytes"), 1, kMaxBytes);
  const network::Algorithm requested = parse_algorithm(a.get("--algorithm").value_or("auto"));
  const std::string placement = a.get("--placement").value_or("contiguous");

  const hw::System system = resolve("--system", system_arg, [&](const std::string& s) {
    return io::resolve_system(s, ctx.presets);
  });
  validate_system(system, system_arg);
  const int group = static_cast<int>(parse_int("--group", *a.get("--group"), 2, 1'000'000));
  if (group > system.devices)
    throw CliError("--group: " + std::to_string(group) + " ranks but system '" + system.id +
                   "' has " + std::to_string(system.devices) + " devices (allowed: integer 2.." +
                   std::to_string(system.devices) + ")");
  if (op == network::Collective::point_to_point && group != 2)
    throw CliError("--group: point_to_point runs between 2 ranks, got " + std::to_string(group) +
                   " (allowed: 2)");
  const std::vector<int> ranks = place_ranks(placement, group, system.devices);

  network::NetworkModel model(system);
  network::CollectiveRequest request;
  request.op = op;
  request.bytes = static_cast<double>(bytes);
  request.ranks = ranks;
  request.algorithm = requested;
  network::LinkLoads loads;
  const network::CollectiveCost cost = model.cost(request, &loads);
  // The model falls back to the fastest algorithm when the requested one cannot run here.
  if (requested != network::Algorithm::automatic && cost.algorithm != requested) {
    std::string usable;
    for (auto alg : kAlgorithms) {
      network::CollectiveRequest probe = request;
      probe.algorithm = alg;
      if (model.cost(probe).algorithm == alg)
        usable += (usable.empty() ? "" : ", ") + std::string(network::to_string(alg));
    }
    throw CliError("--algorithm: " + std::string(network::to_string(requested)) + " cannot run " +
                   std::string(network::to_string(op)) + " on these " + std::to_string(group) +
                   " ranks of '" + system.id + "' (allowed here: auto" +
                   (usable.empty() ? "" : ", " + usable) + ")");
  }

  const auto& topo = model.topology();
  std::vector<LinkRow> rows;
  for (std::size_t id = 0; id < loads.bytes.size(); ++id) {
    if (loads.bytes[id] <= 0) continue;
    const auto& link = topo.links()[id];
    rows.push_back({static_cast<int>(id), loads.bytes[id],
                    link.bw_Bps > 0 ? loads.bytes[id] / link.bw_Bps : 0.0});
  }
  // Busiest (longest busy) first; ties keep link order so the output is deterministic.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LinkRow& x, const LinkRow& y) { return x.busy_s > y.busy_s; });
  const double time = cost.time_s;
  const auto utilisation = [&](const LinkRow& r) { return time > 0 ? r.busy_s / time : 0.0; };
  const double alg_GBps = time > 0 ? static_cast<double>(bytes) / time / kGB : 0.0;
  const double bus_GBps = alg_GBps * network::bus_bandwidth_factor(op, group);

  double reference_s = 0;
  if (a.has("--reference-sim"))
    reference_s = network::simulate(topo, model.schedule(request, cost.algorithm)).time_s;
  const double reference_error = reference_s > 0 ? time / reference_s - 1.0 : 0.0;

  if (a.has("--json")) {
    io::CollectiveReport r;
    r.system = system.id;
    r.op = network::to_string(op);
    r.bytes = bytes;
    r.group = group;
    r.placement = placement;
    r.ranks = ranks;
    r.time_s = time;
    r.algorithm = network::to_string(cost.algorithm);
    r.bus_GBps = bus_GBps;
    r.alg_GBps = alg_GBps;
    r.steps = cost.steps;
    for (const auto& row : rows) {
      const auto& link = topo.links()[static_cast<std::size_t>(row.id)];
      r.links.push_back({topo.node_name(link.src), topo.node_name(link.dst), link.level,
                         level_name(system, link.level), row.bytes, utilisation(row)});
    }
    r.idle_links = topo.links().size() - rows.size();
    if (a.has("--reference-sim")) r.reference_time_s = reference_s;
    ctx.out << io::collective_json(r) << "\n";
    return kExitOk;
  }

  ctx.out << "collective  " << network::to_string(op) << " of "
          << size_text(static_cast<double>(bytes)) << " per rank over " << group << " ranks ("
          << placement << ")\n"
          << "system      " << system.name << " (" << system.id << "), " << system.devices
          << " devices\n\n";
  Table t({"quantity", "value", "unit"}, "lrl");
  const auto [time_value, time_unit] = time_text(time);
  t.row({"time", time_value, time_unit});
  t.row({"algorithm",
         std::string(network::to_string(cost.algorithm)) +
             (requested == network::Algorithm::automatic ? " (fastest)" : ""),
         ""});
  t.row({"steps", std::to_string(cost.steps), ""});
  t.row({"bus bandwidth (nccl-tests)", readable(bus_GBps), "GB/s"});
  t.row({"algorithm bandwidth", readable(alg_GBps), "GB/s"});
  if (a.has("--reference-sim")) {
    const auto [ref_value, ref_unit] = time_text(reference_s);
    t.row({"reference simulator time", ref_value, ref_unit});
    t.row({"analytic error vs reference",
           reference_s > 0 ? percent_text(reference_error) : std::string("-"),
           reference_s > 0 ? "%" : ""});
  }
  ctx.out << t.str();
  ctx.out << "\nbusiest links (" << rows.size() << " of " << topo.links().size()
          << " directed links carry traffic";
  if (rows.size() > kLinkRows) ctx.out << "; top " << kLinkRows << " shown, --json lists all";
  ctx.out << ")\n";
  if (rows.empty()) return kExitOk;
  Table l({"from", "to", "level", "MB", "util %"}, "lll");
  for (std::size_t i = 0; i < rows.size() && i < kLinkRows; ++i) {
    const auto& link = topo.links()[static_cast<std::size_t>(rows[i].id)];
    l.row({topo.node_name(link.src), topo.node_name(link.dst), level_name(system, link.level),
           readable(rows[i].bytes / 1e6), fixed(100.0 * utilisation(rows[i]), 1)});
  }
  ctx.out << l.str();
  return kExitOk;
}

}  // namespace

Command make_collective_command() {
  Command c;
  c.name = "collective";
  c.synopsis =
      "collective --system ID|FILE --op OP --bytes N --group N [--placement P] "
      "[--algorithm A] [--reference-sim] [--json]";
  c.summary = "one collective on a system network: time, algorithm, bus bandwidth, link loads";
  c.description =
      "Costs one collective with the dual-stage network model: stage 1 expands it into\n"
      "algorithm steps, stage 2 routes every flow over the system's links and takes the\n"
      "bottleneck link per step. With --algorithm auto the fastest applicable algorithm is\n"
      "chosen. bus_GBps follows nccl-tests (algBW = bytes / time; all_reduce busBW = algBW x\n"
      "2(n-1)/n; all_gather, reduce_scatter, all_to_all x (n-1)/n). A link's utilisation is\n"
      "its busy time (bytes / bandwidth) over the collective's time. --reference-sim replays\n"
      "the same flows on the flow-level simulator (max-min fair sharing) and reports the\n"
      "analytic model's error (reference_error = time / reference - 1).\n\n"
      "OP  all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, point_to_point\n"
      "A   ring, halving_doubling, tree, two_d, hierarchical, direct, pairwise, in_network\n"
      "P   contiguous: devices 0..N-1; strided:S: devices 0, S, 2S, ...; random:SEED: the\n"
      "    first N devices of a seeded shuffle (mt19937_64) of all devices";
  c.options = collective_options();
  c.run = run_collective;
  return c;
}

}  // namespace stackscope::cli
