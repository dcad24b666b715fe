// SPDX-License-Identifier: GPL-3.0-or-later
// stackscope: the desktop workbench. All behaviour lives in stackscope::ui.
//   stackscope [PROJECT.json]
//   stackscope --screenshots DIR [PROJECT.json]   render every view to DIR/*.png and exit
#include <QApplication>
#include <QHashFunctions>
#include <QCommandLineParser>
#include <QMessageBox>
#include <cstdio>

#include "stackscope/ui/main_window.hpp"

int main(int argc, char** argv) {
  // Qt's hashes are seeded at random per process and the PDF writer lists a review's fonts in
  // hash order: a fixed seed makes File > Export Design Review give the same bytes every run.
  QHashSeed::setDeterministicGlobalSeed();
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
  const QCommandLineOption size(
      QStringLiteral("size"),
      QStringLiteral("With --screenshots: render the whole window at WxH (e.g. 1280x800) once "
                     "per result tab instead of each view."),
      QStringLiteral("WxH"));
  cli.addOption(size);
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
  if (cli.isSet(size) && !cli.isSet(shots)) {
    std::fprintf(stderr, "error: --size needs --screenshots DIR\n");
    return 2;
  }
  if (cli.isSet(shots)) {
    QString error;
    QStringList written;
    if (cli.isSet(size)) {
      const QStringList wh = cli.value(size).split(QLatin1Char('x'));
      bool okw = false, okh = false;
      const int w = wh.size() == 2 ? wh[0].toInt(&okw) : 0;
      const int h = wh.size() == 2 ? wh[1].toInt(&okh) : 0;
      if (!okw || !okh || w < 320 || h < 240 || w > 7680 || h > 4320) {
        std::fprintf(stderr,
                     "error: --size: expected WxH with W in 320..7680 and H in 240..4320, got "
                     "'%s'\n",
                     qPrintable(cli.value(size)));
        return 2;
      }
      written = window.saveWindowShots(cli.value(shots), QSize(w, h), &error);
    } else {
      written = window.saveScreenshots(cli.value(shots), &error);
    }
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
