// SPDX-License-Identifier: GPL-3.0-or-later
// io/output.hpp: an output is written only over a regular file or a new one; a FIFO, a device
// node, a folder or a link to a device is refused and left as it was; a full device is an
// error, not a silent success.
#include "stackscope/io/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "test_support.hpp"

namespace stackscope::io {
namespace {

namespace fs = std::filesystem;
using testing::contains;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// The message of the OutputError `f` throws ("" if it throws none).
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

TEST(Output, RefusesAFifoWithoutWaitingAndLeavesIt) {
  testing::TempDir dir("io-output-fifo");
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string why = refusal([&] { write_output(fifo, "x", "--per-request"); });
  EXPECT_TRUE(contains(why, "--per-request: '")) << why;
  EXPECT_TRUE(contains(why, "is a FIFO, not a regular file")) << why;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(contains(refusal([&] { check_output(fifo, "--out"); }), "is a FIFO"));
  // The append variant must not block on a FIFO without a reader either.
  EXPECT_TRUE(contains(
      refusal([&] { AppendOutput(fifo, "--out", AppendOutput::Mode::append); }), "a FIFO"));
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries(dir.path()), 1u);  // no temporary file left
}

TEST(Output, RefusesDeviceNodesAndLinksToThem) {
  testing::TempDir dir("io-output-device");
  EXPECT_TRUE(contains(refusal([] { write_output("/dev/null", "x", "--per-request"); }),
                       "'/dev/null' is a device node"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const fs::path link = dir.path() / "null.csv";
  fs::create_symlink("/dev/null", link);
  const std::string why = refusal([&] { write_output(link, "x", "--out"); });
  EXPECT_TRUE(contains(why, "is a symbolic link to a device node ('/dev/null')")) << why;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), "/dev/null");
  const fs::path dangling = dir.path() / "dangling";
  fs::create_symlink(dir.path() / "nowhere", dangling);
  EXPECT_TRUE(contains(refusal([&] { write_output(dangling, "x", "--out"); }),
                       "symbolic link to nothing"));
  EXPECT_FALSE(fs::exists(dir.path() / "nowhere"));
}

TEST(Output, AFullDeviceIsAnErrorNotASuccess) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  errno = 0;
  EXPECT_FALSE(write_all(fd, "one line\n"));
  EXPECT_EQ(errno, ENOSPC);
  ::close(fd);
  // As a target it is a device: refused before writing, and still a device afterwards.
  EXPECT_TRUE(contains(refusal([] { write_output("/dev/full", "x", "--per-request"); }),
                       "'/dev/full' is a device node"));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(Output, FoldersAndMissingFoldersNameTheOption) {
  testing::TempDir dir("io-output-folders");
  const std::string missing =
      refusal([&] { write_output(dir.path() / "no-such" / "x.csv", "x", "--per-request"); });
  EXPECT_TRUE(contains(missing, "--per-request: '")) << missing;
  EXPECT_TRUE(contains(missing, "no-such' does not exist")) << missing;
  fs::create_directory(dir.path() / "sub");
  EXPECT_TRUE(contains(refusal([&] { write_output(dir.path() / "sub", "x", "--out"); }),
                       "is a folder, not a regular file"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "sub"));
  std::ofstream(dir.path() / "file") << "keep";
  EXPECT_TRUE(contains(refusal([&] { write_output(dir.path() / "file" / "x", "x", "--out"); }),
                       "is not a folder"));
  EXPECT_TRUE(contains(refusal([&] { make_output_dir(dir.path() / "file", "--out"); }),
                       "--out: '"));
  EXPECT_TRUE(contains(refusal([&] { make_output_dir(dir.path() / "file", "--out"); }),
                       "is a file, not a folder"));
  EXPECT_EQ(read_all(dir.path() / "file"), "keep");
  EXPECT_TRUE(contains(refusal([&] { make_output_dir(dir.path() / "file" / "deeper", "--out"); }),
                       "--out"));
  make_output_dir(dir.path() / "a" / "b", "--out");
  EXPECT_TRUE(fs::is_directory(dir.path() / "a" / "b"));
  make_output_dir(dir.path() / "a" / "b", "--out");  // an existing folder is fine
  EXPECT_TRUE(contains(refusal([] { write_output("", "x", "--out"); }), "is not a file name"));
}

TEST(Output, ReadOnlyFilesAndFoldersAreRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes read-only files and folders";
  testing::TempDir dir("io-output-readonly");
  const fs::path file = dir.path() / "ro.csv";
  std::ofstream(file) << "old";
  fs::permissions(file, fs::perms::owner_read);
  EXPECT_TRUE(contains(refusal([&] { write_output(file, "new", "--per-request"); }),
                       "is read-only"));
  EXPECT_EQ(read_all(file), "old");
  const fs::path ro = dir.path() / "ro";
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_TRUE(contains(refusal([&] { write_output(ro / "x.csv", "x", "--per-request"); }),
                       "is not writable"));
  EXPECT_TRUE(contains(refusal([&] { make_output_dir(ro, "--out"); }), "cannot be written"));
  fs::permissions(ro, fs::perms::owner_all);
}

TEST(Output, ReplacesRegularFilesAtomicallyKeepingModeAndLinks) {
  testing::TempDir dir("io-output-replace");
  const fs::path file = dir.path() / "out.csv";
  write_output(file, "first\n", "--out");
  EXPECT_EQ(read_all(file), "first\n");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_output(file, "second\n", "--out");
  EXPECT_EQ(read_all(file), "second\n");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // A link to a regular file writes the file and stays a link.
  const fs::path link = dir.path() / "link.csv";
  fs::create_symlink(file, link);
  write_output(link, "third\n", "--out");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_all(file), "third\n");
  EXPECT_EQ(entries(dir.path()), 2u);
}

TEST(Output, AppendOutputTruncatesAppendsAndRefusesLinks) {
  testing::TempDir dir("io-output-append");
  const fs::path log = dir.path() / "log.jsonl";
  {
    AppendOutput out(log, "--out", AppendOutput::Mode::truncate);
    out.write("a\n");
    out.write("b\n");
    out.sync();
    out.close();
    out.close();  // a second close is a no-op
  }
  {
    AppendOutput out(log, "--out", AppendOutput::Mode::append);
    out.write("c\n");
  }
  EXPECT_EQ(read_all(log), "a\nb\nc\n");
  {
    AppendOutput out(log, "--out", AppendOutput::Mode::truncate);
    out.write("d\n");
  }
  EXPECT_EQ(read_all(log), "d\n");
  const fs::path link = dir.path() / "link.jsonl";
  fs::create_symlink(log, link);
  EXPECT_TRUE(contains(
      refusal([&] { AppendOutput(link, "--out", AppendOutput::Mode::append); }),
      "is a symbolic link, not a regular file"));
  EXPECT_EQ(read_all(log), "d\n");
  if (fs::exists("/dev/full")) {
    EXPECT_TRUE(contains(
        refusal([] { AppendOutput("/dev/full", "--out", AppendOutput::Mode::truncate); }),
        "is a device node"));
  }
}

}  // namespace
}  // namespace stackscope::io
