// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/cli/report.hpp"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QHashFunctions>
#include <filesystem>
#include <iostream>
#include <memory>
#include <ostream>

#include "stackscope/io/project.hpp"
#include "stackscope/ui/main_window.hpp"

namespace stackscope::cli {
namespace {

std::vector<OptionSpec> report_options() {
  return {
      {"--out", "DIR", "folder for <name>.html and <name>.pdf (created if missing)"},
      {"--size", "WxH",
       "window size the views are laid out at, in logical pixels (default 1600x1000; "
       "320..7680 x 240..4320)"},
      {"--search", "SPACE", "also run this search space (preset id or file) for the Search section"},
      {"--search-evals", "N", "cap on the search's evaluations (default 20000; 1..10^9)"},
      {"--static-only", "", "report the static evaluation only: no serving, expert or wafer runs"},
      {"--help", "", "show this help"},
  };
}

// Qt's own chatter on a headless run (no XDG runtime folder, size hints the offscreen platform
// ignores) is not the user's business; its critical messages are passed on as notes.
void qt_messages(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtCriticalMsg || type == QtFatalMsg)
    std::cerr << "note: Qt: " << message.toStdString() << "\n";
}

int run_report(std::span<const std::string> args, Context& ctx) {
  const auto options = report_options();
  const ParsedArgs a = parse_args("report", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_report_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty())
    throw CliError("report: give a project (a project file or a project preset id; "
                   "'stackscope-cli presets' lists them)");
  const auto out = a.get("--out");
  if (!out) throw CliError("report: --out DIR is required (the folder the review is written to)");
  int width = 1600, height = 1000;
  if (const auto size = a.get("--size")) {
    const auto x = size->find('x');
    if (x == std::string::npos)
      throw CliError("report: --size '" + *size + "': expected WxH, e.g. 1600x1000");
    width = static_cast<int>(parse_int("--size", size->substr(0, x), 320, 7680));
    height = static_cast<int>(parse_int("--size", size->substr(x + 1), 240, 4320));
  }
  const std::string search = a.get("--search").value_or(std::string());
  std::uint64_t evals = 20000;
  if (const auto n = a.get("--search-evals")) {
    if (search.empty()) throw CliError("report: --search-evals needs --search SPACE");
    evals = static_cast<std::uint64_t>(parse_int("--search-evals", *n, 1, 1000000000));
  }
  if (a.has("--static-only") && !search.empty())
    throw CliError("report: --static-only and --search exclude each other");
  const std::string& project = a.positional.front();
  const bool isFile = std::filesystem::exists(project);
  if (!isFile && !ctx.presets.contains(io::PresetKind::project, project))
    throw CliError("report: '" + project +
                   "' is neither a file nor a project preset id ('stackscope-cli presets' lists "
                   "the presets)");

  // Qt's offscreen platform: no display is needed, and the figures do not depend on one.
  qputenv("QT_QPA_PLATFORM", "offscreen");
  // Qt's hashes are seeded at random per process, and the PDF writer lists its fonts in hash
  // order: a fixed seed gives the same bytes in every run.
  QHashSeed::setDeterministicGlobalSeed();
  qInstallMessageHandler(qt_messages);
  static int argc = 1;
  static char name[] = "stackscope-cli";
  static char* argv[] = {name, nullptr};
  std::unique_ptr<QApplication> owned;
  if (QApplication::instance() == nullptr) owned = std::make_unique<QApplication>(argc, argv);
  ui::MainWindow window;
  window.resize(width, height);
  window.show();
  QString error;
  if (isFile ? !window.openProject(QString::fromStdString(project), &error)
             : !window.openPreset(QString::fromStdString(project))) {
    ctx.err << "error: report: " << project << ": " << error.simplified().toStdString() << "\n";
    return kExitBadInput;
  }
  window.evaluateNow();
  if (!a.has("--static-only")) {
    if (!window.runForReview(QString::fromStdString(search), evals, &error)) {
      ctx.err << "error: report: " << error.simplified().toStdString() << "\n";
      return kExitBadInput;
    }
  }
  const QDir dir(QString::fromStdString(*out));
  if (!dir.exists() && !QDir().mkpath(dir.absolutePath())) {
    ctx.err << "error: report: --out '" << *out << "': cannot create the folder\n";
    return kExitBadInput;
  }
  const QString base = isFile ? QFileInfo(QString::fromStdString(project)).completeBaseName()
                              : QString::fromStdString(project);
  const QString html = dir.filePath(base + QStringLiteral(".html"));
  QStringList pages;
  if (!window.exportReport(html, &error, &pages)) {
    ctx.err << "error: report: " << error.simplified().toStdString() << "\n";
    return kExitBadInput;
  }
  ctx.out << html.toStdString() << "\n"
          << dir.filePath(base + QStringLiteral(".pdf")).toStdString() << " (" << pages.size()
          << " pages)\n";
  for (int i = 0; i < pages.size(); ++i)
    ctx.out << "  " << (i + 1) << ". " << pages[i].toStdString() << "\n";
  return kExitOk;
}

}  // namespace

Command make_report_command() {
  return {"report",
          "report PROJECT --out DIR [options]",
          "write a project's design review (HTML and 16:9 PDF)",
          "Evaluates the project, runs its serving simulation, its expert placement (MoE mesh "
          "designs) and its wafer map and sweep (wafer designs), optionally a search, and writes "
          "the design review the workbench's File > Export Design Review writes: "
          "DIR/<name>.html (one page, figures embedded) and DIR/<name>.pdf (16:9 slides: "
          "provenance, key metrics with the validation envelope, then each view's text, tables "
          "and figures). The same project and options give byte-identical files.",
          report_options(), run_report};
}

}  // namespace stackscope::cli
