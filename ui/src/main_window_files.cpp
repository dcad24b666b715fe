// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's file handling: the File menu, open (dialog, recent, drop, presets), new,
// save and Save As with the project's origin, the unsaved-changes question, autosave and close.
#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUrl>

#include "main_window_detail.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/ui/design_editor.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/result_pane.hpp"
#include "stackscope/ui/search_panel.hpp"
#include "stackscope/ui/summary_panel.hpp"

namespace stackscope::ui {
namespace {

using detail::describeError;
using detail::qs;

const QString kFilter = QStringLiteral("StackScope projects (*.json);;All files (*)");

// The local file of a drag that carries exactly one, else "".
QString droppedFile(const QMimeData* mime) {
  if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return {};
  const QUrl url = mime->urls().front();
  return url.isLocalFile() ? url.toLocalFile() : QString();
}

// "Llama-3-70B decode on 4x H100" -> "llama-3-70b-decode-on-4x-h100".
QString slug(const QString& name) {
  QString out;
  for (const QChar c : name.toLower()) {
    if (c.isLetterOrNumber() || c == QLatin1Char('.'))
      out += c;
    else if (!out.isEmpty() && !out.endsWith(QLatin1Char('-')))
      out += QLatin1Char('-');
  }
  while (out.endsWith(QLatin1Char('-'))) out.chop(1);
  return out.left(64);
}

}  // namespace

void MainWindow::buildFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* newProject = file->addAction(tr("&New Project"), this, &MainWindow::newProject);
  newProject->setObjectName(QStringLiteral("actionNew"));
  newProject->setShortcut(QKeySequence::New);
  QAction* open = file->addAction(tr("&Open Project…"), this, &MainWindow::openDialog);
  open->setObjectName(QStringLiteral("actionOpen"));
  open->setShortcut(QKeySequence::Open);
  // The preset browser: every built-in project, by name, with its id on hover.
  QMenu* presetsMenu = file->addMenu(tr("Open &Preset Project"));
  for (const auto& p : presets_->list(io::PresetKind::project)) {
    QAction* a = presetsMenu->addAction(qs(p.name), this, [this, id = p.id] {
      if (maybeSave()) openPreset(qs(id));
    });
    a->setToolTip(tr("preset id: %1").arg(qs(p.id)));
    a->setObjectName(QStringLiteral("preset_") + qs(p.id));
  }
  presetsMenu->setToolTipsVisible(true);
  QMenu* recent = file->addMenu(tr("Open &Recent"));
  recent->setObjectName(QStringLiteral("recentMenu"));
  connect(recent, &QMenu::aboutToShow, this, [this, recent] {
    recent->clear();
    const QStringList files = QSettings().value(QStringLiteral("recent")).toStringList();
    for (const QString& f : files) recent->addAction(f, this, [this, f] { requestOpen(f); });
    if (files.isEmpty()) recent->addAction(tr("(none)"))->setEnabled(false);
  });
  QAction* save = file->addAction(tr("&Save Project"), this, &MainWindow::save);
  save->setObjectName(QStringLiteral("actionSave"));
  save->setShortcut(QKeySequence::Save);
  QAction* saveAs = file->addAction(tr("Save Project &As…"), this, &MainWindow::saveAsDialog);
  saveAs->setObjectName(QStringLiteral("actionSaveAs"));
  saveAs->setShortcut(QKeySequence::SaveAs);
  QAction* report =
      file->addAction(tr("Export Design &Review…"), this, &MainWindow::exportReportDialog);
  report->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
  report->setToolTip(
      tr("One HTML file with the metrics, power per layer, every view and the "
         "project JSON"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setObjectName(QStringLiteral("actionQuit"));
  quit->setShortcut(QKeySequence::Quit);
  setAcceptDrops(true);
}

bool MainWindow::maybeSave() {
  if (!doc_.dirty()) return true;
  const QString name = design_.name.empty() ? tr("Untitled design") : qs(design_.name);
  QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                  tr("“%1” has unsaved changes.").arg(name),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("unsavedChangesBox"));
  box.setInformativeText(
      tr("Save them before going on? Discard drops them; Cancel keeps this design open."));
  // The same words on every desktop (GNOME's default for Discard is "Close without Saving").
  box.button(QMessageBox::Save)
      ->setText(file_.isEmpty() || isShippedPreset(file_) ? tr("&Save As…") : tr("&Save"));
  box.button(QMessageBox::Discard)->setText(tr("&Discard"));
  box.button(QMessageBox::Cancel)->setText(tr("Cancel"));
  box.setDefaultButton(QMessageBox::Save);
  box.setEscapeButton(QMessageBox::Cancel);
  switch (box.exec()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

bool MainWindow::requestOpen(const QString& file) {
  if (!maybeSave()) return false;
  QString err;
  if (openProject(file, &err)) return true;
  QMessageBox::warning(this, tr("Cannot open project"),
                       QDir::toNativeSeparators(file) + QStringLiteral("\n\n") + err);
  return false;
}

bool MainWindow::newProject() {
  if (!maybeSave()) return false;
  try {
    io::ProjectFile blank =
        io::parse_project_file(presets_->json_text(io::PresetKind::project, "default"), *presets_);
    blank.origin = {};  // a new project of the user's: no id, source or notes of a preset
    adopt(blank, {});
    statusBar()->showMessage(tr("New project (the default design)"));
    return true;
  } catch (const std::exception& e) {
    statusBar()->showMessage(describeError(e));
    return false;
  }
}

void MainWindow::adopt(const io::ProjectFile& project, const QString& file) {
  file_ = file;
  origin_ = project.origin;
  design_ = project.design;
  setNameBasis(design_);
  editor_->setProject(design_);
  // A new document: no undo step leads back into the previous one, and no baseline pinned on
  // the previous one stands beside its figures (its changes would compare two projects).
  doc_.reset(design_, project.serving.value_or(serving::ServingSpec{}));
  setWindowModified(false);
  search_->suggestFor(design_);
  const bool hadBaseline = summary_->hasBaseline();
  summary_->setBaseline(std::nullopt);
  evaluateNow();
  if (hadBaseline)
    statusBar()->showMessage(
        tr("Baseline cleared: it was pinned on the previous project (Design ▸ Pin as Baseline "
           "pins one here)"));
}

bool MainWindow::openProject(const QString& file, QString* error) {
  try {
    const io::ProjectFile project = io::load_project_file(file.toStdString(), *presets_);
    adopt(project, QFileInfo(file).absoluteFilePath());
    if (sessionState_) addRecent(file_);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = describeError(e);
    return false;
  }
}

bool MainWindow::openPreset(const QString& id) {
  try {
    const std::string key = id.toStdString();
    io::ProjectFile project =
        io::parse_project_file(presets_->json_text(io::PresetKind::project, key), *presets_);
    if (project.design.name.empty()) project.design.name = presets_->project(key).name;
    adopt(project, {});
    statusBar()->showMessage(tr("Opened preset project %1 (Save As to keep edits)").arg(id));
    return true;
  } catch (const std::exception& e) {
    statusBar()->showMessage(describeError(e));
    return false;
  }
}

bool MainWindow::saveProject(const QString& file, QString* error) {
  if (debounce_.isActive()) evaluateNow();  // an edit still waiting for its evaluation
  try {
    io::save_text_atomic(file.toStdString(),
                         io::project_file_to_json(design_, doc_.serving(), origin_,
                                                  QFileInfo(file).absolutePath().toStdString()));
    file_ = QFileInfo(file).absoluteFilePath();
    doc_.markClean();
    setWindowModified(false);
    if (sessionState_) {
      addRecent(file_);
      dropAutosave();
    }
    updateHeader();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = describeError(e);
    return false;
  }
}

bool MainWindow::isShippedPreset(const QString& file) {
  if (file.isEmpty()) return false;
  const QFileInfo info(file);
  const QDir folder = info.absoluteDir();
  const QString kind = folder.dirName();
  QDir parent = folder;
  return (kind == QStringLiteral("projects") || kind == QStringLiteral("search")) &&
         parent.cdUp() && parent.dirName() == QStringLiteral("presets");
}

QString MainWindow::saveAsSuggestion() const {
  if (!file_.isEmpty() && !isShippedPreset(file_)) return file_;
  QString dir = lastSaveDir_;
  if (dir.isEmpty() || !QFileInfo(dir).isDir() ||
      isShippedPreset(QDir(dir).filePath(QStringLiteral("x.json"))))
    dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
  QString name = QFileInfo(file_).fileName();  // a shipped file keeps its name
  if (name.isEmpty() && origin_.id) name = qs(*origin_.id) + QStringLiteral(".json");
  if (name.isEmpty() && !slug(qs(design_.name)).isEmpty())
    name = slug(qs(design_.name)) + QStringLiteral(".json");
  if (name.isEmpty()) name = QStringLiteral("project.json");
  return QDir(dir).filePath(name);
}

void MainWindow::openDialog() {
  if (!maybeSave()) return;
  QString dir = file_.isEmpty() ? lastSaveDir_ : QFileInfo(file_).absolutePath();
  if (dir.isEmpty()) dir = QFileInfo(saveAsSuggestion()).absolutePath();
  const QString f = QFileDialog::getOpenFileName(this, tr("Open project"), dir, kFilter);
  if (f.isEmpty()) return;
  // Already asked: open without a second question (a failed open keeps the design).
  QString err;
  if (!openProject(f, &err))
    QMessageBox::warning(this, tr("Cannot open project"),
                         QDir::toNativeSeparators(f) + QStringLiteral("\n\n") + err);
}

bool MainWindow::save() {
  if (file_.isEmpty() || isShippedPreset(file_)) return saveAsDialog();
  QString err;
  if (saveProject(file_, &err)) return true;
  QMessageBox::warning(this, tr("Cannot save project"), err);
  return false;
}

bool MainWindow::saveAsDialog() {
  const QString f = QFileDialog::getSaveFileName(this, tr("Save project as"), saveAsSuggestion(),
                                                 tr("StackScope projects (*.json)"));
  if (f.isEmpty()) return false;
  QString err;
  if (!saveProject(f, &err)) {
    QMessageBox::warning(this, tr("Cannot save project"), err);
    return false;
  }
  lastSaveDir_ = QFileInfo(f).absolutePath();
  if (sessionState_) QSettings().setValue(QStringLiteral("files/lastSaveDir"), lastSaveDir_);
  return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (!droppedFile(e->mimeData()).isEmpty()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const QString file = droppedFile(e->mimeData());
  if (file.isEmpty()) return;
  e->acceptProposedAction();
  // The question is modal: ask once the drag has finished, not inside it.
  QTimer::singleShot(0, this, [this, file] { requestOpen(file); });
}

QString MainWindow::autosavePath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("autosave.json"));
}

bool MainWindow::autosaveNow() {
  if (!doc_.dirty()) return false;
  try {
    QDir().mkpath(QFileInfo(autosavePath()).path());
    io::save_text_atomic(autosavePath().toStdString(),
                         io::project_file_to_json(doc_.design(), doc_.serving(), origin_,
                                                  QFileInfo(autosavePath()).path().toStdString()));
    QSettings().setValue(QStringLiteral("autosave/file"), file_);
    Q_EMIT autosaved();
    return true;
  } catch (const std::exception&) {
    return false;  // best effort; the next tick tries again
  }
}

void MainWindow::setAutosaveInterval(int ms) {
  autosave_.setInterval(ms);
}

void MainWindow::dropAutosave() {
  QFile::remove(autosavePath());
  QSettings().remove(QStringLiteral("autosave/file"));
}

bool MainWindow::recoverAutosave(QString* error) {
  const QString path = autosavePath();
  if (!QFileInfo::exists(path)) return false;
  try {
    const io::ProjectFile project = io::load_project_file(path.toStdString(), *presets_);
    adopt(project, QSettings().value(QStringLiteral("autosave/file")).toString());
    // Recovered edits are unsaved: keep the document dirty until the user saves.
    doc_.edit(project.design, tr("Recovered edits"));
    updateHeader();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = describeError(e);
    return false;
  }
}

void MainWindow::addRecent(const QString& file) {
  QSettings s;
  QStringList recent = s.value(QStringLiteral("recent")).toStringList();
  recent.removeAll(file);
  recent.prepend(file);
  while (recent.size() > 8) recent.removeLast();
  s.setValue(QStringLiteral("recent"), recent);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!maybeSave()) {
    e->ignore();
    return;
  }
  if (sessionState_) {
    dropAutosave();
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    for (const char* name : {"mainSplitter", "resultSplitter"})
      if (auto* split = findChild<QSplitter*>(QString::fromLatin1(name)))
        s.setValue(QStringLiteral("window/") + QString::fromLatin1(name), split->saveState());
    s.setValue(QStringLiteral("window/tab"), views_->currentIndex());
  }
  QMainWindow::closeEvent(e);
}

}  // namespace stackscope::ui
