// SPDX-License-Identifier: GPL-3.0-or-later
// io::read_text_file: plain and gzip files, the shipped compressed data, and the ways a gzip file
// can be wrong (cut short, corrupted, followed by junk, inflating past the limit), each refused
// with a ConfigError that says which.
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "stackscope/io/read_file.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

namespace fs = std::filesystem;
using testing::contains;

// gzip (RFC 1952) of `text` through zlib's deflate with the gzip wrapper (windowBits 16 + 15).
std::string gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

fs::path write(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

// The single issue of the ConfigError reading `file` throws (a failure if it reads).
Issue read_issue(const fs::path& file, std::size_t max_bytes = limits::kMaxTraceFileBytes) {
  try {
    (void)read_text_file(file, "/trace", max_bytes);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.issues().size(), 1u);
    if (!e.issues().empty()) return e.issues()[0];
  }
  ADD_FAILURE() << "no ConfigError reading " << file;
  return {};
}

const std::string kTrace = [] {
  std::string t = "arrival_s,input_tokens,output_tokens\n";
  for (int i = 0; i < 5000; ++i)
    t += std::to_string(i) + ".25," + std::to_string(100 + i % 977) + "," +
         std::to_string(1 + i % 31) + "\n";
  return t;
}();

TEST(ReadFile, PlainTextIsReadAsIs) {
  testing::TempDir dir("read-file");
  EXPECT_EQ(read_text_file(write(dir.path() / "t.csv", kTrace), "/trace"), kTrace);
  // Two bytes that are not the gzip magic, and an empty file, are plain text too.
  EXPECT_EQ(read_text_file(write(dir.path() / "one", "\x1f"), "/trace"), "\x1f");
  EXPECT_EQ(read_text_file(write(dir.path() / "empty", ""), "/trace"), "");
}

TEST(ReadFile, GzipIsRecognisedByItsMagicBytesNotItsName) {
  testing::TempDir dir("read-file");
  const std::string gz = gzip(kTrace);
  ASSERT_LT(gz.size(), kTrace.size() / 2);  // really compressed
  EXPECT_EQ(read_text_file(write(dir.path() / "t.csv.gz", gz), "/trace"), kTrace);
  EXPECT_EQ(read_text_file(write(dir.path() / "t.csv", gz), "/trace"), kTrace);
  // RFC 1952 2.2: a file may hold several members, read as their concatenation.
  const std::string half = kTrace.substr(0, kTrace.size() / 2);
  EXPECT_EQ(
      read_text_file(write(dir.path() / "two.gz", gzip(half) + gzip(kTrace.substr(half.size()))),
                     "/trace"),
      kTrace);
}

// The shipped Azure conversation trace (data/azure-llm-2023): 699,822 bytes of CSV, 19,366 rows.
TEST(ReadFile, ShippedGzipTraceDecompressesToThePublishedRows) {
  const auto text = read_text_file(fs::path(STACKSCOPE_DATA_DIR) / "azure-llm-2023" / "conv.csv.gz",
                                   "/trace", limits::kMaxTraceFileBytes);
  EXPECT_EQ(text.size(), 699822u);
  EXPECT_EQ(text.rfind("TIMESTAMP,ContextTokens,GeneratedTokens\n", 0), 0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 19366);
}

// A download cut anywhere — inside the header, the deflate data or the 8-byte CRC/length trailer —
// is an error naming the file and saying it is truncated, never the rows read so far.
TEST(ReadFile, TruncatedGzipIsRefused) {
  testing::TempDir dir("read-file");
  const std::string gz = gzip(kTrace);
  for (std::size_t keep :
       {std::size_t{2}, std::size_t{9}, gz.size() / 2, gz.size() - 5, gz.size() - 1}) {
    const auto file =
        write(dir.path() / ("cut-" + std::to_string(keep) + ".gz"), gz.substr(0, keep));
    const Issue issue = read_issue(file);
    EXPECT_EQ(issue.path, "/trace");
    EXPECT_TRUE(contains(issue.message, "truncated")) << keep << ": " << issue.message;
    EXPECT_TRUE(contains(issue.message, file.string())) << issue.message;
    EXPECT_EQ(issue.value, std::to_string(keep) + " bytes");
  }
}

TEST(ReadFile, CorruptGzipIsRefused) {
  testing::TempDir dir("read-file");
  const std::string gz = gzip(kTrace);
  // A wrong CRC-32 in the trailer: zlib's "incorrect data check".
  std::string bad_crc = gz;
  bad_crc[gz.size() - 8] = static_cast<char>(bad_crc[gz.size() - 8] ^ 0x55);
  Issue issue = read_issue(write(dir.path() / "crc.gz", bad_crc));
  EXPECT_TRUE(contains(issue.message, "corrupt data (incorrect data check)")) << issue.message;
  // A wrong compression method in the header (RFC 1952: CM = 8 is deflate).
  std::string bad_method = gz;
  bad_method[2] = 7;
  issue = read_issue(write(dir.path() / "method.gz", bad_method));
  EXPECT_TRUE(contains(issue.message, "corrupt data")) << issue.message;
  // Junk after the last member.
  issue = read_issue(write(dir.path() / "junk.gz", gz + "junk"));
  EXPECT_TRUE(contains(issue.message, "bytes after the end of the compressed stream"))
      << issue.message;
  EXPECT_EQ(issue.value, "4 bytes at offset " + std::to_string(gz.size()));
}

// A decompression bomb: 64 MiB of one byte deflates ~1000:1 into ~64 KiB. Read with a 1 MiB
// limit it is refused once the text passes 1 MiB (memory stays bounded by the limit), while a
// file that inflates to exactly the limit is read.
TEST(ReadFile, DecompressedSizeIsBoundedByTheLimit) {
  testing::TempDir dir("read-file");
  const std::size_t limit = limits::kMiB;
  const std::string bomb = gzip(std::string(64 * limits::kMiB, 'x'));
  ASSERT_LT(bomb.size(), 128u * 1024);
  const Issue issue = read_issue(write(dir.path() / "bomb.gz", bomb), limit);
  EXPECT_TRUE(contains(issue.message, "decompresses to more than the limit")) << issue.message;
  EXPECT_EQ(issue.value, "more than 1048576 bytes");
  EXPECT_TRUE(contains(issue.allowed, "1048576 bytes (1 MiB)")) << issue.allowed;

  const std::string exact(limit, 'y');
  EXPECT_EQ(read_text_file(write(dir.path() / "exact.gz", gzip(exact)), "/trace", limit), exact);
  const Issue over =
      read_issue(write(dir.path() / "over.gz", gzip(std::string(limit + 1, 'y'))), limit);
  EXPECT_TRUE(contains(over.message, "decompresses to more than the limit")) << over.message;
}

// The limit also holds for the bytes on disk, compressed or not, and a directory is refused.
TEST(ReadFile, FileOnDiskOverTheLimitAndDirectoriesAreRefused) {
  testing::TempDir dir("read-file");
  const Issue plain = read_issue(write(dir.path() / "t.csv", kTrace), 1000);
  EXPECT_TRUE(contains(plain.message, "larger than the limit")) << plain.message;
  EXPECT_EQ(plain.value, std::to_string(kTrace.size()) + " bytes");
  const Issue folder = read_issue(dir.path());
  EXPECT_TRUE(contains(folder.message, "it is a directory")) << folder.message;
}

}  // namespace
}  // namespace stackscope::io
