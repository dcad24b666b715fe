// SPDX-License-Identifier: GPL-3.0-or-later
// `kernels`: reads a measured kernel table and checks its interpolation by leave-one-out.
#include <filesystem>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/kernels/table.hpp"

namespace stackscope::cli {
namespace {

std::vector<OptionSpec> kernels_options() {
  return {{"--json", "", "print the result as JSON"}, {"--help", "", "show this help"}};
}

int run_kernels(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = kernels_options();
  const ParsedArgs a = parse_args("kernels", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_kernels_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty())
    throw CliError("kernels: missing TABLE.csv (allowed: a kernel table, docs/model.md §3.4)");
  const std::filesystem::path file = a.positional.front();
  kernels::Table table;
  try {
    table = io::load_kernel_table(file);
  } catch (const ConfigError& e) {
    print_issues(ctx.err, e.issues());
    return kExitBadInput;
  }
  const kernels::LeaveOneOut loo = kernels::leave_one_out(table);
  if (a.has("--json")) {
    ctx.out << io::kernel_check_json(table, loo);
    return kExitOk;
  }
  ctx.out << "kernel table " << file.string() << ": " << table.gemm.size() << " GEMM rows\n"
          << "leave-one-out (each row from its shape's neighbours in m): " << loo.predicted
          << " of " << loo.rows << " rows predictable, median " << fixed(100 * loo.median, 1)
          << " %, p90 " << fixed(100 * loo.p90, 1) << " %, max " << fixed(100 * loo.max, 1)
          << " %\n";
  return kExitOk;
}

}  // namespace

Command make_kernels_command() {
  Command c;
  c.name = "kernels";
  c.synopsis = "kernels TABLE.csv [--json]";
  c.summary = "read a measured kernel table and check its interpolation (leave-one-out)";
  c.description =
      "Reads a kernel table (CSV: kind, precision, m, n, k, time_s; docs/model.md §3.4) and\n"
      "predicts each GEMM row from the other rows of its precision and weight shape: its time\n"
      "over the table's own roofline, linear in log m between the two nearest measured m. Rows\n"
      "at the ends of a shape's range cannot be predicted and are counted apart. Prints the\n"
      "rows read and the median, p90 and max of the absolute relative errors. A malformed\n"
      "table is refused with one 'error:' line per problem (file:line, column, value, allowed\n"
      "range; exit 2).";
  c.options = kernels_options();
  c.run = run_kernels;
  return c;
}

}  // namespace stackscope::cli
