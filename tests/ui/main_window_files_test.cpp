// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench never loses the user's work or a project's provenance: Open, Open Recent, a
// dropped file, Open Preset Project, New and close ask before replacing unsaved edits (Save /
// Discard / Cancel); a save keeps the project's id, source, notes and other sections; Save As
// proposes the documents folder, never the shipped presets.
#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>
#include <QtTest>
#include <deque>
#include <functional>

#include "stackscope/ui/main_window.hpp"

using stackscope::ui::MainWindow;

namespace {

// Answers the modal dialogs a call opens, one step per dialog in order; a dialog with no step
// left is recorded as unexpected and rejected, so a test fails rather than hangs.
class Answerer : public QObject {
 public:
  using Step = std::function<void(QWidget*)>;
  explicit Answerer(std::deque<Step> steps) : steps_(std::move(steps)) {
    connect(&timer_, &QTimer::timeout, this, [this] { poll(); });
    timer_.start(10);
  }
  bool done() const { return steps_.empty(); }
  const QStringList& unexpected() const { return unexpected_; }
  const QStringList& seen() const { return seen_; }

 private:
  void poll() {
    QWidget* w = QApplication::activeModalWidget();
    if (!w || !w->isVisible()) return;
    seen_ << w->objectName() + QStringLiteral(":") + w->windowTitle();
    if (steps_.empty()) {
      unexpected_ << w->windowTitle();
      if (auto* d = qobject_cast<QDialog*>(w)) d->reject();
      return;
    }
    Step step = std::move(steps_.front());
    steps_.pop_front();
    step(w);
  }
  std::deque<Step> steps_;
  QStringList unexpected_, seen_;
  QTimer timer_;
};

// The unsaved-changes box: checks its buttons, then clicks `which`.
Answerer::Step answerBox(QMessageBox::StandardButton which, QString* text = nullptr) {
  return [which, text](QWidget* w) {
    auto* box = qobject_cast<QMessageBox*>(w);
    QVERIFY2(box, qPrintable(w->objectName()));
    QCOMPARE(box->objectName(), QStringLiteral("unsavedChangesBox"));
    QCOMPARE(box->standardButtons(),
             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (text) *text = box->button(QMessageBox::Save)->text() + QLatin1Char('|') + box->text();
    box->button(which)->click();
  };
}

// A file dialog: records its folder and proposed name, then chooses `file` ("" = cancel).
Answerer::Step answerFileDialog(const QString& file, QString* proposed = nullptr) {
  return [file, proposed](QWidget* w) {
    auto* dialog = qobject_cast<QFileDialog*>(w);
    QVERIFY2(dialog, qPrintable(w->objectName()));
    if (proposed) {
      const QStringList selected = dialog->selectedFiles();
      *proposed = selected.isEmpty() ? dialog->directory().absolutePath() : selected.front();
    }
    if (file.isEmpty()) {
      dialog->reject();
      return;
    }
    // selectFile() leaves the name field alone while it has the keyboard focus (Qt's widget
    // dialog), so whether it took would depend on the window manager: type the full path into
    // the field as a user would.
    dialog->selectFile(file);
    if (auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit")))
      name->setText(QFileInfo(file).absoluteFilePath());
    static_cast<QDialog*>(dialog)->accept();  // as the Open/Save button does
  };
}

QJsonObject readJson(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

QAction* action(MainWindow& w, const char* name) {
  auto* a = w.findChild<QAction*>(QString::fromLatin1(name));
  if (!a) qFatal("no action %s", name);
  return a;
}

// An edit through the form, as a user makes it: the document becomes dirty.
int editBatch(MainWindow& w) {
  auto* batch = w.findChild<QSpinBox*>(QStringLiteral("batchSpin"));
  if (!batch) qFatal("no batch spin box");
  const int value = batch->value() + 5;
  batch->setValue(value);
  return value;
}

}  // namespace

class MainWindowFilesTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir home_;

  // A project saved from a preset (with that preset's id, source and notes).
  QString savedPreset(const QString& id, const QString& name) {
    MainWindow w;
    if (!w.openPreset(id)) qFatal("no preset %s", qPrintable(id));
    const QString file = home_.filePath(name);
    QString error;
    if (!w.saveProject(file, &error)) qFatal("%s", qPrintable(error));
    return file;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(home_.isValid());
    // A home of our own: the documents folder and settings are the test's.
    qputenv("HOME", home_.path().toLocal8Bit());
    qputenv("XDG_CONFIG_HOME", home_.filePath(QStringLiteral("config")).toLocal8Bit());
    qputenv("XDG_DATA_HOME", home_.filePath(QStringLiteral("data")).toLocal8Bit());
    QVERIFY(QDir(home_.path()).mkpath(QStringLiteral("Documents")));
  }

  // File > Open with unsaved edits: Cancel keeps the design and its edits (and shows no file
  // dialog); Discard then opens the chosen file, with a clean document and no undo into the
  // previous one.
  void openWithUnsavedEditsAsksFirst() {
    const QString other = savedPreset(QStringLiteral("mixtral-hdmoe"), QStringLiteral("moe.json"));
    MainWindow w;
    w.show();
    const int batch = editBatch(w);
    QTRY_COMPARE(w.design().workload.batch, batch);
    QVERIFY(w.document().dirty());
    const std::string model = w.design().model.id;
    {
      Answerer answer({answerBox(QMessageBox::Cancel)});
      action(w, "actionOpen")->trigger();
      QVERIFY(answer.done());
      QVERIFY2(answer.unexpected().isEmpty(), qPrintable(answer.unexpected().join(',')));
    }
    QCOMPARE(w.design().model.id, model);
    QCOMPARE(w.design().workload.batch, batch);
    QVERIFY(w.document().dirty());
    QVERIFY(w.document().undoStack()->canUndo());
    QVERIFY(w.file().isEmpty());
    {
      Answerer answer({answerBox(QMessageBox::Discard), answerFileDialog(other)});
      action(w, "actionOpen")->trigger();
      QVERIFY2(answer.done(), qPrintable(answer.seen().join(',')));
      QVERIFY2(answer.unexpected().isEmpty(), qPrintable(answer.unexpected().join(',')));
    }
    QCOMPARE(w.design().model.id, std::string("mixtral-8x7b"));
    QCOMPARE(w.file(), QFileInfo(other).absoluteFilePath());
    QVERIFY(!w.document().dirty());
    QVERIFY(!w.isWindowModified());
    QVERIFY(!w.document().undoStack()->canUndo());  // no step back into the other design
    QCOMPARE(w.document().undoStack()->count(), 0);
    QCOMPARE(w.origin().id.value_or(""), std::string("mixtral-hdmoe"));
    // Without edits nothing is asked.
    {
      Answerer answer({});
      QVERIFY(w.requestOpen(other));
      QVERIFY(answer.unexpected().isEmpty());
    }
  }

  // Open Recent, a dropped file, Open Preset Project, New and close ask the same question.
  void everyWayOfReplacingTheDesignAsksFirst() {
    const QString other = savedPreset(QStringLiteral("mixtral-hdmoe"), QStringLiteral("moe2.json"));
    MainWindow w;
    w.show();
    const int batch = editBatch(w);
    QTRY_COMPARE(w.design().workload.batch, batch);
    const auto unchanged = [&] {
      return w.design().model.id == "llama-3-70b" && w.design().workload.batch == batch &&
             w.document().dirty();
    };
    // Open Recent (requestOpen).
    {
      Answerer answer({answerBox(QMessageBox::Cancel)});
      QVERIFY(!w.requestOpen(other));
      QVERIFY(answer.done());
    }
    QVERIFY(unchanged());
    // A project file dropped on the window: asked once the drop has been handled.
    {
      QMimeData mime;
      mime.setUrls({QUrl::fromLocalFile(other)});
      QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &enter);
      QVERIFY(enter.isAccepted());
      QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      Answerer answer({answerBox(QMessageBox::Cancel)});
      QApplication::sendEvent(&w, &drop);
      QTRY_VERIFY(answer.done());
      QVERIFY(unchanged());
    }
    // Open Preset Project, New, close (Quit).
    for (const char* name : {"preset_deepseek-v3-deepstack", "actionNew", "actionQuit"}) {
      Answerer answer({answerBox(QMessageBox::Cancel)});
      action(w, name)->trigger();
      QVERIFY2(answer.done(), name);
      QVERIFY2(unchanged(), name);
    }
    QVERIFY(w.isVisible());  // close was cancelled
    // Discard on a drop opens the dropped file.
    {
      QMimeData mime;
      mime.setUrls({QUrl::fromLocalFile(other)});
      QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &enter);  // a drop always follows its drag's enter
      QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      Answerer answer({answerBox(QMessageBox::Discard)});
      QApplication::sendEvent(&w, &drop);
      QTRY_VERIFY2(w.design().model.id == "mixtral-8x7b",
                   qPrintable(answer.seen().join(',') + answer.unexpected().join(',')));
      QVERIFY(!w.document().dirty());
    }
    // New on a clean document: the default design, no file and no preset's provenance.
    {
      Answerer answer({});
      action(w, "actionNew")->trigger();
      QVERIFY(answer.unexpected().isEmpty());
      QCOMPARE(w.design().model.id, std::string("llama-3-70b"));
      QVERIFY(w.file().isEmpty());
      QVERIFY(!w.origin().id.has_value());
    }
  }

  // Save in the question saves first; a preset has no file of the user's, so that is Save As,
  // proposed in the documents folder under the preset's id. The copy keeps the edit and the
  // preset's id, source and notes; then the other file opens.
  void saveAnswerSavesAsIntoDocumentsThenOpens() {
    const QString other = savedPreset(QStringLiteral("mixtral-hdmoe"), QStringLiteral("moe3.json"));
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("llama-3-70b-h100-serving")));
    const int batch = editBatch(w);
    QTRY_COMPARE(w.design().workload.batch, batch);
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QCOMPARE(QDir(documents).absolutePath(),
             QDir(home_.filePath(QStringLiteral("Documents"))).absolutePath());
    QCOMPARE(w.saveAsSuggestion(),
             QDir(documents).filePath(QStringLiteral("llama-3-70b-h100-serving.json")));
    const QString copy = home_.filePath(QStringLiteral("mine/serving-copy.json"));
    QVERIFY(QDir(home_.path()).mkpath(QStringLiteral("mine")));
    QString proposed, boxText;
    {
      Answerer answer({answerBox(QMessageBox::Save, &boxText), answerFileDialog(copy, &proposed)});
      QVERIFY(w.requestOpen(other));
      QVERIFY2(answer.done(), qPrintable(answer.seen().join(',')));
      QVERIFY2(answer.unexpected().isEmpty(), qPrintable(answer.unexpected().join(',')));
    }
    QVERIFY2(boxText.startsWith(QStringLiteral("&Save As")), qPrintable(boxText));
    QCOMPARE(QFileInfo(proposed).absoluteFilePath(),
             QFileInfo(QDir(documents).filePath(QStringLiteral("llama-3-70b-h100-serving.json")))
                 .absoluteFilePath());
    QCOMPARE(w.design().model.id, std::string("mixtral-8x7b"));  // then the other file opened
    const QJsonObject saved = readJson(copy);
    QCOMPARE(
        saved.value(QStringLiteral("workload")).toObject().value(QStringLiteral("batch")).toInt(),
        batch);
    QCOMPARE(saved.value(QStringLiteral("id")).toString(),
             QStringLiteral("llama-3-70b-h100-serving"));
    QVERIFY(saved.value(QStringLiteral("source")).toString().startsWith(QStringLiteral("Azure")));
    QVERIFY(!saved.value(QStringLiteral("notes")).toString().isEmpty());
    QVERIFY(saved.contains(QStringLiteral("serving")));
    // The next Save As of a new document proposes the folder of that save.
    QVERIFY(w.openPreset(QStringLiteral("default")));
    QCOMPARE(w.saveAsSuggestion(),
             QFileInfo(copy).absoluteDir().filePath(QStringLiteral("default.json")));
  }

  // An opened project shows a search space about its own model (the first preset that searches
  // it), not whichever preset sorts first; a space with points stays as it is.
  void searchTabShowsASpaceOfTheProjectsModel() {
    MainWindow w;
    w.show();
    auto* box = w.findChild<QComboBox*>(QStringLiteral("searchPreset"));
    QVERIFY(box != nullptr);
    QVERIFY(w.openPreset(QStringLiteral("mixtral-hdmoe")));
    QCOMPARE(box->currentData().toString(), QStringLiteral("mixtral-hdmoe-mesh"));
    QVERIFY(w.openPreset(QStringLiteral("llama-3-70b-h100-serving")));
    QCOMPARE(box->currentData().toString(), QStringLiteral("llama-3-70b-gpu-vs-stacked"));
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    QCOMPARE(box->currentData().toString(), QStringLiteral("deepseek-v3-deepstack"));
  }

  // Save then reopen keeps id, source, notes and the sections the workbench does not edit.
  void saveThenReopenKeepsProvenance() {
    const QString presetFile =
        QStringLiteral(STACKSCOPE_SOURCE_DIR "/presets/projects/llama-3-70b-wafer-coexplore.json");
    const QJsonObject preset = readJson(presetFile);
    QVERIFY(preset.contains(QStringLiteral("coexplore")));
    MainWindow w;
    QVERIFY(w.openPreset(QStringLiteral("llama-3-70b-wafer-coexplore")));
    const int batch = editBatch(w);
    QTRY_COMPARE(w.design().workload.batch, batch);
    const QString file = home_.filePath(QStringLiteral("wafer.json"));
    QString error;
    QVERIFY2(w.saveProject(file, &error), qPrintable(error));
    const QJsonObject saved = readJson(file);
    for (const char* key : {"id", "source", "notes", "coexplore", "name"})
      QVERIFY2(saved.value(QLatin1String(key)) == preset.value(QLatin1String(key)), key);
    MainWindow other;
    QVERIFY2(other.openProject(file, &error), qPrintable(error));
    QCOMPARE(other.origin(), w.origin());
    QCOMPARE(other.origin().id.value_or(""), std::string("llama-3-70b-wafer-coexplore"));
    QCOMPARE(other.design().workload.batch, batch);
    // Saved again from the reopened window: the same file.
    const QString again = home_.filePath(QStringLiteral("wafer-again.json"));
    QVERIFY2(other.saveProject(again, &error), qPrintable(error));
    QCOMPARE(readJson(again), saved);
  }

  // A project opened from a shipped presets folder is never overwritten by Save: Save goes to
  // Save As, which proposes the documents folder under the same name.
  void saveOnAShippedPresetGoesToSaveAs() {
    QTemporaryDir tree;  // a copy of the shipped layout, so a bug cannot touch the repository
    QVERIFY(QDir(tree.path()).mkpath(QStringLiteral("presets/projects")));
    const QString shipped = tree.filePath(QStringLiteral("presets/projects/default.json"));
    QVERIFY(QFile::copy(QStringLiteral(STACKSCOPE_SOURCE_DIR "/presets/projects/default.json"),
                        shipped));
    QVERIFY(MainWindow::isShippedPreset(shipped));
    QVERIFY(!MainWindow::isShippedPreset(home_.filePath(QStringLiteral("default.json"))));
    QFile f(shipped);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray before = f.readAll();
    f.close();
    MainWindow w;
    w.show();
    QString error;
    QVERIFY2(w.openProject(shipped, &error), qPrintable(error));
    editBatch(w);
    QTRY_VERIFY(w.document().dirty());
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QVERIFY2(!w.saveAsSuggestion().startsWith(tree.path()), qPrintable(w.saveAsSuggestion()));
    QString proposed;
    {
      Answerer answer({answerFileDialog(QString(), &proposed)});
      action(w, "actionSave")->trigger();
      QVERIFY2(answer.done(), qPrintable(answer.seen().join(',')));
    }
    QCOMPARE(QFileInfo(proposed).absolutePath(), QFileInfo(documents).absoluteFilePath());
    QCOMPARE(QFileInfo(proposed).fileName(), QStringLiteral("default.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
    QVERIFY(w.document().dirty());  // Save As was cancelled: the edits are still unsaved
  }
};

QTEST_MAIN(MainWindowFilesTest)
#include "main_window_files_test.moc"
