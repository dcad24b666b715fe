// SPDX-License-Identifier: GPL-3.0-or-later
// Request traces for the serving simulator: the file is read here (bounded), parsed by
// core/serving (serving::parse_trace), which never touches the file system.
#include "sections.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/project.hpp"

namespace stackscope::io {

std::vector<serving::Request> load_trace(const std::filesystem::path& file,
                                         serving::TraceFormat format, serving::TraceStats* stats) {
  const std::string source = file.string();
  const std::string text = detail::read_text_file(file, source, limits::kMaxTraceFileBytes);
  return serving::parse_trace(text, source, format, stats);
}

}  // namespace stackscope::io
