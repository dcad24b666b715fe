// SPDX-License-Identifier: GPL-3.0-or-later
// The append-only search log: a killed search resumes with --resume without losing or
// duplicating points; checksummed records, a locked directory, never a hang on a FIFO; format in
// io/search.hpp.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "json_detail.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/search.hpp"

namespace stackscope::io {

using detail::exact_integer;
using detail::integer_at;
using detail::Json;

namespace {

constexpr const char* kLogName = "points.jsonl";
constexpr const char* kLockName = "search.lock";
constexpr const char* kTempPrefix = "points.jsonl.tmp-";
// The header holds the canonical space (a few KB; a model axis inlines whole models); a point
// line is ~500 bytes. A longer line is garbage, not read into memory.
constexpr std::size_t kMaxLine = std::size_t{16} << 20;
// `,"crc":"xxxxxxxx"}`: the checksum member closing every format-2 line.
constexpr std::string_view kCrcKey = ",\"crc\":\"";
constexpr std::size_t kCrcSuffix = 8 + 8 + 2;

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

ConfigError error(std::string message, std::string allowed) {
  return ConfigError({{"", std::move(message), "", std::move(allowed)}});
}

std::string start_over(const std::filesystem::path& log) {
  return "to start over: rm '" + log.string() + "', or use another --out directory";
}

Json header_json(const SearchLogHeader& h) {
  Json j = {{"kind", "search_log"},
            {"schema_version", perf::kSchemaVersion},
            {"log_version", kSearchLogVersion},
            {"fingerprint", h.fingerprint},
            {"strategy", h.strategy},
            {"seed", h.seed},
            {"samples", h.samples},
            {"shard_index", h.shard_index},
            {"shard_count", h.shard_count}};
  if (h.strategy == "exhaustive") {
    j["units"] = h.units;
    j["order"] = h.strata_order ? "strata" : "index";
  }
  if (!h.space.empty()) {
    if (auto space = detail::parse_json_record(h.space)) j["space"] = std::move(*space);
  }
  return j;
}

std::optional<SearchLogHeader> header_from(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  try {
    if (j.at("kind") != "search_log") return std::nullopt;
    SearchLogHeader h;
    h.fingerprint = j.at("fingerprint").get<std::string>();
    h.strategy = j.at("strategy").get<std::string>();
    h.seed = integer_at<std::uint64_t>(j, "seed");
    h.samples = integer_at<std::uint64_t>(j, "samples");
    h.shard_index = integer_at<std::uint64_t>(j, "shard_index");
    h.shard_count = integer_at<std::uint64_t>(j, "shard_count");
    if (const auto o = j.find("order"); o != j.end()) {
      if (*o != "strata" && *o != "index") return std::nullopt;
      h.strata_order = *o == "strata";
      h.units = integer_at<std::uint64_t>(j, "units");
    }
    if (auto s = j.find("space"); s != j.end()) h.space = detail::dump(*s, -1);
    return h;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

Json watermark_json(std::uint64_t below, const UnitCounters& c) {
  return {{"done_below", below},
          {"evaluated", c.evaluated},
          {"pruned", c.pruned},
          {"pruned_bound", c.pruned_bound},
          {"infeasible", c.infeasible}};
}

std::string sealed(const Json& j) {
  return seal_log_line(detail::dump(j, -1));
}

// A full disk or a failed write is the user's to fix (output.hpp): an OutputError, exit 2.
[[noreturn]] void write_failed(const std::filesystem::path& p) {
  throw OutputError("--out", p, "cannot be written: " + std::string(std::strerror(errno)),
                    "a disk with space");
}

void write_line(std::FILE* f, const std::string& line, const std::filesystem::path& p) {
  if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fputc('\n', f) == EOF)
    write_failed(p);
}

void flush(std::FILE* f, const std::filesystem::path& p) {
  if (std::fflush(f) != 0) write_failed(p);
}

std::string header_text(const SearchLogHeader& h) {
  return "strategy " + h.strategy + ", seed " + std::to_string(h.seed) + ", samples " +
         std::to_string(h.samples) + ", shard " + std::to_string(h.shard_index) + "/" +
         std::to_string(h.shard_count) + ", space " + h.fingerprint;
}

// The ordered pass of an exhaustive log written in strata order (io/search.hpp).
std::optional<search::VisitOrder> order_of(const SearchLogHeader& h) {
  if (h.strategy != "exhaustive" || !h.strata_order) return std::nullopt;
  return search::visit_order(h.units);
}

std::uint64_t ordinal_of(const SearchLogHeader& h, const std::optional<search::VisitOrder>& order,
                         std::uint64_t unit) {
  if (h.strategy != "exhaustive") return unit;
  const std::uint64_t n = std::max<std::uint64_t>(1, h.shard_count);
  const std::uint64_t j = unit >= h.shard_index ? (unit - h.shard_index) / n : 0;
  return order && j < order->units() ? order->position_of(j) : j;
}

std::string short_text(const Json& j) {
  std::string s = detail::dump(j, -1);
  constexpr std::size_t kMax = 80;
  if (s.size() > kMax) s = s.substr(0, kMax - 3) + "...";
  return s;
}

// "/search/hardware/1/values: [4,8] in the log, [4,8,16] now; ..." for the first few
// differences of two canonical spaces (JSON Patch paths, RFC 6902).
std::string space_difference(const std::string& logged, const std::string& now) {
  const auto parsed_a = detail::parse_json_record(logged);
  const auto parsed_b = detail::parse_json_record(now);
  if (!parsed_a || !parsed_b) return {};
  const Json &a = *parsed_a, &b = *parsed_b;
  // One entry per changed axis, constraint or list of the search section (a range written as
  // a list is many patch operations); design changes at the changed field.
  std::vector<std::string> paths;
  for (const auto& op : Json::diff(a, b)) {
    std::string path = op.value("path", "");
    if (path.rfind("/search/", 0) == 0) {
      std::vector<std::size_t> slashes;
      for (std::size_t i = 0; i < path.size(); ++i)
        if (path[i] == '/') slashes.push_back(i);
      const std::string section = path.substr(8, path.find('/', 8) - 8);
      const std::size_t keep =
          section == "hardware" || section == "parallel" || section == "constraints" ? 3 : 2;
      if (slashes.size() > keep) path = path.substr(0, slashes[keep]);
    }
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  std::string out;
  constexpr std::size_t kShown = 4;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (i == kShown) {
      out += "; and " + std::to_string(paths.size() - kShown) + " more";
      break;
    }
    Json::json_pointer ptr;
    try {
      ptr = Json::json_pointer(paths[i]);
    } catch (const Json::exception&) {
      continue;
    }
    const std::string was = a.contains(ptr) ? short_text(a.at(ptr)) : "absent";
    const std::string is = b.contains(ptr) ? short_text(b.at(ptr)) : "absent";
    out += (i ? "; " : "") + paths[i] + ": " + was + " in the log, " + is + " now";
  }
  return out;
}

// Lines of a file, at most kMaxLine bytes each; `complete` is false for a last line without
// its newline (cut short by a kill).
class LineReader {
 public:
  explicit LineReader(std::FILE* f) : f_(f) {}
  enum class Status { line, end, too_long };
  Status next(std::string& line, bool& complete) {
    line.clear();
    complete = false;
    char buf[1 << 16];
    while (std::fgets(buf, sizeof buf, f_)) {
      const std::size_t n = std::strlen(buf);
      line.append(buf, n);
      if (n > 0 && buf[n - 1] == '\n') {
        line.pop_back();
        complete = true;
        return Status::line;
      }
      if (line.size() > kMaxLine) return Status::too_long;
    }
    return line.empty() ? Status::end : Status::line;
  }

 private:
  std::FILE* f_;
};

// The parsed object of a log line, verified when the log has checksums.
std::optional<Json> parse_line(const std::string& line, int format, std::string& why) {
  std::string body;
  if (format >= 2) {
    auto v = verify_log_line(line);
    if (!v) {
      why = line.find(kCrcKey) == std::string::npos ? "no checksum" : "checksum mismatch";
      return std::nullopt;
    }
    body = std::move(*v);
  } else {
    body = line;
  }
  detail::Issues issues;
  auto j = detail::parse_json_text(body, "search log line", "", issues);
  if (!j || !issues.empty() || !j->is_object()) {
    why = "not a JSON object";
    return std::nullopt;
  }
  return j;
}

// Opens `p` for reading without blocking (a FIFO in its place must not hang us) and checks it
// is a regular file. Returns null with errno ENOENT when it does not exist.
std::FILE* open_regular(const std::filesystem::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return nullptr;
    throw error("cannot read '" + p.string() + "': " + std::strerror(errno),
                "a readable points.jsonl written by stackscope-cli search");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISFIFO(st.st_mode)                         ? "a FIFO"
                       : S_ISDIR(st.st_mode)                        ? "a directory"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                    : "not a regular file";
    throw error("'" + p.string() + "' is " + std::string(kind) + ", not a search log",
                "a regular file written by stackscope-cli search; " + start_over(p));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    throw std::runtime_error("cannot read '" + p.string() + "': " + std::strerror(errno));
  }
  return f;
}

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f) std::fclose(f);
  }
};

// Creates DIR (a file of that name, or no permission: ConfigError), then opens and locks
// DIR/search.lock, writing our pid into it: the write probe and the guard against a second
// search on the same directory. Returns the lock's descriptor.
int lock_directory(const std::filesystem::path& dir) {
  make_output_dir(dir, "--out");
  const std::filesystem::path lp = dir / kLockName;
  const int fd =
      ::open(lp.c_str(), O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
  if (fd < 0)
    throw error("cannot write in the output directory '" + dir.string() + "' (" + lp.string() +
                    ": " + std::strerror(errno) + ")",
                "a directory this user can write");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw error("'" + lp.string() + "' is not a regular file", "remove it");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    if (e == EWOULDBLOCK)
      throw error("'" + dir.string() + "' is in use by another search" +
                      (pid.empty() ? "" : " (pid " + pid + ")") + ", which holds " + lp.string(),
                  "wait for it to finish, or another --out directory");
    throw error("cannot lock '" + lp.string() + "': " + std::strerror(e),
                "a local directory that supports flock");
  }
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
    const int e = errno;
    ::close(fd);
    throw error("cannot write in the output directory '" + dir.string() + "' (" + lp.string() +
                    ": " + std::strerror(e) + ")",
                "a directory this user can write (and a disk with space)");
  }
  return fd;
}

// A unique temporary file next to the log (mkstemp), opened for writing.
std::FILE* temp_file(const std::filesystem::path& dir, std::filesystem::path& name) {
  std::string tmpl = (dir / kTempPrefix).string() + std::to_string(::getpid()) + "-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    throw error("cannot create a temporary file in '" + dir.string() + "': " + std::strerror(errno),
                "a directory this user can write");
  name = tmpl;
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    std::error_code ec;
    std::filesystem::remove(name, ec);
    throw std::runtime_error("cannot write '" + name.string() + "'");
  }
  return f;
}

// Leftover temporary files of killed resumes (we hold the lock: nobody else writes them).
void remove_stale_temps(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(kTempPrefix, 0) == 0) std::filesystem::remove(e.path(), ec);
  }
}

// The header of a log: its first line. `no_record` when the file has no complete line (empty,
// or a header cut short by a kill): it holds no result.
struct HeaderRead {
  bool no_record = false;
  int format = kSearchLogVersion;
  std::optional<SearchLogHeader> header;
  std::string why;  // when the header is unreadable
};

HeaderRead read_header(LineReader& r) {
  HeaderRead h;
  std::string line;
  bool complete = false;
  const auto st = r.next(line, complete);
  if (st == LineReader::Status::end || (st == LineReader::Status::line && !complete)) {
    h.no_record = true;
    return h;
  }
  if (st == LineReader::Status::too_long) {
    h.why = "its first line is longer than " + std::to_string(kMaxLine >> 20) + " MiB";
    return h;
  }
  std::string why;
  const bool checked = verify_log_line(line).has_value();
  auto j = parse_line(line, checked ? 2 : 1, why);
  if (!j) {
    h.why = "line 1 (the header) is not JSON: " + why;
    return h;
  }
  if (const auto it = j->find("log_version"); it != j->end()) {
    const Json& v = *it;
    const auto version = exact_integer<std::uint64_t>(v);
    if (!version || *version < 2 || *version > kSearchLogVersion) {
      h.why = "it is log format " + short_text(v) + "; this version reads formats 1 to " +
              std::to_string(kSearchLogVersion);
      return h;
    }
    h.format = static_cast<int>(*version);
    if (!checked) {
      h.why = "line 1 (the header): checksum mismatch";
      return h;
    }
  } else {
    h.format = 1;  // written before checksums
  }
  h.header = header_from(*j);
  if (!h.header) h.why = "line 1 is not a search log header";
  // Formats 1 and 2 visited the ordered pass in index order.
  if (h.header && h.format < 3) h.header->strata_order = false;
  return h;
}

}  // namespace

int lock_search_directory(const std::filesystem::path& dir) {
  return lock_directory(dir);
}

std::uint32_t crc32(std::string_view text) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : text) c = table[(c ^ b) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string seal_log_line(std::string_view obj) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc32(obj));
  std::string s(obj.substr(0, obj.size() - 1));  // without the closing '}'
  s += kCrcKey;
  s += hex;
  s += "\"}";
  return s;
}

std::optional<std::string> verify_log_line(std::string_view line) {
  if (line.size() < kCrcSuffix + 2 || line.back() != '}') return std::nullopt;
  const std::size_t at = line.size() - kCrcSuffix;
  if (line.substr(at, kCrcKey.size()) != kCrcKey || line[line.size() - 2] != '"')
    return std::nullopt;
  std::uint32_t want = 0;
  for (std::size_t i = at + kCrcKey.size(); i < line.size() - 2; ++i) {
    const char ch = line[i];
    const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    want = want << 4 | static_cast<std::uint32_t>(d);
  }
  std::string body(line.substr(0, at));
  body += '}';
  if (crc32(body) != want) return std::nullopt;
  return body;
}

SearchLog SearchLog::create(const std::filesystem::path& dir, const SearchLogHeader& header,
                            std::vector<std::string>* notes) {
  SearchLog log;
  log.lock_fd_ = lock_directory(dir);
  log.path_ = dir / kLogName;
  log.header_ = header;
  log.order_ = order_of(header);
  struct stat st {};
  if (::lstat(log.path_.c_str(), &st) == 0) {
    // Something is there: replace it only if it holds no result.
    std::FILE* f = open_regular(log.path_);
    FileCloser close_it{f};
    LineReader r(f);
    const HeaderRead h = read_header(r);
    if (!h.no_record) {
      if (h.header)
        throw error("'" + log.path_.string() + "' already exists (a search was run there)",
                    "--resume to continue it, or another --out directory");
      throw error("'" + log.path_.string() + "' is not a readable search log (" + h.why + ")",
                  start_over(log.path_));
    }
    std::error_code ec;
    std::filesystem::remove(log.path_, ec);
    if (notes)
      notes->push_back("'" + log.path_.string() +
                       "' held no record (empty, or its header was cut short): replaced");
  }
  const int fd = ::open(log.path_.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0)
    throw error("cannot create '" + log.path_.string() + "': " + std::strerror(errno),
                "a directory this user can write");
  log.file_ = ::fdopen(fd, "ab");
  if (!log.file_) {
    ::close(fd);
    throw std::runtime_error("cannot write '" + log.path_.string() + "'");
  }
  write_line(log.file_, sealed(header_json(header)), log.path_);
  flush(log.file_, log.path_);
  log.last_write_s_ = now_s();
  return log;
}

SearchLog SearchLog::resume(const std::filesystem::path& dir, const SearchLogHeader& header,
                            std::span<const search::Objective> objectives, ResumeState& state,
                            const ResumeLimits& limits) {
  state = ResumeState{};
  state.archive = search::Archive(objectives);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw error("--resume: no search log '" + (dir / kLogName).string() + "' to resume",
                "the --out directory of an earlier run (without --resume to start one)");
  SearchLog log;
  log.lock_fd_ = lock_directory(dir);
  log.path_ = dir / kLogName;
  log.header_ = header;
  remove_stale_temps(dir);
  std::FILE* in = open_regular(log.path_);
  if (!in)
    throw error("--resume: no search log '" + log.path_.string() + "' to resume",
                "the --out directory of an earlier run (without --resume to start one)");
  FileCloser close_in{in};
  LineReader reader(in);
  const HeaderRead h = read_header(reader);
  const std::string& p = log.path_.string();
  if (!h.no_record) {
    if (!h.header)
      throw error("--resume: '" + p + "' is not a readable search log (" + h.why +
                      "); nothing can be resumed from it",
                  start_over(log.path_));
    // Format 1 fingerprinted the file's spelling of the space, not its canonical form.
    SearchLogHeader expected = header;
    if (h.format == 1) expected.fingerprint = header.legacy_fingerprint;
    if (!(*h.header == expected)) {
      std::string what;
      if (h.header->fingerprint != header.fingerprint && !h.header->space.empty() &&
          !header.space.empty())
        what = space_difference(h.header->space, header.space);
      if (what.empty())
        what = header_text(*h.header) + "; this run: " + header_text(header);
      else if (h.header->strategy != header.strategy || h.header->seed != header.seed ||
               h.header->samples != header.samples || h.header->shard_index != header.shard_index ||
               h.header->shard_count != header.shard_count)
        what += "; run: " + header_text(*h.header) + " in the log, " + header_text(header) + " now";
      throw error("--resume: '" + p + "' belongs to a different search (" + what + ")",
                  "the same project, strategy, seed, samples and shard; " + start_over(log.path_));
    }
  }
  state.format = h.format;
  // The resumed run visits in the order the log was written in.
  if (h.header) log.header_.strata_order = h.header->strata_order;
  state.strata_order = log.header_.strata_order;
  log.order_ = order_of(log.header_);
  if (h.no_record)
    state.notes.push_back("'" + p +
                          "' held no record (empty, or its header was cut short): the search "
                          "starts from the beginning");
  if (h.format == 1)
    state.notes.push_back("'" + p +
                          "' is log format 1 (no checksums): read unverified and rewritten in "
                          "format " +
                          std::to_string(kSearchLogVersion));

  // Pass 1: the longest good prefix of lines, and its last watermark.
  std::uint64_t line_no = 1, cut = 0;  // cut: first line not kept (0 = none)
  bool cut_truncated = false;          // the cut line is a last line without its newline
  std::string bad_why;
  if (!h.no_record) {
    std::string line;
    bool complete = false;
    for (;;) {
      const auto st = reader.next(line, complete);
      if (st == LineReader::Status::end) break;
      ++line_no;
      if (st == LineReader::Status::too_long) {
        cut = line_no;
        bad_why = "longer than " + std::to_string(kMaxLine >> 20) + " MiB";
        break;
      }
      if (!complete) {  // the kill: half a line at the end
        cut = line_no;
        cut_truncated = true;
        break;
      }
      std::string why;
      const auto j = parse_line(line, h.format, why);
      bool ok = j.has_value();
      if (ok && j->contains("done_below")) {
        try {
          const UnitCounters c{integer_at<std::uint64_t>(*j, "evaluated"),
                               integer_at<std::uint64_t>(*j, "pruned"),
                               integer_at<std::uint64_t>(*j, "pruned_bound"),
                               integer_at<std::uint64_t>(*j, "infeasible")};
          const auto below = integer_at<std::uint64_t>(*j, "done_below");
          const auto& t = state.totals;
          if (below > limits.units) {
            ok = false;
            why = "watermark " + std::to_string(below) + " is past the run's " +
                  std::to_string(limits.units) + " work units";
          } else if (below < state.done_below || c.evaluated < t.evaluated || c.pruned < t.pruned ||
                     c.pruned_bound < t.pruned_bound || c.infeasible < t.infeasible) {
            ok = false;
            why = "watermark goes back";
          } else {
            state.done_below = below;
            state.totals = c;
          }
        } catch (const Json::exception&) {
          ok = false;
          why = "malformed watermark";
        }
      } else if (ok && j->contains("hw")) {
        const auto rec = point_from_jsonl(detail::dump(*j, -1));
        if (!rec || (limits.point_ok && !limits.point_ok(*rec))) {
          ok = false;
          why = rec ? "point not in this search's space" : "malformed point";
        }
      } else if (ok) {
        ok = false;
        why = "neither a point nor a watermark";
      }
      if (!ok) {
        cut = line_no;
        bad_why = why;
        break;
      }
    }
    if (cut != 0 && !cut_truncated) {
      std::uint64_t rest = 0;
      std::string line2;
      bool complete2 = false;
      while (reader.next(line2, complete2) != LineReader::Status::end) ++rest;
      state.notes.push_back("'" + p + "' line " + std::to_string(cut) + " is damaged (" + bad_why +
                            "): resumed from the last good watermark before it (" +
                            std::to_string(state.done_below) + " finished work units); " +
                            std::to_string(rest + 1) + (rest ? " lines" : " line") +
                            " from there on discarded");
    }
  }

  // Pass 2: keep the points below the watermark, streamed into a new file that replaces the old
  // one by rename (a crash here leaves the old log intact).
  std::filesystem::path tmp;
  std::FILE* out = temp_file(dir, tmp);
  try {
    write_line(out, sealed(header_json(log.header_)), tmp);
    if (!h.no_record) {
      std::rewind(in);
      LineReader again(in);
      std::string line;
      bool complete = false;
      again.next(line, complete);  // the header
      for (std::uint64_t n = 2; cut == 0 || n < cut; ++n) {
        if (again.next(line, complete) == LineReader::Status::end) break;
        std::string why;
        const auto j = parse_line(line, h.format, why);
        if (!j || !j->contains("hw")) continue;  // watermarks: one is rewritten below
        auto pt = point_from_jsonl(detail::dump(*j, -1));
        if (!pt) break;
        if (ordinal_of(log.header_, log.order_, pt->unit) >= state.done_below) {
          ++state.dropped_points;
          continue;
        }
        state.archive.insert(*pt);
        write_line(out, h.format >= 2 ? line : seal_log_line(line), tmp);
      }
    }
    write_line(out, sealed(watermark_json(state.done_below, state.totals)), tmp);
    if (std::fflush(out) != 0 || ::fsync(::fileno(out)) != 0) write_failed(tmp);
  } catch (...) {
    std::fclose(out);
    std::filesystem::remove(tmp, ec);
    throw;
  }
  std::fclose(out);
  std::filesystem::rename(tmp, log.path_, ec);
  if (ec) {
    std::error_code ignore;
    std::filesystem::remove(tmp, ignore);
    throw std::runtime_error("cannot replace '" + p + "': " + ec.message());
  }
  const int fd = ::open(log.path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
  log.file_ = fd < 0 ? nullptr : ::fdopen(fd, "ab");
  if (!log.file_) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot open search log '" + p + "': " + std::strerror(errno));
  }
  log.done_below_ = log.written_below_ = state.done_below;
  log.totals_ = state.totals;
  log.last_write_s_ = now_s();
  return log;
}

SearchLog::SearchLog(SearchLog&& o) noexcept
    : path_(std::move(o.path_)),
      file_(o.file_),
      lock_fd_(o.lock_fd_),
      header_(std::move(o.header_)),
      order_(std::move(o.order_)),
      done_below_(o.done_below_),
      written_below_(o.written_below_),
      totals_(o.totals_),
      pending_(std::move(o.pending_)),
      last_write_s_(o.last_write_s_) {
  watermark_interval_s = o.watermark_interval_s;
  o.file_ = nullptr;
  o.lock_fd_ = -1;
}

SearchLog& SearchLog::operator=(SearchLog&& o) noexcept {
  if (this != &o) {
    close();
    path_ = std::move(o.path_);
    file_ = o.file_;
    lock_fd_ = o.lock_fd_;
    header_ = std::move(o.header_);
    order_ = std::move(o.order_);
    done_below_ = o.done_below_;
    written_below_ = o.written_below_;
    totals_ = o.totals_;
    pending_ = std::move(o.pending_);
    last_write_s_ = o.last_write_s_;
    watermark_interval_s = o.watermark_interval_s;
    o.file_ = nullptr;
    o.lock_fd_ = -1;
  }
  return *this;
}

void SearchLog::close() noexcept {
  if (file_) {
    try {
      flush_watermark();
    } catch (...) {  // a destructor must not throw; the last written watermark stays valid
    }
    std::fclose(file_);
    file_ = nullptr;
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);  // releases the flock
    lock_fd_ = -1;
  }
}

SearchLog::~SearchLog() {
  close();
}

std::uint64_t SearchLog::ordinal(std::uint64_t unit) const {
  return ordinal_of(header_, order_, unit);
}

void SearchLog::append(std::span<const search::PointRecord> points) {
  for (const auto& p : points) write_line(file_, seal_log_line(point_to_jsonl(p)), path_);
  flush(file_, path_);
}

void SearchLog::unit_done(std::uint64_t unit, const UnitCounters& c) {
  const std::uint64_t o = ordinal(unit);
  if (o < done_below_) return;  // already counted (cannot happen with a well-behaved engine)
  pending_.emplace(o, c);
  // Advance over consecutive finished units (the map is ordered by ordinal).
  while (!pending_.empty() && pending_.begin()->first == done_below_) {
    const auto& u = pending_.begin()->second;
    totals_.evaluated += u.evaluated;
    totals_.pruned += u.pruned;
    totals_.pruned_bound += u.pruned_bound;
    totals_.infeasible += u.infeasible;
    ++done_below_;
    pending_.erase(pending_.begin());
  }
  if (done_below_ != written_below_ && now_s() - last_write_s_ >= watermark_interval_s)
    flush_watermark();
}

void SearchLog::flush_watermark() {
  if (done_below_ == written_below_) return;
  write_line(file_, sealed(watermark_json(done_below_, totals_)), path_);
  flush(file_, path_);
  written_below_ = done_below_;
  last_write_s_ = now_s();
}

}  // namespace stackscope::io
