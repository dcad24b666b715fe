// SPDX-License-Identifier: GPL-3.0-or-later
// Routing traces in the reference/moe-traces format (HD-MoE artifact, MIT licence):
// {"<layer>": [[e0, e1, ...], ...one list of selected experts per token], ...}.
// Read with nlohmann's SAX interface: the Mixtral traces hold ~650k ids in 2.6 MB, and building
// a DOM for them costs ~10x the time of counting them as they stream past.
#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "json_detail.hpp"
#include "sections.hpp"
#include "stackscope/io/moe_trace.hpp"
#include "stackscope/perf/limits.hpp"

namespace stackscope::io {

using detail::Issues;

namespace {

constexpr const char* kTracePath = "/workload/routing/trace";
// A broken trace can have millions of bad entries; the first few explain the problem.
constexpr std::size_t kMaxIssues = 10;

std::optional<int> parse_layer_key(const std::string& key) {
  if (key.empty() || (key.size() > 1 && key[0] == '0')) return std::nullopt;  // "", "01"
  int layer = -1;
  const auto* end = key.data() + key.size();
  auto [ptr, ec] = std::from_chars(key.data(), end, layer);
  if (ec != std::errc() || ptr != end || layer < 0) return std::nullopt;
  return layer;
}

// 1-based line and column of the byte before `position` (nlohmann counts bytes read).
std::string line_column(std::string_view text, std::size_t position) {
  const std::size_t pos = std::min(position == 0 ? 0 : position - 1, text.size());
  std::size_t line = 1, start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(pos - start + 1);
}

// Depth 0: the root object; 1: inside it (layer keys); 2: a layer's token list; 3: one token's
// expert ids. Anything else is reported once and its subtree skipped.
class TraceReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  // keep_ids: also keep every token's ids (load_moe_trace), every token selecting `top_k`
  // experts (0 = as many as the first token). Issues are at `path`.
  TraceReader(int experts, std::string_view text, std::string where, Issues& issues,
              bool keep_ids = false, int top_k = 0, std::string path = kTracePath)
      : experts_(experts),
        text_(text),
        where_(std::move(where)),
        issues_(issues),
        expert_range_("integer in [0, " + std::to_string(experts - 1) + "]"),
        keep_ids_(keep_ids),
        top_k_(static_cast<std::size_t>(std::max(0, top_k))),
        path_(std::move(path)) {}

  std::map<int, std::vector<double>> rows;
  std::map<int, std::vector<std::uint16_t>> ids;  // keep_ids: per layer, token-major
  std::size_t top_k() const { return top_k_; }

  bool null() override { return scalar("null", "null"); }
  bool boolean(bool v) override { return scalar("boolean", v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override {
    return expert(v >= 0 && v < experts_ ? static_cast<int>(v) : -1, v);
  }
  bool number_unsigned(number_unsigned_t v) override {
    return expert(v < static_cast<number_unsigned_t>(experts_) ? static_cast<int>(v) : -1, v);
  }
  bool number_float(number_float_t, const string_t& raw) override {
    return scalar("non-integer number", raw);
  }
  bool string(string_t& v) override { return scalar("string", "\"" + v + "\""); }
  bool binary(binary_t&) override { return scalar("binary", ""); }

  bool start_object(std::size_t) override {
    if (skip_ > 0 || depth_ != 0) return unexpected("object");
    depth_ = 1;
    return true;
  }
  bool key(string_t& k) override {
    if (skip_ > 0) return true;
    key_ = k;
    layer_ = parse_layer_key(k);
    if (!layer_) {
      bad(pointer(1), "layer key is not a non-negative integer", "\"" + k + "\"",
          "\"0\", \"1\", ...");
    } else if (!keys_.insert(*layer_).second) {
      bad(pointer(1), "layer " + k + " appears twice", "\"" + k + "\"", "each layer once");
      layer_.reset();
    }
    return true;
  }
  bool end_object() override {
    if (skip_ > 0) return leave_skipped();
    depth_ = 0;
    return true;
  }
  bool start_array(std::size_t) override {
    if (skip_ > 0) return unexpected("array");
    if (depth_ == 1) {
      depth_ = 2;
      token_ = 0;
      counts_.assign(static_cast<std::size_t>(experts_), 0.0);
      seen_.assign(static_cast<std::size_t>(experts_), 0);
      layer_ids_.clear();
      return true;
    }
    if (depth_ == 2) {
      depth_ = 3;
      ++token_;
      element_ = 0;
      return true;
    }
    return unexpected("array");
  }
  bool end_array() override {
    if (skip_ > 0) return leave_skipped();
    if (depth_ == 3) {
      if (element_ == 0) {
        bad(pointer(2), "expected a non-empty array of expert ids", "[]", "[e0, e1, ...]");
      } else if (keep_ids_ && top_k_ == 0) {
        top_k_ = element_;
      } else if (keep_ids_ && element_ != top_k_) {
        bad(pointer(2),
            "token selects " + std::to_string(element_) + " experts; the trace's tokens select " +
                std::to_string(top_k_),
            std::to_string(element_), std::to_string(top_k_) + " expert ids per token");
      }
      depth_ = 2;
      return true;
    }
    // depth 2: the end of one layer's token list.
    depth_ = 1;
    if (token_ == 0) {
      bad(pointer(1), "expected a non-empty array of per-token expert lists", "[]",
          "[[e0, e1], ...]");
    } else if (layer_ && issues_.empty()) {
      // Frequency = fraction of tokens that selected the expert, so a row sums to top_k.
      for (auto& c : counts_) c /= static_cast<double>(token_);
      rows[*layer_] = std::move(counts_);
      if (keep_ids_) ids[*layer_] = std::move(layer_ids_);
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string detail = ex.what();
    if (auto colon = detail.find(": "); colon != std::string::npos) detail.erase(0, colon + 2);
    issues_.push_back(
        {path_,
         "JSON syntax error in " + where_ + " at " + line_column(text_, position) + ": " + detail,
         "", "valid JSON (RFC 8259)"});
    return false;
  }

 private:
  void bad(const std::string& at, std::string message, std::string value, std::string allowed) {
    if (issues_.size() < kMaxIssues)
      issues_.push_back({path_, where_ + " at " + (at.empty() ? "/" : at) + ": " + message,
                         std::move(value), std::move(allowed)});
  }

  // JSON pointer of the current element down to `level` (1 layer, 2 token, 3 expert id).
  std::string pointer(int level) const {
    std::string p;
    if (level >= 1) p = detail::child_path(p, key_);
    if (level >= 2) p = detail::child_path(p, token_ - 1);
    if (level >= 3) p = detail::child_path(p, element_ - 1);
    return p;
  }

  // A value where none of its kind belongs: report where, skip what it contains.
  bool unexpected(const char* kind) {
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    report_misplaced(kind, std::string(kind) == "object" ? "{...}" : "[...]");
    skip_ = 1;
    return true;
  }
  bool leave_skipped() {
    --skip_;
    return true;
  }

  bool scalar(const char* kind, const std::string& value) {
    if (skip_ > 0) return true;
    report_misplaced(kind, value);
    return true;
  }

  void report_misplaced(const std::string& kind, const std::string& value) {
    switch (depth_) {
      case 0:
        bad("", "expected an object keyed by layer index, got " + kind, value,
            "{\"0\": [[e0, e1], ...], \"1\": ...}");
        break;
      case 1:
        bad(pointer(1), "expected a non-empty array of per-token expert lists, got " + kind, value,
            "[[e0, e1], ...]");
        layer_.reset();
        break;
      case 2:
        ++token_;
        bad(pointer(2), "expected a non-empty array of expert ids, got " + kind, value,
            "[e0, e1, ...]");
        break;
      default:
        ++element_;
        bad(pointer(3), "expert id is not an integer (got " + kind + ")", value, expert_range_);
        break;
    }
  }

  // `e` is the expert id, or -1 when the integer `raw` is out of range. The text of `raw` is
  // only made for messages: ~650k ids stream through here per trace.
  template <class Int>
  bool expert(int e, Int raw) {
    if (skip_ > 0) return true;
    if (depth_ != 3) {
      report_misplaced("integer", std::to_string(raw));
      return true;
    }
    ++element_;
    if (e < 0) {
      bad(pointer(3), "expert id out of range", std::to_string(raw), expert_range_);
      return true;
    }
    // seen_[e] is the last token (1-based) that selected e: O(1) per id, however long a list.
    auto& last = seen_[static_cast<std::size_t>(e)];
    if (last == token_) {
      bad(pointer(3), "expert selected twice by one token", std::to_string(raw),
          "distinct expert ids per token");
      return true;
    }
    last = token_;
    counts_[static_cast<std::size_t>(e)] += 1.0;
    if (keep_ids_) layer_ids_.push_back(static_cast<std::uint16_t>(e));
    return true;
  }

  int experts_;
  std::string_view text_;
  std::string where_;
  Issues& issues_;
  std::string expert_range_;
  int depth_ = 0;
  int skip_ = 0;
  std::string key_;
  std::optional<int> layer_;
  std::set<int> keys_;
  std::size_t token_ = 0;
  std::size_t element_ = 0;
  std::vector<double> counts_;
  std::vector<std::size_t> seen_;
  bool keep_ids_ = false;
  std::size_t top_k_ = 0;
  std::string path_;
  std::vector<std::uint16_t> layer_ids_;
};

// The layers of `reader` must be numbered 0..L-1 so row i is MoE layer i.
void check_layers(const TraceReader& reader, const std::string& path, const std::string& file,
                  Issues& issues) {
  if (issues.empty() && reader.rows.empty())
    issues.push_back(
        {path, "routing trace '" + file + "' has no layers", "{}", "at least one layer"});
  int expected = 0;
  for (const auto& [layer, row] : reader.rows) {
    if (!issues.empty()) break;
    if (layer != expected) {
      issues.push_back(
          {path, "routing trace '" + file + "': layer " + std::to_string(expected) + " is missing",
           "", "layers numbered 0.." + std::to_string(reader.rows.size() - 1) + " without gaps"});
    }
    ++expected;
  }
}

}  // namespace

void load_routing_trace(workload::Routing& routing, int experts,
                        const std::filesystem::path& base_dir) {
  if (routing.trace.empty())
    throw ConfigError({{kTracePath, "no routing trace file given", "", "path to a trace file"}});
  if (experts < 1)
    throw ConfigError({{kTracePath, "a routing trace needs an MoE model", std::to_string(experts),
                        "model.moe.experts >= 1"}});
  // Read before perf::validate(): the per-expert counts must not be sized by an absurd model.
  if (experts > perf::limits::kMaxExperts)
    throw ConfigError({{"/model/moe/experts", "too many experts to read a routing trace for",
                        std::to_string(experts),
                        "integer in [1, " + std::to_string(perf::limits::kMaxExperts) + "]"}});
  std::filesystem::path file(routing.trace);
  if (file.is_relative() && !base_dir.empty()) file = base_dir / file;

  const std::string text = detail::read_text_file(file, kTracePath, limits::kMaxTraceFileBytes);
  Issues issues;
  TraceReader reader(experts, text, "routing trace '" + file.string() + "'", issues);
  detail::sax_parse_json_text(text, &reader, "routing trace '" + file.string() + "'", kTracePath,
                              issues, limits::kMaxTraceFileBytes);
  check_layers(reader, kTracePath, file.string(), issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));

  routing.expert_frequency.clear();
  routing.expert_frequency.reserve(reader.rows.size());
  for (auto& [layer, row] : reader.rows) routing.expert_frequency.push_back(std::move(row));
}

moe::RoutingTrace load_moe_trace(const std::filesystem::path& file, int experts, int top_k) {
  const std::string where = "routing trace '" + file.string() + "'";
  if (experts < 1 || experts > 65'536)
    throw ConfigError({{file.string(), "experts out of range for " + where, std::to_string(experts),
                        "integer in [1, 65536]"}});
  if (top_k < 0 || top_k > experts)
    throw ConfigError({{file.string(), "top_k out of range for " + where, std::to_string(top_k),
                        "0 (as the trace) or an integer in [1, " + std::to_string(experts) + "]"}});
  const std::string text = detail::read_text_file(file, file.string(), limits::kMaxTraceFileBytes);
  Issues issues;
  TraceReader reader(experts, text, where, issues, /*keep_ids=*/true, top_k, file.string());
  detail::sax_parse_json_text(text, &reader, where, file.string(), issues,
                              limits::kMaxTraceFileBytes);
  check_layers(reader, file.string(), file.string(), issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
  moe::RoutingTrace t;
  t.experts = experts;
  t.top_k = static_cast<int>(reader.top_k());
  // Appended, not "'" + s + "'": GCC 12's bogus -Wrestrict (GCC bug 105329).
  t.source = "'";
  t.source += file.string();
  t.source += '\'';
  for (auto& [layer, row] : reader.ids) t.layers.push_back(std::move(row));
  moe::check(t);  // the reader checked each of these; a failure here is a reader bug
  return t;
}

}  // namespace stackscope::io
