// SPDX-License-Identifier: GPL-3.0-or-later
// `kernels`: reads a measured kernel table and checks its interpolation by leave-one-out.
#include <filesystem>
#include <memory>
#include <vector>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/io/kernel_table_foreign.hpp"
#include "stackscope/kernels/table.hpp"

namespace stackscope::cli {
namespace {

std::vector<OptionSpec> kernels_options() {
  return {{"--json", "", "print the result as JSON"}, {"--help", "", "show this help"}};
}

int run_kernels(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = kernels_options();
  const ParsedArgs a = parse_args("kernels", args, options, 16);
  if (a.has("--help")) {
    print_command_help(make_kernels_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty())
    throw CliError(
        "kernels: missing TABLE (allowed: a built-in table's id, e.g. h200, or kernel-table "
        "CSV files, docs/model.md §3.5)");
  // A built-in id, or files in any layout the readers detect, merged in order.
  std::shared_ptr<const kernels::Table> loaded;
  std::vector<io::FileReport> reports;
  try {
    const std::string& first = a.positional.front();
    if (a.positional.size() == 1 && !io::is_kernel_table_file(first)) {
      loaded = io::resolve_kernel_table(first, {}, "kernels");
    } else {
      const std::vector<std::filesystem::path> files(a.positional.begin(), a.positional.end());
      loaded = std::make_shared<const kernels::Table>(io::load_kernel_tables(files, &reports));
    }
  } catch (const ConfigError& e) {
    print_issues(ctx.err, e.issues());
    return kExitBadInput;
  }
  const kernels::Table& table = *loaded;
  const kernels::LeaveOneOutReport loo = kernels::leave_one_out(table);
  if (a.has("--json")) {
    ctx.out << io::kernel_check_json(table, loo);
    return kExitOk;
  }
  for (const io::FileReport& r : reports) {
    ctx.out << r.file << " (" << r.layout << "): " << r.rows << " rows read, " << r.gemm
            << " GEMM, " << r.decode << " decode and " << r.prefill << " prefill attention rows\n";
    for (const io::SkippedRows& k : r.skipped)
      ctx.out << "  left out: " << k.rows << " rows, " << k.reason << " (first at line "
              << k.first_line << ")\n";
  }
  ctx.out << "kernel table " << table.source << ": " << table.gemm.size() << " GEMM rows, "
          << table.attention.size() << " attention rows\n"
          << "leave-one-out (each row from its neighbours; rows at the ends of a measured range\n"
          << "cannot be predicted and are counted apart):\n";
  const auto line = [&](const char* what, const kernels::LeaveOneOut& l) {
    if (l.rows == 0) return;
    ctx.out << "  " << what << l.predicted << " of " << l.rows << " rows predictable";
    if (l.predicted > 0)
      ctx.out << ", median " << fixed(100 * l.median, 1) << " %, p90 " << fixed(100 * l.p90, 1)
              << " %, max " << fixed(100 * l.max, 1) << " %";
    ctx.out << "\n";
  };
  line("GEMM               ", loo.gemm);
  line("decode attention   ", loo.decode_attention);
  line("prefill attention  ", loo.prefill_attention);
  line("all                ", loo.all);
  return kExitOk;
}

}  // namespace

Command make_kernels_command() {
  Command c;
  c.name = "kernels";
  c.synopsis = "kernels ID | TABLE.csv... [--json]";
  c.summary = "read a measured kernel table and check its interpolation (leave-one-out)";
  c.description =
      "Reads a kernel table, a built-in one by id (h200) or CSV files merged in order: this\n"
      "format (kind, precision, time_s, and m, n, k for gemm rows or batch, seq, heads,\n"
      "kv_heads, head_dim for attn_decode and attn_prefill rows; docs/model.md §3.5), or\n"
      "AIConfigurator's gemm_perf / generation_attention_perf / context_attention_perf and\n"
      "Vidur's mlp.csv / attention.csv, detected from the header (rows they hold that have no\n"
      "counterpart here are listed per file with the reason). It predicts each row from the\n"
      "other rows of its kind, precision and shape: a GEMM's time over the table's roofline,\n"
      "linear in log m between the two nearest measured m; decode attention's time over its\n"
      "rows' roofline in log context and log batch; prefill attention's FLOP rate in log seq.\n"
      "Rows at the ends of a measured range cannot be predicted and are counted apart. Prints,\n"
      "per kind and over all rows, the rows predicted and the median, p90 and max of the\n"
      "absolute relative errors. A malformed\n"
      "table is refused with one 'error:' line per problem (file:line, column, value, allowed\n"
      "range; exit 2).";
  c.options = kernels_options();
  c.run = run_kernels;
  return c;
}

}  // namespace stackscope::cli
