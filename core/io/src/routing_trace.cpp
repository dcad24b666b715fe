// SPDX-License-Identifier: GPL-3.0-or-later
// Routing traces in the reference/moe-traces format (HD-MoE artifact, MIT licence):
// {"<layer>": [[e0, e1, ...], ...one list of selected experts per token], ...}.
#include <algorithm>
#include <charconv>
#include <map>

#include "sections.hpp"

namespace stackscope::io {

using detail::Issues;
using detail::Json;

namespace {

constexpr const char* kTracePath = "/workload/routing/trace";
// A broken trace can have millions of bad entries; the first few explain the problem.
constexpr std::size_t kMaxIssues = 10;

std::optional<int> parse_layer_key(const std::string& key) {
  int layer = -1;
  const auto* end = key.data() + key.size();
  auto [ptr, ec] = std::from_chars(key.data(), end, layer);
  if (ec != std::errc() || ptr != end || layer < 0 || key.empty()) return std::nullopt;
  if (key.size() > 1 && key[0] == '0') return std::nullopt;  // "01" is not a layer index
  return layer;
}

}  // namespace

void load_routing_trace(workload::Routing& routing, int experts,
                        const std::filesystem::path& base_dir) {
  if (routing.trace.empty())
    throw ConfigError({{kTracePath, "no routing trace file given", "", "path to a trace file"}});
  if (experts < 1)
    throw ConfigError({{kTracePath, "a routing trace needs an MoE model", std::to_string(experts),
                        "model.moe.experts >= 1"}});
  std::filesystem::path file(routing.trace);
  if (file.is_relative() && !base_dir.empty()) file = base_dir / file;

  const std::string text = detail::read_text_file(file, kTracePath);
  const std::string where = "routing trace '" + file.string() + "'";
  Issues issues;
  auto doc = detail::parse_json_text(text, where, kTracePath, issues);
  if (!doc) throw ConfigError(std::move(issues));
  auto bad = [&](const std::string& at, std::string message, std::string value,
                 std::string allowed) {
    if (issues.size() < kMaxIssues)
      issues.push_back({kTracePath, where + " at " + at + ": " + message, std::move(value),
                        std::move(allowed)});
  };
  if (!doc->is_object()) {
    bad("/", "expected an object keyed by layer index, got " + detail::type_text(*doc),
        detail::value_text(*doc), "{\"0\": [[e0, e1], ...], \"1\": ...}");
    throw ConfigError(std::move(issues));
  }

  std::map<int, std::vector<double>> rows;
  const std::string expert_range = "integer in [0, " + std::to_string(experts - 1) + "]";
  for (const auto& [key, tokens] : doc->items()) {
    const std::string at = detail::child_path("", key);
    const auto layer = parse_layer_key(key);
    if (!layer) {
      bad(at, "layer key is not a non-negative integer", "\"" + key + "\"", "\"0\", \"1\", ...");
      continue;
    }
    if (!tokens.is_array() || tokens.empty()) {
      bad(at, "expected a non-empty array of per-token expert lists", detail::value_text(tokens),
          "[[e0, e1], ...]");
      continue;
    }
    std::vector<double> counts(static_cast<std::size_t>(experts), 0.0);
    std::vector<int> seen;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      const auto& selected = tokens[t];
      const std::string token_at = detail::child_path(at, t);
      if (!selected.is_array() || selected.empty()) {
        bad(token_at, "expected a non-empty array of expert ids", detail::value_text(selected),
            "[e0, e1, ...]");
        continue;
      }
      seen.clear();
      for (std::size_t k = 0; k < selected.size(); ++k) {
        const auto& e = selected[k];
        if (!e.is_number_integer()) {
          bad(detail::child_path(token_at, k), "expert id is not an integer",
              detail::value_text(e), expert_range);
          continue;
        }
        if (e.get<std::int64_t>() < 0 || e.get<std::int64_t>() >= experts) {
          bad(detail::child_path(token_at, k), "expert id out of range",
              detail::value_text(e), expert_range);
          continue;
        }
        const int id = e.get<int>();
        if (std::find(seen.begin(), seen.end(), id) != seen.end()) {
          bad(detail::child_path(token_at, k), "expert selected twice by one token",
              detail::value_text(e), "distinct expert ids per token");
          continue;
        }
        seen.push_back(id);
        counts[static_cast<std::size_t>(id)] += 1.0;
      }
    }
    // Frequency = fraction of tokens that selected the expert, so a row sums to top_k.
    const double n = static_cast<double>(tokens.size());
    for (auto& c : counts) c /= n;
    rows[*layer] = std::move(counts);
  }
  if (issues.empty() && rows.empty())
    bad("/", "the trace has no layers", "{}", "at least one layer");
  // Layers must be 0..L-1 so row i is MoE layer i.
  int expected = 0;
  for (const auto& [layer, row] : rows) {
    if (layer != expected) {
      bad("/" + std::to_string(expected), "layer " + std::to_string(expected) + " is missing",
          "", "layers numbered 0.." + std::to_string(rows.size() - 1) + " without gaps");
      break;
    }
    ++expected;
  }
  if (!issues.empty()) throw ConfigError(std::move(issues));

  routing.expert_frequency.clear();
  routing.expert_frequency.reserve(rows.size());
  for (auto& [layer, row] : rows) routing.expert_frequency.push_back(std::move(row));
}

}  // namespace stackscope::io
