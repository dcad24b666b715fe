// SPDX-License-Identifier: GPL-3.0-or-later
// Help: the user guide (the README), the model reference (docs/model.md), the validation
// report (docs/validation.md) and the architecture notes, compiled into the program
// (resources/docs.qrc) and shown as formatted text with a document list, links between the
// documents and a find field. Opened from Help in the main window.
#pragma once

#include <QString>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QTextBrowser;
class QUrl;

namespace stackscope::ui {

class HelpWindow : public QWidget {
  Q_OBJECT
 public:
  enum Doc { kGuide, kModel, kValidation, kArchitecture };
  static constexpr int kDocs = 4;

  explicit HelpWindow(QWidget* parent = nullptr);

  // Shows `doc`, from its top or from the heading whose text is `heading`.
  void showDoc(Doc doc, const QString& heading = {});
  Doc currentDoc() const { return current_; }
  // The document's title as listed ("User guide") and its Markdown source.
  static QString title(Doc doc);
  static QString source(Doc doc);
  // Selects the next match of `text` after the cursor (wrapping to the top); false if none.
  bool find(const QString& text);
  QTextBrowser* browser() const { return browser_; }

 private:
  void follow(const QUrl& url);

  QListWidget* list_ = nullptr;
  QLineEdit* find_ = nullptr;
  QTextBrowser* browser_ = nullptr;
  Doc current_ = kGuide;
};

}  // namespace stackscope::ui
