// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whole-file reads of every text input core/io takes: projects, presets, search spaces, request
// and routing traces, HotSpot files and measured reference rows. A file is plain text or gzip
// (RFC 1952, recognised by its first two bytes 1f 8b whatever its name), so the repository can
// ship its larger data sets compressed (data/) and users can hand over `trace.csv.gz` as is.
#include <cstddef>
#include <filesystem>
#include <string>

#include "stackscope/io/limits.hpp"

namespace stackscope::io {

// The text of `file`. Throws ConfigError, at `path` (a JSON path, or the file name for files
// that are not a section of a project), naming the file when it is missing, not a regular
// file (a directory, FIFO or device such as /dev/zero is refused before reading, so it can
// neither block nor fill memory), unreadable, or larger than `max_bytes`. The limit holds for
// the bytes on disk and, for gzip, for the decompressed text: decompression stops at
// max_bytes + 1 bytes, so a small file that inflates to gigabytes (a decompression bomb) costs
// at most max_bytes of memory. A gzip stream that ends early (a truncated download) or fails
// its checks (bad header, bad deflate data, CRC-32 or length mismatch) is an error that says
// so, never a partial text. Concatenated gzip members (RFC 1952 section 2.2) are read as one.
std::string read_text_file(const std::filesystem::path& file, const std::string& path,
                           std::size_t max_bytes = limits::kMaxProjectFileBytes);

}  // namespace stackscope::io
