// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan_hint.hpp"

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "stackscope/common/issue.hpp"

#include "stackscope/perf/limits.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::cli {
namespace {

std::string n(std::int64_t v) {
  return std::to_string(v);
}

// A plan of the other reading, and what still stands against it.
struct Variant {
  std::string flags;           // e.g. "--tp 8 --moe-tp 1 --moe-ep 8"
  std::string what;            // e.g. "attention tp 8; MoE tp 1 x ep 8"
  std::optional<Issue> other;  // the first problem that is not the plan's (e.g. memory)
};

// The design with the plan replaced, on `devices`; nullopt if the plan itself is invalid
// (an issue under /parallel or /system), else the first remaining issue, if any.
std::optional<Variant> variant(perf::Design d, int tp, int ep, int moe_tp, int moe_ep,
                               std::int64_t devices, std::string flags, std::string what) {
  d.parallel.tp = tp;
  d.parallel.ep = ep;
  d.parallel.moe.tp = moe_tp;
  d.parallel.moe.ep = moe_ep;
  d.system.devices = static_cast<int>(devices);
  Variant v{std::move(flags), std::move(what), std::nullopt};
  for (const Issue& issue : perf::validate(d)) {
    if (issue.path.starts_with("/parallel") || issue.path.starts_with("/system"))
      return std::nullopt;
    if (!v.other) v.other = issue;
  }
  return v;
}

std::string line(const Variant& v) {
  std::string s = "note:   " + v.flags + "   (" + v.what + ")\n";
  if (v.other)
    s += "note:     but that design is refused too: " + v.other->path + ": " + v.other->message +
         "\n";
  return s;
}

}  // namespace

std::optional<std::string> plan_convention_hint(const perf::Design& design,
                                                const ParsedArgs& args) {
  const auto& p = design.parallel;
  if (!args.has("--tp") || !args.has("--ep") || args.has("--moe-tp") || args.has("--moe-ep") ||
      design.model.moe.experts == 0 || p.tp <= 1 || p.ep <= 1)
    return std::nullopt;
  // Saturating products: each degree is at most 2^16 (parse_int), five of them exceed 64 bits.
  const auto product = [](std::initializer_list<int> degrees) {
    constexpr std::int64_t cap = perf::limits::kMaxDevices + 1;
    std::int64_t v = 1;
    for (const int d : degrees) v = d > 0 && v <= cap / d ? v * d : cap;
    return v;
  };
  const std::int64_t ours = product({p.tp, p.pp, p.dp, p.ep, p.cp});
  const std::int64_t theirs = product({p.tp, p.pp, p.dp, p.cp});
  const std::int64_t devices = design.system.devices;
  // Without --devices or --system the system grew to our plan's device count.
  const bool resized = devices == ours && !args.has("--devices") && !args.has("--system");
  if (!resized && devices != theirs) return std::nullopt;
  if (theirs > perf::limits::kMaxDevices) return std::nullopt;  // no design that large is valid

  std::string s =
      "note: in StackScope --tp, --pp, --dp, --ep and --cp are separate dimensions: "
      "devices = tp x pp x dp x ep x cp = " +
      n(p.tp) + " x " + n(p.pp) + " x " + n(p.dp) + " x " + n(p.ep) + " x " + n(p.cp) + " = " +
      n(ours);
  s += resized ? ", so this run uses " + n(ours) + " devices\n"
               : ", but the system has " + n(devices) + "\n";
  s += "note: TensorRT-LLM's --tp_size " + n(p.tp) + " --ep_size " + n(p.ep) +
       " (and vLLM's --tensor-parallel-size " + n(p.tp) +
       " --enable-expert-parallel) mean attention TP " + n(p.tp) +
       " with the experts spread over the same devices (MoE tp x MoE ep = tp)";
  std::optional<Variant> shard, attention_dp;
  if (p.tp % p.ep == 0)
    shard = variant(design, p.tp, 1, p.tp / p.ep, p.ep, theirs,
                    "--tp " + n(p.tp) + " --moe-tp " + n(p.tp / p.ep) + " --moe-ep " + n(p.ep) +
                        " instead of --tp " + n(p.tp) + " --ep " + n(p.ep),
                    "attention tp " + n(p.tp) + "; MoE tp " + n(p.tp / p.ep) + " x ep " + n(p.ep));
  attention_dp = variant(design, 1, p.tp, 0, 0, theirs, "--tp 1 --ep " + n(p.tp),
                         "attention data-parallel, as TensorRT-LLM's --enable_attention_dp; "
                         "experts ep " +
                             n(p.tp));
  if (!shard && !attention_dp) {
    s += "; no per-module plan expresses that for this model on " + n(theirs) + " devices\n";
    return s;
  }
  s += "; on " + n(theirs) + " devices that is:\n";
  if (shard) s += line(*shard);
  if (attention_dp) s += (shard ? "note: or\n" : "") + line(*attention_dp);
  return s;
}

}  // namespace stackscope::cli
