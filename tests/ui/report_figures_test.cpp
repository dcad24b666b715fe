// SPDX-License-Identifier: GPL-3.0-or-later
// The figures of the reproduction reports (docs/reproduction/*.svg, written by
// `stackscope-cli reproduce`, core/report) parse as SVG, render with Qt's SVG renderer at
// their own size, and are not blank; the PNGs land in build/screenshots/reproduction so the
// figures can be looked at without a browser.
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QtTest>

class ReportFigures : public QObject {
  Q_OBJECT
 private slots:
  void everyFigureRenders() {
    const QDir dir(QStringLiteral(STACKSCOPE_SOURCE_DIR "/docs/reproduction"));
    const QStringList files = dir.entryList({QStringLiteral("*.svg")}, QDir::Files, QDir::Name);
    QVERIFY2(
        files.size() >= 5,
        qPrintable(QString("only %1 figures in %2").arg(files.size()).arg(dir.absolutePath())));
    const QDir out(QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots/reproduction"));
    QVERIFY(QDir().mkpath(out.absolutePath()));
    for (const QString& f : files) {
      QSvgRenderer svg(dir.filePath(f));
      QVERIFY2(svg.isValid(), qPrintable(f + ": not valid SVG"));
      const QSize size = svg.defaultSize();
      QVERIFY2(size.width() >= 400 && size.height() >= 250, qPrintable(f + ": too small"));
      QImage img(size, QImage::Format_RGB32);
      img.fill(Qt::white);
      QPainter p(&img);
      svg.render(&p);
      p.end();
      // Not blank: a plot has axes, bars or lines and text, well over 2 % of its pixels.
      qsizetype ink = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
          if (qGray(img.pixel(x, y)) < 200) ++ink;
      QVERIFY2(ink > img.width() * img.height() / 50, qPrintable(f + ": nearly blank"));
      QVERIFY(img.save(out.filePath(QString(f).replace(".svg", ".png"))));
    }
  }
};

QTEST_MAIN(ReportFigures)
#include "report_figures_test.moc"
