// SPDX-License-Identifier: GPL-3.0-or-later
// Killed mid-edit, the workbench loses at most the edits since its last autosave: autosave
// recovery is tested by killing the GUI process mid-edit.
//
// The test runs this executable three ways:
//   (no arguments)     the Qt Test below, the parent;
//   --child-edit       a workbench with its session state (so: autosave) that edits the
//                      output-length field through its spin box every few milliseconds and
//                      prints "saved N" after each autosave, until it is killed;
//   --child-recover    a workbench started on the same profile as after a crash: it answers
//                      Yes to "Recover unsaved edits?" and prints what it recovered.
// Each cycle SIGKILLs the editing child at a seeded random moment (often while an autosave is
// being written) and checks that the recovered design is one the child had at or after its
// last reported autosave, unsaved, and that the profile is never left unusable.
#include <QApplication>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cstdio>
#include <random>

#include "stackscope/ui/main_window.hpp"

using stackscope::ui::MainWindow;

namespace {

// The names the real program sets (app/gui/main.cpp): the autosave and settings paths follow
// them.
void nameLikeTheProgram() {
  QApplication::setApplicationName(QStringLiteral("StackScope"));
  QApplication::setOrganizationDomain(QStringLiteral("stackscope.io"));
}

int childEdit() {
  MainWindow w;
  w.setAutosaveInterval(15);
  w.enableSessionState();  // a fresh profile: no recovery question, autosave running
  w.show();
  auto* spin = w.findChild<QSpinBox*>(QStringLiteral("outputLenSpin"));
  if (!spin) return 3;
  QObject::connect(&w, &MainWindow::autosaved, [&w] {
    std::printf("saved %d\n", w.design().workload.output_len);
    std::fflush(stdout);
  });
  QTimer edits;
  QObject::connect(&edits, &QTimer::timeout, [spin] {
    spin->setValue(spin->value() + 1);  // as if typed: the editor writes the document
    std::printf("edit %d\n", spin->value());
    std::fflush(stdout);
  });
  edits.start(2);
  return QApplication::exec();  // ends by SIGKILL
}

int childRecover() {
  MainWindow w;
  QString failure;
  // enableSessionState asks in a modal box; answer it the way a user who wants the work back
  // does. Any other box (e.g. "Cannot recover") is a failure: record its text and close it.
  QTimer answer;
  QObject::connect(&answer, &QTimer::timeout, [&failure] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    if (QAbstractButton* yes = box->button(QMessageBox::Yes)) {
      yes->click();
    } else {
      failure = box->text() + QStringLiteral(" ") + box->informativeText();
      box->accept();
    }
  });
  answer.start(5);
  w.enableSessionState();
  answer.stop();
  if (!failure.isEmpty()) {
    std::printf("failed %s\n", qPrintable(failure.simplified()));
    return 1;
  }
  std::printf("recovered %d dirty %d\n", w.design().workload.output_len,
              w.document().dirty() ? 1 : 0);
  return 0;
}

}  // namespace

class AutosaveKillTest : public QObject {
  Q_OBJECT

 private:
  static QProcess* start(const QString& mode, const QTemporaryDir& profile, QObject* parent) {
    auto* p = new QProcess(parent);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_DATA_HOME"), profile.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), profile.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), profile.filePath(QStringLiteral("runtime")));
    p->setProcessEnvironment(env);
    p->setProgram(QCoreApplication::applicationFilePath());
    p->setArguments({mode});
    p->start();
    return p;
  }

 private Q_SLOTS:
  void killedMidEditRecoversTheLastAutosave() {
    std::mt19937 rng(20261201);  // seeded: the same kill moments every run
    constexpr int kCycles = 6;
    int midWrite = 0;  // cycles killed after an edit that no autosave had reached yet
    for (int cycle = 0; cycle < kCycles; ++cycle) {
      QTemporaryDir profile;
      QVERIFY(profile.isValid());
      QObject owner;
      QProcess* editor = start(QStringLiteral("--child-edit"), profile, &owner);
      QVERIFY(editor->waitForStarted(10000));
      // Wait for a random number of autosaves, then a random moment more, then SIGKILL.
      const int saves = std::uniform_int_distribution<int>(1, 6)(rng);
      const int extraMs = std::uniform_int_distribution<int>(0, 25)(rng);
      int seenSaves = 0, lastSaved = -1, lastEdit = -1;
      QByteArray pending;
      const auto readLines = [&] {
        pending += editor->readAllStandardOutput();
        qsizetype nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const QByteArray line = pending.left(nl);
          pending.remove(0, nl + 1);
          if (line.startsWith("saved ")) {
            ++seenSaves;
            lastSaved = line.mid(6).toInt();
          } else if (line.startsWith("edit ")) {
            lastEdit = line.mid(5).toInt();
          }
        }
      };
      QElapsedTimer waited;
      waited.start();
      while (seenSaves < saves && waited.elapsed() < 60000 &&
             editor->state() == QProcess::Running) {
        editor->waitForReadyRead(100);
        readLines();
      }
      QVERIFY2(seenSaves >= saves,
               qPrintable(QStringLiteral("cycle %1: %2 autosaves seen; "
                                         "stderr: %3")
                              .arg(cycle)
                              .arg(seenSaves)
                              .arg(QString::fromLocal8Bit(editor->readAllStandardError()))));
      QTest::qWait(extraMs);
      editor->kill();  // SIGKILL on Unix: no close event, no cleanup
      QVERIFY(editor->waitForFinished(10000));
      readLines();
      QCOMPARE(editor->exitStatus(), QProcess::CrashExit);
      if (lastEdit > lastSaved) ++midWrite;

      QProcess* recover = start(QStringLiteral("--child-recover"), profile, &owner);
      QVERIFY(recover->waitForFinished(60000));
      const QString out = QString::fromLocal8Bit(recover->readAllStandardOutput()).trimmed();
      QVERIFY2(recover->exitCode() == 0,
               qPrintable(QStringLiteral("cycle %1: %2 %3")
                              .arg(cycle)
                              .arg(out, QString::fromLocal8Bit(recover->readAllStandardError()))));
      const QStringList words = out.split(QLatin1Char(' '));
      QCOMPARE(words.size(), 4);
      QCOMPARE(words[0], QStringLiteral("recovered"));
      const int recovered = words[1].toInt();
      // Nothing before the last reported autosave is lost; nothing the child never had appears.
      QVERIFY2(recovered >= lastSaved && recovered <= lastEdit,
               qPrintable(QStringLiteral("cycle %1: recovered %2, last autosave %3, last edit %4")
                              .arg(cycle)
                              .arg(recovered)
                              .arg(lastSaved)
                              .arg(lastEdit)));
      QCOMPARE(words[3], QStringLiteral("1"));  // recovered edits stay unsaved
    }
    qInfo("%d cycles, %d killed with edits newer than the last autosave", kCycles, midWrite);
  }
};

int main(int argc, char** argv) {
  const QByteArray mode = argc > 1 ? QByteArray(argv[1]) : QByteArray();
  if (mode == "--child-edit" || mode == "--child-recover") {
    QApplication app(argc, argv);
    nameLikeTheProgram();
    return mode == "--child-edit" ? childEdit() : childRecover();
  }
  QApplication app(argc, argv);
  AutosaveKillTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "autosave_kill_test.moc"
