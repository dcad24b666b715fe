// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/help_window.hpp"

#include <QDesktopServices>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

// Resources of a static library are registered by hand (the linker may drop the initialiser
// otherwise); Q_INIT_RESOURCE must be used outside any namespace.
static void initDocsResources() {
  Q_INIT_RESOURCE(docs);
}

namespace stackscope::ui {

namespace {

const char* fileOf(HelpWindow::Doc doc) {
  switch (doc) {
    case HelpWindow::kGuide: return "README.md";
    case HelpWindow::kModel: return "model.md";
    case HelpWindow::kValidation: return "validation.md";
    case HelpWindow::kArchitecture: return "architecture.md";
  }
  return "README.md";
}

}  // namespace

QString HelpWindow::title(Doc doc) {
  switch (doc) {
    case kGuide: return tr("User guide");
    case kModel: return tr("Model reference");
    case kValidation: return tr("Validation");
    case kArchitecture: return tr("Architecture");
  }
  return {};
}

QString HelpWindow::source(Doc doc) {
  static const bool registered = [] {
    initDocsResources();
    return true;
  }();
  (void)registered;
  QFile f(QStringLiteral(":/stackscope/docs/") + QString::fromLatin1(fileOf(doc)));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

HelpWindow::HelpWindow(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("helpWindow"));
  setWindowTitle(tr("StackScope Help"));
  auto* box = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  auto* findLabel = new QLabel(tr("&Find:"), this);
  find_ = new QLineEdit(this);
  find_->setObjectName(QStringLiteral("helpFind"));
  find_->setPlaceholderText(tr("a word or phrase; Enter for the next match"));
  find_->setClearButtonEnabled(true);
  findLabel->setBuddy(find_);
  top->addWidget(findLabel);
  top->addWidget(find_, 1);
  box->addLayout(top);
  auto* split = new QSplitter(Qt::Horizontal, this);
  list_ = new QListWidget(split);
  list_->setObjectName(QStringLiteral("helpDocs"));
  for (int d = 0; d < kDocs; ++d) list_->addItem(title(static_cast<Doc>(d)));
  list_->setMaximumWidth(170);
  browser_ = new QTextBrowser(split);
  browser_->setObjectName(QStringLiteral("helpText"));
  browser_->setOpenLinks(false);  // follow(): links between the documents stay in here
  split->addWidget(list_);
  split->addWidget(browser_);
  split->setStretchFactor(1, 1);
  box->addWidget(split, 1);
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0 && row != current_) showDoc(static_cast<Doc>(row));
  });
  connect(browser_, &QTextBrowser::anchorClicked, this, &HelpWindow::follow);
  connect(find_, &QLineEdit::returnPressed, this, [this] { find(find_->text()); });
  resize(1000, 760);
  showDoc(kGuide);
}

void HelpWindow::showDoc(Doc doc, const QString& heading) {
  current_ = doc;
  QString md = source(doc);
  // Screenshots are not compiled in: an image shows as its caption.
  static const QRegularExpression image(QStringLiteral(R"(!\[([^\]]*)\]\([^)]*\))"));
  md.replace(image, QStringLiteral("*[\\1]*"));
  browser_->setMarkdown(md);
  browser_->moveCursor(QTextCursor::Start);
  const QSignalBlocker block(list_);
  list_->setCurrentRow(doc);
  if (heading.isEmpty()) return;
  for (QTextBlock b = browser_->document()->begin(); b.isValid(); b = b.next())
    if (b.blockFormat().headingLevel() > 0 && b.text() == heading) {
      // The heading at the top of the view: to the end, then back to it.
      browser_->moveCursor(QTextCursor::End);
      browser_->setTextCursor(QTextCursor(b));
      browser_->ensureCursorVisible();
      return;
    }
}

bool HelpWindow::find(const QString& text) {
  if (text.isEmpty()) return false;
  if (browser_->find(text)) return true;
  browser_->moveCursor(QTextCursor::Start);  // wrap around
  return browser_->find(text);
}

void HelpWindow::follow(const QUrl& url) {
  if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")) {
    QDesktopServices::openUrl(url);
    return;
  }
  // Links between the documents ("docs/model.md", "../README.md", "model.md#...").
  const QString path = url.path();
  for (int d = 0; d < kDocs; ++d)
    if (path.endsWith(QString::fromLatin1(fileOf(static_cast<Doc>(d))))) {
      showDoc(static_cast<Doc>(d));
      return;
    }
}

}  // namespace stackscope::ui
