// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers shared by the core/io tests: a small registry of test presets (independent of the
// shipped presets, which other tests round-trip), a minimal valid project, and issue matchers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "stackscope/io/project.hpp"

namespace stackscope::io::testing {

using nlohmann::ordered_json;

// The presets compiled into the programs (io::builtin_presets).
using io::builtin_presets;

inline PresetRegistry test_registry() {
  PresetRegistry r;
  r.add_json(PresetKind::hardware, "test-gpu", R"({
    "kind": "hardware", "schema_version": 1, "id": "test-gpu", "name": "Test GPU",
    "notes": "a small device for tests",
    "compute": {"cores": 8, "clock_GHz": 1.5},
    "memory": {"kind": "hbm", "stacks": 2, "layers_total": 4, "layers_connected": 4}
  })");
  r.add_json(PresetKind::system, "test-x4", R"({
    "kind": "system", "schema_version": 1, "name": "Four test GPUs", "devices": 4,
    "levels": [{"name": "switch", "topology": "switch", "size": 4, "link_GBps": 100}]
  })");
  r.add_json(PresetKind::model, "test-dense", R"({
    "kind": "model", "name": "Test dense", "layers": 4, "hidden": 512, "heads": 8,
    "kv_heads": 8, "head_dim": 64, "ffn_dim": 1024, "vocab": 1000
  })");
  r.add_json(PresetKind::model, "test-moe", R"({
    "name": "Test MoE", "layers": 32, "hidden": 512, "heads": 8, "kv_heads": 2,
    "head_dim": 64, "ffn_dim": 0, "vocab": 1000, "attention": "gqa",
    "moe": {"experts": 8, "top_k": 2, "expert_ffn_dim": 1024}
  })");
  return r;
}

// A valid project on the test presets.
inline ordered_json minimal_project() {
  return ordered_json::parse(R"({
    "schema_version": 1, "name": "minimal",
    "hardware": "test-gpu", "system": "test-x4", "model": "test-dense",
    "workload": {"batch": 2, "input_len": 128, "output_len": 16},
    "parallel": {"tp": 4}
  })");
}

// Parses `doc` expecting a ConfigError; returns its issues (empty + test failure otherwise).
inline std::vector<Issue> parse_issues(const std::string& text, const PresetRegistry& r,
                                       const std::filesystem::path& base_dir = {}) {
  try {
    (void)parse_project(text, r, base_dir);
  } catch (const ConfigError& e) {
    return e.issues();
  }
  ADD_FAILURE() << "expected a ConfigError for:\n" << text;
  return {};
}

inline std::vector<Issue> parse_issues(const char* text, const PresetRegistry& r) {
  return parse_issues(std::string(text), r);
}

inline std::vector<Issue> parse_issues(const ordered_json& doc, const PresetRegistry& r) {
  return parse_issues(doc.dump(2), r);
}

// The issue at `path`; fails the test (and returns an empty issue) if there is none.
inline Issue issue_at(const std::vector<Issue>& issues, const std::string& path) {
  auto it =
      std::find_if(issues.begin(), issues.end(), [&](const Issue& i) { return i.path == path; });
  if (it == issues.end()) {
    ADD_FAILURE() << "no issue at " << path << "; got:\n" << format_issues(issues);
    return {};
  }
  return *it;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("stackscope-" + tag + "-" + std::string(info ? info->name() : "x") + "-" +
             std::to_string(std::random_device{}()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace stackscope::io::testing
