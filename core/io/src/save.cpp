// SPDX-License-Identifier: GPL-3.0-or-later
// Atomic save: nothing the user made is lost if the program dies mid-write (docs/architecture.md
// §7).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "stackscope/io/project.hpp"

#if defined(_WIN32)
#include <process.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

namespace stackscope::io {

namespace {

long process_id() {
#if defined(_WIN32)
  return static_cast<long>(_getpid());
#else
  return static_cast<long>(::getpid());
#endif
}

// Forces the file's data to disk before the rename makes it visible, so a crash cannot leave
// a renamed but empty file (the ext4 delayed-allocation problem). No-op where unsupported.
void sync_path(const std::filesystem::path& p) {
#if !defined(_WIN32)
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
#else
  (void)p;
#endif
}

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& why) {
  throw std::runtime_error("cannot save '" + file.string() + "': " + why);
}

}  // namespace

void save_text_atomic(const std::filesystem::path& file, std::string_view text) {
  if (file.empty() || !file.has_filename()) fail(file, "not a file name");
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) fail(file, "directory does not exist");
  if (std::filesystem::is_directory(file, ec)) fail(file, "a directory of that name exists");

  std::filesystem::path tmp = file;
  tmp += ".tmp-" + std::to_string(process_id());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      fail(file, std::string("cannot create '") + tmp.string() + "': " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      fail(file, "write to '" + tmp.string() + "' failed (disk full?)");
    }
  }
  sync_path(tmp);
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::error_code ignore;
    std::filesystem::remove(tmp, ignore);
    fail(file, "rename from '" + tmp.string() + "' failed: " + ec.message());
  }
  // Persist the directory entry too (POSIX: rename durability needs the directory synced).
  sync_path(dir);
}

}  // namespace stackscope::io
