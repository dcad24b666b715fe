// SPDX-License-Identifier: GPL-3.0-or-later
// Bounded whole-file reads, plain or gzip (io/read_file.hpp). Decompression is zlib's inflate
// with windowBits 16 + MAX_WBITS (gzip wrapper only: header, deflate data, CRC-32 and ISIZE
// trailer checked by zlib; zlib manual, "inflateInit2").
#include "stackscope/io/read_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <fstream>

#include "stackscope/common/issue.hpp"

namespace stackscope::io {
namespace {

std::string limit_text(std::size_t max_bytes) {
  return std::to_string(max_bytes) + " bytes (" + std::to_string(max_bytes / limits::kMiB) +
         " MiB)";
}

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates every gzip member of `bytes`; at most max_bytes of text.
std::string gunzip(const std::string& bytes, const std::string& name, const std::string& path,
                   std::size_t max_bytes) {
  const auto fail = [&](const std::string& what, const std::string& value = "") {
    return ConfigError({{path, "cannot read gzip file " + name + ": " + what, value,
                         "a complete gzip (RFC 1952) file"}});
  };
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw fail("zlib could not start");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&z};

  std::string text;
  char out[1 << 16];
  std::size_t consumed = 0;  // bytes of `bytes` handed to zlib so far
  // Each member; a next member follows only where one ended with input left over.
  for (;;) {
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (z.avail_in == 0 && consumed < bytes.size()) {
        const std::size_t chunk = std::min<std::size_t>(bytes.size() - consumed, 1u << 30);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
        z.avail_in = static_cast<uInt>(chunk);
        consumed += chunk;
      }
      z.next_out = reinterpret_cast<Bytef*>(out);
      z.avail_out = sizeof out;
      rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t produced = sizeof out - z.avail_out;
      if (text.size() + produced > max_bytes)
        throw ConfigError({{path, "gzip file " + name + " decompresses to more than the limit",
                            "more than " + std::to_string(max_bytes) + " bytes",
                            "at most " + limit_text(max_bytes) + " of text"}});
      text.append(out, produced);
      if (rc == Z_STREAM_END) break;
      if (rc == Z_BUF_ERROR && z.avail_in == 0 && consumed == bytes.size())
        throw fail("the file ends inside the compressed stream (truncated)",
                   std::to_string(bytes.size()) + " bytes");
      if (rc == Z_DATA_ERROR)
        throw fail(std::string("corrupt data (") + (z.msg ? z.msg : "zlib data error") + ")");
      if (rc == Z_MEM_ERROR) throw fail("out of memory in zlib");
      if (rc != Z_OK && rc != Z_BUF_ERROR) throw fail("zlib error " + std::to_string(rc));
    }
    // Input left after a member: another member (RFC 1952 2.2) or trailing garbage.
    const std::size_t left = z.avail_in + (bytes.size() - consumed);
    if (left == 0) break;
    const std::size_t at = bytes.size() - left;
    if (left < 2 || static_cast<unsigned char>(bytes[at]) != 0x1f ||
        static_cast<unsigned char>(bytes[at + 1]) != 0x8b)
      throw fail("bytes after the end of the compressed stream",
                 std::to_string(left) + " bytes at offset " + std::to_string(at));
    if (inflateReset(&z) != Z_OK) throw fail("zlib could not restart");
  }
  return text;
}

}  // namespace

std::string read_text_file(const std::filesystem::path& file, const std::string& path,
                           std::size_t max_bytes) {
  const std::string name = "'" + file.string() + "'";
  const std::string allowed = "a regular file of at most " + limit_text(max_bytes);
  const auto too_large = [&](const std::string& size) {
    return ConfigError({{path, "file " + name + " is larger than the limit", size, allowed}});
  };
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status))
    throw ConfigError({{path, "file not found: " + name, "", ""}});
  if (!std::filesystem::is_regular_file(status)) {
    const char* kind =
        std::filesystem::is_directory(status) ? "a directory"
        : std::filesystem::is_fifo(status)    ? "a FIFO"
        : std::filesystem::is_character_file(status) || std::filesystem::is_block_file(status)
            ? "a device"
            : "not a regular file";
    throw ConfigError(
        {{path, "cannot read " + name + ": it is " + std::string(kind), "", allowed}});
  }
  const auto size = std::filesystem::file_size(file, ec);
  if (!ec && size > max_bytes) throw too_large(std::to_string(size) + " bytes");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({{path, "cannot read file " + name, "", ""}});
  std::string bytes;
  if (!ec) bytes.reserve(static_cast<std::size_t>(size));
  // The size can change after the check (a growing log); the cap holds whatever happens.
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > max_bytes)
      throw too_large("more than " + std::to_string(max_bytes) + " bytes");
  }
  if (in.bad()) throw ConfigError({{path, "error reading file " + name, "", ""}});
  return is_gzip(bytes) ? gunzip(bytes, name, path, max_bytes) : bytes;
}

}  // namespace stackscope::io
