// SPDX-License-Identifier: GPL-3.0-or-later
// Help: the compiled-in documents are the repository's, each renders, links between them stay
// in the window, find wraps, the Help menu opens them and What's This? explains a field.
// Writes <build>/screenshots/help.png.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>
#include <QTextBlock>
#include <QTextBrowser>
#include <QtTest>
#include <functional>

#include "stackscope/ui/design_editor.hpp"
#include "stackscope/ui/help_window.hpp"
#include "stackscope/ui/main_window.hpp"

using namespace stackscope;
using ui::HelpWindow;

class HelpWindowTest : public QObject {
  Q_OBJECT

  static QString repoFile(const char* path) {
    QFile f(QStringLiteral(STACKSCOPE_SOURCE_DIR "/") + QString::fromLatin1(path));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
  }

 private slots:
  void documentsAreTheRepositorysAndRender() {
    const std::pair<HelpWindow::Doc, const char*> docs[] = {
        {HelpWindow::kGuide, "README.md"},
        {HelpWindow::kModel, "docs/model.md"},
        {HelpWindow::kValidation, "docs/validation.md"},
        {HelpWindow::kArchitecture, "docs/architecture.md"}};
    HelpWindow w;
    for (const auto& [doc, path] : docs) {
      const QString want = repoFile(path);
      QVERIFY2(!want.isEmpty(), path);
      QCOMPARE(HelpWindow::source(doc), want);
      w.showDoc(doc);
      QCOMPARE(w.currentDoc(), doc);
      // The first heading, rendered (no Markdown markup left).
      const QString heading = want.section(QLatin1Char('\n'), 0, 0).mid(2);
      QVERIFY2(w.browser()->toPlainText().startsWith(heading),
               qPrintable(w.browser()->toPlainText().left(80)));
      QVERIFY(!w.browser()->toPlainText().contains(QStringLiteral("](")));
    }
    // The guide's screenshots are not compiled in: each shows as its caption.
    w.showDoc(HelpWindow::kGuide);
    QVERIFY(!w.browser()->toPlainText().contains(QStringLiteral("docs/screenshots/")));
    QVERIFY(w.browser()->toPlainText().contains(QStringLiteral("[thermal]")));
  }

  void linksAndFind() {
    HelpWindow w;
    w.show();
    QMetaObject::invokeMethod(w.browser(), "anchorClicked", Q_ARG(QUrl, QUrl(QStringLiteral("docs/model.md"))));
    QCOMPARE(w.currentDoc(), HelpWindow::kModel);
    QMetaObject::invokeMethod(w.browser(), "anchorClicked",
                              Q_ARG(QUrl, QUrl(QStringLiteral("validation.md#4-results"))));
    QCOMPARE(w.currentDoc(), HelpWindow::kValidation);
    QVERIFY(w.find(QStringLiteral("held out")));
    QVERIFY(w.browser()->textCursor().hasSelection());
    QVERIFY(!w.find(QStringLiteral("no-such-phrase-in-the-report")));
    // The list selects a document too.
    w.findChild<QListWidget*>(QStringLiteral("helpDocs"))->setCurrentRow(HelpWindow::kGuide);
    QCOMPARE(w.currentDoc(), HelpWindow::kGuide);
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(dir + QStringLiteral("/help.png")));
  }

  void helpMenuAndWhatsThis() {
    ui::MainWindow m;
    m.show();
    QAction* guide = m.findChild<QAction*>(QStringLiteral("helpGuide"));
    QVERIFY(guide != nullptr);
    QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
    m.findChild<QAction*>(QStringLiteral("helpModel"))->trigger();
    auto* help = m.findChild<HelpWindow*>();
    QVERIFY(help != nullptr);
    QVERIFY(help->isVisible());
    QCOMPARE(help->currentDoc(), HelpWindow::kModel);
    guide->trigger();
    QCOMPARE(m.findChildren<HelpWindow*>().size(), 1);  // one window, reused
    QCOMPARE(help->currentDoc(), HelpWindow::kGuide);
    // The guide opens at its workbench section: that heading is at the top of the view.
    QApplication::processEvents();
    QCOMPARE(help->browser()->cursorForPosition(QPoint(8, 8)).block().text(),
             QStringLiteral("The workbench"));
    // A field explains itself under What's This? as its tooltip does.
    auto* editor = m.findChild<ui::DesignEditor*>();
    QWidget* field = editor->fieldFor(QStringLiteral("/workload/input_len"));
    QVERIFY(field != nullptr);
    QVERIFY(!field->whatsThis().isEmpty());
    QCOMPARE(field->whatsThis(), field->toolTip());
  }

  // Every shortcut of the window's menus is listed in the guide's shortcut table, and
  // Help > Keyboard Shortcuts opens the guide at that table.
  void everyShortcutIsListedInTheGuide() {
    ui::MainWindow m;
    m.show();
    const QString guide = HelpWindow::source(HelpWindow::kGuide);
    const qsizetype at = guide.indexOf(QStringLiteral("### Keyboard shortcuts"));
    QVERIFY(at >= 0);
    const QString table = guide.mid(at, guide.indexOf(QStringLiteral("\n## "), at) - at);
    QStringList missing;
    int listed = 0;
    QList<QAction*> actions;
    std::function<void(const QList<QAction*>&)> collect = [&](const QList<QAction*>& list) {
      for (QAction* a : list) {
        actions << a;
        if (a->menu() != nullptr) collect(a->menu()->actions());
      }
    };
    collect(m.menuBar()->actions());
    for (const QAction* a : actions) {
      if (a->shortcut().isEmpty()) continue;
      const QString keys = a->shortcut().toString(QKeySequence::PortableText);
      ++listed;
      if (!table.contains(QStringLiteral("| ") + keys + QStringLiteral(" |")) &&
          !table.contains(QStringLiteral("| ") + keys + QStringLiteral(",")) &&
          !table.contains(QStringLiteral(", ") + keys + QStringLiteral(" |")))
        missing << QStringLiteral("%1 (%2)").arg(keys, a->text());
    }
    QVERIFY2(listed >= 14, qPrintable(QString::number(listed)));
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
    m.findChild<QAction*>(QStringLiteral("helpShortcuts"))->trigger();
    auto* help = m.findChild<HelpWindow*>();
    QVERIFY(help != nullptr && help->isVisible());
    QApplication::processEvents();
    QCOMPARE(help->browser()->cursorForPosition(QPoint(8, 8)).block().text(),
             QStringLiteral("Keyboard shortcuts"));
    // The new view shortcuts do what they say.
    auto* views = m.findChild<QTabWidget*>(QStringLiteral("views"));
    QVERIFY(views != nullptr);
    views->setCurrentIndex(0);
    m.findChild<QAction*>(QStringLiteral("nextView"))->trigger();
    QCOMPARE(views->currentIndex(), 1);
    m.findChild<QAction*>(QStringLiteral("previousView"))->trigger();
    m.findChild<QAction*>(QStringLiteral("previousView"))->trigger();
    QCOMPARE(views->currentIndex(), views->count() - 1);
  }
};

QTEST_MAIN(HelpWindowTest)
#include "help_window_test.moc"
