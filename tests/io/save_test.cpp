// SPDX-License-Identifier: GPL-3.0-or-later
// save_text_atomic: content lands complete, replaces the old file, leaves no temp files, and
// fails loudly without touching the target.
#include <fstream>

#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t entries(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                                std::filesystem::directory_iterator()));
}

TEST(SaveAtomic, WritesAndReplacesWithoutLeftovers) {
  testing::TempDir dir("io-save");
  const auto file = dir.path() / "project.json";
  const std::string big(1 << 20, 'x');
  save_text_atomic(file, big);
  EXPECT_EQ(read_all(file), big);
  const std::string binary("a\0b\r\n\xff", 6);
  save_text_atomic(file, binary);
  EXPECT_EQ(read_all(file), binary);
  save_text_atomic(file, "");
  EXPECT_EQ(read_all(file), "");
  EXPECT_EQ(entries(dir.path()), 1u);  // no "<file>.tmp-<pid>" left behind
}

TEST(SaveAtomic, FailuresThrowAndKeepTheOldFile) {
  testing::TempDir dir("io-save-fail");
  try {
    save_text_atomic(dir.path() / "missing-dir" / "p.json", "x");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot be written")) << e.what();
    EXPECT_TRUE(contains(e.what(), "missing-dir' does not exist")) << e.what();
  }
  std::filesystem::create_directory(dir.path() / "sub");
  EXPECT_THROW(save_text_atomic(dir.path() / "sub", "x"), std::runtime_error);
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "sub"));
  EXPECT_THROW(save_text_atomic("", "x"), std::runtime_error);
}

TEST(SaveAtomic, ProjectSavedAndLoadedIsTheSame) {
  testing::TempDir dir("io-save-project");
  const auto r = testing::test_registry();
  const auto d = parse_project(testing::minimal_project().dump(), r);
  const auto file = dir.path() / "p.json";
  save_text_atomic(file, project_to_json(d));
  EXPECT_EQ(project_to_json(load_project(file, r)), project_to_json(d));
}

}  // namespace
}  // namespace stackscope::io
