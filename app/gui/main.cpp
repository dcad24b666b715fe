// SPDX-License-Identifier: GPL-3.0-or-later
// stackscope: the desktop workbench. All behaviour lives in stackscope::ui.
//   stackscope [PROJECT.json]
//   stackscope --screenshots DIR [PROJECT.json]   render every view to DIR/*.png and exit
#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <cstdio>

#include "stackscope/ui/main_window.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("StackScope"));
  QApplication::setApplicationVersion(QStringLiteral(STACKSCOPE_VERSION));
  QApplication::setOrganizationDomain(QStringLiteral("stackscope.io"));
  QApplication::setStyle(QStringLiteral("Fusion"));  // same look on every desktop and offscreen

  QCommandLineParser cli;
  cli.setApplicationDescription(
      QStringLiteral("Design-space exploration of LLM-inference hardware"));
  cli.addHelpOption();
  cli.addVersionOption();
  const QCommandLineOption shots(QStringLiteral("screenshots"),
                                 QStringLiteral("Render every view to DIR/*.png and exit."),
                                 QStringLiteral("DIR"));
  cli.addOption(shots);
  cli.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project JSON file to open."),
                            QStringLiteral("[PROJECT.json]"));
  cli.process(app);

  stackscope::ui::MainWindow window;
  if (const QStringList files = cli.positionalArguments(); !files.isEmpty()) {
    QString error;
    if (!window.openProject(files.front(), &error)) {
      std::fprintf(stderr, "error: %s: %s\n", qPrintable(files.front()),
                   qPrintable(error.simplified()));
      if (cli.isSet(shots)) return 2;
      // Interactive: say why and carry on with the default project rather than vanish.
      window.show();
      QMessageBox::warning(&window, QObject::tr("Cannot open project"),
                           files.front() + QStringLiteral("\n\n") + error);
    }
  }
  if (cli.isSet(shots)) {
    QString error;
    const QStringList written = window.saveScreenshots(cli.value(shots), &error);
    if (written.isEmpty()) {
      std::fprintf(stderr, "error: screenshots: %s\n", qPrintable(error));
      return 1;
    }
    for (const QString& f : written) std::printf("%s\n", qPrintable(f));
    return 0;
  }
  // Interactive sessions keep the window geometry, splitter and tab between runs (not the
  // screenshot mode: its pictures must not depend on the last session).
  window.enableSessionState();
  window.show();
  return QApplication::exec();
}
