// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on a small (1280 x 800) and a full-HD (1920 x 1080) screen: the window takes
// the screen's size (no view's minimum pushes it wider or taller), every result tab fits its
// width (no horizontal scroll bar), the tabbed views get at least half of the window's height,
// and the editor pages need no horizontal scrolling. Writes the window per tab at both sizes to
// <build>/screenshots/window-<W>x<H>-<tab>.png. The 3D stack's per-layer table fits the editor
// column with every header readable (stack-page-<W>x<H>.png), and the Thermal profile of an
// edited stack (thermal-layers-<W>x<H>.png).
#include <QAbstractScrollArea>
#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QtTest>
#include <algorithm>

#include "stackscope/ui/design_editor.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/thermal_view.hpp"

using namespace stackscope;

class LayoutTest : public QObject {
  Q_OBJECT

  static void settle() {
    for (int i = 0; i < 12; ++i) {
      QApplication::processEvents();
      QThread::msleep(5);
    }
  }

  // Inside a scroll area's viewport (a scrolled form, a table's cells) a widget may lie outside
  // the window on purpose; anything else visible must lie inside it.
  static bool inScrolledContent(const QWidget* wdg, const QWidget* top) {
    for (const QWidget* up = wdg->parentWidget(); up != nullptr && up != top;
         up = up->parentWidget())
      if (const auto* a = qobject_cast<const QAbstractScrollArea*>(up->parentWidget()))
        if (a->viewport() == up) return true;
    return false;
  }

  static QStringList widgetsOutside(const QWidget& w, const QString& tab) {
    QStringList out;
    const QRect window = w.rect();
    for (const QWidget* c : w.findChildren<QWidget*>()) {
      if (!c->isVisible() || c->isWindow() || c->width() <= 0 || c->height() <= 0) continue;
      if (inScrolledContent(c, &w)) continue;
      const QRect r(c->mapTo(&w, QPoint(0, 0)), c->size());
      // One pixel of slack: frames drawn on the window's edge.
      if (!window.adjusted(-1, -1, 1, 1).contains(r))
        out << QStringLiteral("%1: %2 '%3' at %4,%5 %6x%7")
                   .arg(tab, QString::fromLatin1(c->metaObject()->className()), c->objectName())
                   .arg(r.x())
                   .arg(r.y())
                   .arg(r.width())
                   .arg(r.height());
    }
    return out;
  }

  // A visible table header section narrower than its label needs (the label elided).
  static QStringList truncatedHeaders(const QWidget& w, const QString& tab) {
    QStringList out;
    for (const QHeaderView* h : w.findChildren<QHeaderView*>()) {
      if (!h->isVisible() || h->orientation() != Qt::Horizontal) continue;
      const auto* model = h->model();
      if (model == nullptr) continue;
      for (int i = 0; i < h->count(); ++i) {
        if (h->isSectionHidden(i) || h->sectionSize(i) <= 0) continue;
        const QString text = model->headerData(i, Qt::Horizontal).toString();
        if (text.isEmpty()) continue;
        // The label's widest line with the style's margins, against the section's width.
        int need = 0;
        for (const QString& line : text.split(QLatin1Char('\n')))
          need = std::max(need, h->fontMetrics().horizontalAdvance(line));
        need += 2 * h->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, h);
        if (need > h->sectionSize(i) + 1)
          out << QStringLiteral("%1: '%2' needs %3 px, has %4")
                     .arg(tab, QString(text).replace(QLatin1Char('\n'), QLatin1Char(' ')))
                     .arg(need)
                     .arg(h->sectionSize(i));
      }
    }
    return out;
  }

  static void checkAt(QSize size) {
    ui::MainWindow w;
    w.show();
    w.resize(size);
    settle();
    QCOMPARE(w.size(), size);
    auto* views = w.findChild<QTabWidget*>(QStringLiteral("views"));
    QVERIFY(views != nullptr);
    // The tabbed views: at least half of the window's height.
    QVERIFY2(views->height() * 2 >= size.height(),
             qPrintable(QStringLiteral("views %1 px of a %2 px window")
                            .arg(views->height())
                            .arg(size.height())));
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    QStringList overflowing, outside, truncated;
    for (int i = 0; i < views->count(); ++i) {
      views->setCurrentIndex(i);
      settle();
      const QString tab = views->tabText(i).remove(QLatin1Char('&')).toLower();
      auto* area = qobject_cast<QScrollArea*>(views->currentWidget());
      QVERIFY(area != nullptr);
      // The tab's own scroll area and any inside it (a view's settings, a form).
      QList<QScrollArea*> areas = area->findChildren<QScrollArea*>();
      areas.prepend(area);
      for (QScrollArea* a : areas)
        if (a->isVisible() && a->horizontalScrollBar()->isVisible())
          overflowing << QStringLiteral("%1%2 (needs %3 px, has %4)")
                             .arg(tab, a == area ? QString() : QLatin1Char('/') + a->objectName())
                             .arg(a->horizontalScrollBar()->maximum() + a->viewport()->width())
                             .arg(a->viewport()->width());
      outside << widgetsOutside(w, tab);
      truncated << truncatedHeaders(w, tab);
      QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("window-%1x%2-%3.png")
                                                   .arg(size.width())
                                                   .arg(size.height())
                                                   .arg(tab))));
    }
    // The editor's pages (each in a scroll area of the tool box) fit the column's width.
    auto* editor = w.findChild<ui::DesignEditor*>();
    QVERIFY(editor != nullptr);
    for (int p = ui::DesignEditor::kModelPage; p <= ui::DesignEditor::kRuntimePage; ++p) {
      const auto page = static_cast<ui::DesignEditor::Page>(p);
      editor->showPage(page);
      settle();
      QWidget* contents = editor->pageContents(page);
      QScrollArea* area = nullptr;
      for (QWidget* up = contents->parentWidget(); up && !area; up = up->parentWidget())
        area = qobject_cast<QScrollArea*>(up);
      QVERIFY(area != nullptr);
      if (area->horizontalScrollBar()->isVisible())
        overflowing << QStringLiteral("editor page %1 (needs %2 px, has %3)")
                           .arg(p)
                           .arg(area->horizontalScrollBar()->maximum() + area->viewport()->width())
                           .arg(area->viewport()->width());
    }
    QVERIFY2(outside.isEmpty(), qPrintable(QStringLiteral("widgets outside the %1 x %2 window: %3")
                                                .arg(size.width())
                                                .arg(size.height())
                                                .arg(outside.join(QStringLiteral(", ")))));
    QVERIFY2(truncated.isEmpty(),
             qPrintable(QStringLiteral("table headers cut at %1 x %2: %3")
                            .arg(size.width())
                            .arg(size.height())
                            .arg(truncated.join(QStringLiteral(", ")))));
    QVERIFY2(overflowing.isEmpty(),
             qPrintable(QStringLiteral("tabs wider than their place at %1 x %2: %3")
                            .arg(size.width())
                            .arg(size.height())
                            .arg(overflowing.join(QStringLiteral(", ")))));
  }

  static void layerTableAt(QSize size) {
    ui::MainWindow w;
    w.show();
    w.resize(size);
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    auto* editor = w.findChild<ui::DesignEditor*>();
    QVERIFY(editor != nullptr);
    editor->showPage(ui::DesignEditor::kStackPage);
    settle();
    auto* table = w.findChild<QTableWidget*>(QStringLiteral("layerTable"));
    QVERIFY(table != nullptr && table->isVisible());
    QScrollArea* area = nullptr;
    for (QWidget* up = table->parentWidget(); up && !area; up = up->parentWidget())
      area = qobject_cast<QScrollArea*>(up);
    QVERIFY(area != nullptr);
    area->ensureWidgetVisible(table, 0, 60);
    settle();
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    const QString wh = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
    QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("stack-page-%1.png").arg(wh))));
    // Inside the table: the columns share its width, and every header line fits its column.
    const QHeaderView* header = table->horizontalHeader();
    int sum = 0;
    for (int c = 0; c < table->columnCount(); ++c) {
      sum += header->sectionSize(c);
      for (const QString& line : table->horizontalHeaderItem(c)->text().split(QLatin1Char('\n')))
        QVERIFY2(header->fontMetrics().horizontalAdvance(line) + 4 <= header->sectionSize(c),
                 qPrintable(
                     QStringLiteral("header '%1' in %2 px").arg(line).arg(header->sectionSize(c))));
    }
    QVERIFY(sum <= table->viewport()->width() + 1);
    QVERIFY2(!area->horizontalScrollBar()->isVisible(),
             qPrintable(QStringLiteral("the stack page needs %1 px, has %2")
                            .arg(area->horizontalScrollBar()->maximum() + area->viewport()->width())
                            .arg(area->viewport()->width())));
    // An edited stack in the Thermal view: DRAM 1 (the bottom row) six times as thick.
    table->item(table->rowCount() - 1, 2)->setData(Qt::EditRole, 300.0);
    auto* views = w.findChild<QTabWidget*>(QStringLiteral("views"));
    auto* thermal = w.findChild<ui::ThermalView*>();
    QVERIFY(views != nullptr && thermal != nullptr);
    for (int i = 0; i < views->count(); ++i)
      if (views->widget(i)->isAncestorOf(thermal)) views->setCurrentIndex(i);
    settle();
    thermal->waitForIdle();
    settle();
    QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("thermal-layers-%1.png").arg(wh))));
  }

 private slots:
  void fitsA1280x800Screen() { checkAt(QSize(1280, 800)); }
  void fitsA1920x1080Screen() { checkAt(QSize(1920, 1080)); }
  void layerTableFitsAt1280x800() { layerTableAt(QSize(1280, 800)); }
  void layerTableFitsAt1920x1080() { layerTableAt(QSize(1920, 1080)); }
};

QTEST_MAIN(LayoutTest)
#include "layout_test.moc"
