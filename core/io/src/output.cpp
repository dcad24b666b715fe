// SPDX-License-Identifier: GPL-3.0-or-later
// Outputs that never destroy what is not an output (output.hpp).
#include "stackscope/io/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "stackscope/io/project.hpp"

namespace stackscope::io {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFileAllowed =
    "a regular file, or a new file name in a folder that exists and can be written";
constexpr const char* kDirAllowed = "a folder that exists or can be created, and can be written";

// Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "'" + s + "'" inlined.
std::string quoted(const fs::path& p) {
  std::string s(1, '\'');
  s += p.string();
  s += '\'';
  return s;
}

// "a FIFO", "a device node", ... for a file that is not a regular file.
std::string kind_of(mode_t m) {
  if (S_ISREG(m)) return "a file";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device node";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// The folder a new file or a replacement goes into: it must exist and be writable.
void check_folder(const fs::path& file, std::string_view what) {
  const fs::path dir = folder_of(file);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int e = errno;
    throw OutputError(what, file,
                      "cannot be written: the folder " + quoted(dir) +
                          (e == ENOENT    ? " does not exist"
                           : e == ENOTDIR ? " is not a folder (a part of its path is a file)"
                                          : std::string(": ") + std::strerror(e)),
                      kFileAllowed);
  }
  if (!S_ISDIR(st.st_mode))
    throw OutputError(what, file, "cannot be written: " + quoted(dir) + " is not a folder",
                      kFileAllowed);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw OutputError(what, file,
                      "cannot be written: the folder " + quoted(dir) + " is not writable (" +
                          std::strerror(errno) + ")",
                      kFileAllowed);
}

void check_name(const fs::path& file, std::string_view what) {
  const fs::path name = file.filename();
  if (file.empty() || name.empty() || name == "." || name == "..")
    throw OutputError(what, file, "is not a file name", kFileAllowed);
}

// Unique temporary names among threads of this process; the pid separates processes.
std::atomic<unsigned> temp_counter{0};

}  // namespace

OutputError::OutputError(std::string_view what, const fs::path& path, const std::string& message,
                         const std::string& allowed)
    : ConfigError({Issue{what.empty() ? path.string() : std::string(what),
                         what.empty() ? message : quoted(path) + " " + message, "", allowed}}) {}

bool write_all(int fd, std::string_view text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {  // nothing taken and no error: report it as a full device
      errno = ENOSPC;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

fs::path check_output(const fs::path& file, std::string_view what) {
  check_name(file, what);
  fs::path target = file;
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      struct stat to {};
      if (::stat(file.c_str(), &to) != 0)
        throw OutputError(what, file,
                          "is a symbolic link to nothing that can be written (" +
                              std::string(std::strerror(errno)) + "); nothing was written",
                          kFileAllowed);
      std::error_code ec;
      const fs::path resolved = fs::canonical(file, ec);
      if (!S_ISREG(to.st_mode) || ec)
        throw OutputError(what, file,
                          "is a symbolic link to " + kind_of(to.st_mode) +
                              (ec ? std::string() : " (" + quoted(resolved) + ")") +
                              ", not to a regular file; nothing was written",
                          kFileAllowed);
      target = resolved;
      st = to;
    } else if (!S_ISREG(st.st_mode)) {
      throw OutputError(what, file,
                        "is " + kind_of(st.st_mode) + ", not a regular file; nothing was written",
                        kFileAllowed);
    }
    if (::access(target.c_str(), W_OK) != 0)
      throw OutputError(what, file,
                        "is read-only (" + std::string(std::strerror(errno)) +
                            "); nothing was written",
                        kFileAllowed);
  } else if (errno != ENOENT && errno != ENOTDIR) {
    throw OutputError(what, file, "cannot be examined: " + std::string(std::strerror(errno)),
                      kFileAllowed);
  }
  check_folder(target, what);
  return target;
}

void write_output(const fs::path& file, std::string_view text, std::string_view what) {
  const fs::path target = check_output(file, what);
  struct stat old {};
  const bool replacing = ::stat(target.c_str(), &old) == 0;
  const fs::path dir = folder_of(target);
  fs::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = target;
    tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(temp_counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW,
                0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0)
    throw OutputError(what, file,
                      "cannot be written: no new file can be made in " + quoted(dir) + " (" +
                          std::strerror(errno) + ")",
                      kFileAllowed);
  auto fail = [&](const std::string& step) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw OutputError(what, file,
                      "cannot be written: " + step + " failed (" + std::strerror(e) +
                          "); the old content, if any, is kept",
                      kFileAllowed);
  };
  // A replaced file keeps its permissions (the new one is made with the umask's).
  if (replacing && ::fchmod(fd, old.st_mode & 07777) != 0) fail("setting its permissions");
  if (!write_all(fd, text)) fail("writing");
  if (::fsync(fd) != 0) fail("flushing it to disk (fsync)");
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) fail("closing it");
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail("renaming the new file over it");
  // The new directory entry is durable once the folder is synced (POSIX rename); a folder that
  // cannot be opened or synced (some network file systems) does not undo the write.
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

void make_output_dir(const fs::path& dir, std::string_view what) {
  if (dir.empty()) throw OutputError(what, dir, "no folder given", kDirAllowed);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw OutputError(what, dir, "is " + kind_of(st.st_mode) + ", not a folder", kDirAllowed);
  } else if (errno == ENOENT) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      throw OutputError(what, dir, "cannot be created as a folder: " + ec.message(), kDirAllowed);
  } else {
    throw OutputError(what, dir,
                      errno == ENOTDIR ? "cannot be a folder: a part of its path is a file"
                                       : "cannot be examined: " + std::string(std::strerror(errno)),
                      kDirAllowed);
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw OutputError(what, dir,
                      "is a folder that cannot be written (" + std::string(std::strerror(errno)) +
                          ")",
                      kDirAllowed);
}

// ---- AppendOutput ----

AppendOutput::AppendOutput(const fs::path& file, std::string_view what, Mode mode)
    : path_(file), what_(what) {
  check_name(file, what);
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      fail("is " + kind_of(st.st_mode) + ", not a regular file; nothing was written",
           "a regular file (not a link), or a new file name");
  } else if (errno != ENOENT && errno != ENOTDIR) {
    fail("cannot be examined: " + std::string(std::strerror(errno)), kFileAllowed);
  }
  check_folder(file, what);
  // O_NONBLOCK: a FIFO put there since the check fails at once instead of waiting for a reader;
  // O_NOFOLLOW: so does a symbolic link.
  fd_ = ::open(file.c_str(),
               O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
               0666);
  if (fd_ < 0) fail("cannot be opened: " + std::string(std::strerror(errno)), kFileAllowed);
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    fail("is not a regular file; nothing was written", kFileAllowed);
  }
  if (mode == Mode::truncate && ::ftruncate(fd_, 0) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    fail("cannot be emptied: " + std::string(std::strerror(e)), kFileAllowed);
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

AppendOutput::AppendOutput(AppendOutput&& o) noexcept
    : path_(std::move(o.path_)), what_(std::move(o.what_)), fd_(o.fd_) {
  o.fd_ = -1;
}

AppendOutput& AppendOutput::operator=(AppendOutput&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    what_ = std::move(o.what_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

AppendOutput::~AppendOutput() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendOutput::fail(const std::string& message, const std::string& allowed) const {
  throw OutputError(what_, path_, message, allowed);
}

void AppendOutput::write(std::string_view text) {
  if (fd_ < 0) fail("cannot be written: it is closed", kFileAllowed);
  if (!write_all(fd_, text))
    fail("cannot be written: " + std::string(std::strerror(errno)), "a disk with space");
}

void AppendOutput::sync() {
  if (fd_ >= 0 && ::fsync(fd_) != 0)
    fail("cannot be flushed to disk (fsync): " + std::string(std::strerror(errno)),
         "a disk with space");
}

void AppendOutput::close() {
  if (fd_ < 0) return;
  const int r = ::close(fd_);
  fd_ = -1;
  if (r != 0) fail("cannot be closed: " + std::string(std::strerror(errno)), "a disk with space");
}

// The project's own saves (the GUI, the HotSpot export) are outputs like any other.
void save_text_atomic(const fs::path& file, std::string_view text) {
  write_output(file, text, {});
}

}  // namespace stackscope::io
