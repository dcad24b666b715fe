// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every file a command or the GUI writes goes through here (docs/architecture.md), so that no
// output can destroy something that is not an output:
//  - a file is written only over a regular file, or as a new one: a FIFO, a device node, a
//    socket, a directory or a symbolic link to any of them is refused before anything is
//    written, and left as it was (a symbolic link to a regular file writes its target);
//  - a whole file is written atomically: a new file beside the target, every write, the fsync
//    and the close checked, then renamed over the target, so a full disk or a crash leaves the
//    old file, never half of the new one (the ext4 delayed-allocation case);
//  - a missing folder, a read-only file or folder, a folder given where a file is expected (and
//    the reverse) are the user's mistakes, reported as an OutputError naming what was being
//    written (the option, e.g. "--per-request") and the path.
// POSIX only (open flags, fsync, rename); the search log (search_log.cpp) keeps its own
// descriptors but opens them with the same rules.
#include <filesystem>
#include <string>
#include <string_view>

#include "stackscope/common/issue.hpp"

namespace stackscope::io {

// A ConfigError (the CLI prints "error: <what>: ..." and exits 2) whose one issue names `what`
// (or the path when `what` is empty) and says what is allowed.
class OutputError : public ConfigError {
 public:
  OutputError(std::string_view what, const std::filesystem::path& path, const std::string& message,
              const std::string& allowed);
};

// Checks that `file` may be written by write_output() (above) without writing anything; for
// callers that should refuse a bad output before a long run rather than after it. Returns the
// path that will be written: `file`, or the target of a symbolic link to a regular file.
std::filesystem::path check_output(const std::filesystem::path& file, std::string_view what);

// Writes `text` to `file` atomically (above). Throws OutputError; the target is untouched then
// and no temporary file is left behind.
void write_output(const std::filesystem::path& file, std::string_view text, std::string_view what);

// Makes sure `dir` is a folder this process can write: creates it (and its parents) when
// missing; refuses a file or anything else of that name, and a folder without write permission.
void make_output_dir(const std::filesystem::path& dir, std::string_view what);

// An output written piece by piece (a log): opened only as a regular file or created new, never
// through a symbolic link; every write is complete and flushed to the kernel, or OutputError.
class AppendOutput {
 public:
  enum class Mode {
    truncate,  // start empty: a new file, or an existing regular file emptied
    append,    // continue an existing regular file, or start a new one
  };
  AppendOutput() = default;
  AppendOutput(const std::filesystem::path& file, std::string_view what, Mode mode);
  AppendOutput(AppendOutput&& other) noexcept;
  AppendOutput& operator=(AppendOutput&& other) noexcept;
  AppendOutput(const AppendOutput&) = delete;
  AppendOutput& operator=(const AppendOutput&) = delete;
  ~AppendOutput();  // closes; an error there is lost (call close() to see it)

  bool is_open() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }
  void write(std::string_view text);  // all of it, or OutputError
  void sync();                        // fsync, checked
  void close();                       // checked; a closed output may be closed again

 private:
  [[noreturn]] void fail(const std::string& message, const std::string& allowed) const;
  std::filesystem::path path_;
  std::string what_;
  int fd_ = -1;
};

// Writes all of `text` to the descriptor, retrying short writes and interruptions; false (errno
// set) on the first failure. The primitive every writer above uses, for tests on /dev/full.
bool write_all(int fd, std::string_view text);

}  // namespace stackscope::io
