// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to ui/: the settings form of the Serving tab, bound to a ConfigDocument's serving
// spec (serving/spec.hpp). Every widget change is one undoable editServing() step (consecutive
// changes of one field merge); undo, redo and a new document refresh the widgets under
// QSignalBlocker. A length text that does not parse is not recorded: it is reported by
// pendingError() until it parses or the document changes.
#include <QString>
#include <QWidget>
#include <functional>
#include <map>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/serving/spec.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QResizeEvent;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace stackscope::ui {

class ConfigDocument;

class ServingForm : public QWidget {
  Q_OBJECT
 public:
  // The fields, numbered for the document's merging of consecutive edits.
  enum Field {
    kSource,
    kRequests,
    kRate,
    kArrivals,
    kCv,
    kSeed,
    kTrace,
    kTimeScale,
    kInput,
    kOutput,
    kInstances,
    kPrefill,
    kDecode,
    kRouter,
    kConcurrency,
    kMaxSeqs,
    kMaxTokens,
    kBlockSize,
    kMaxModelLen,
    kChunked,
    kKvPolicy,
    kKvFraction,
    kSloTtft,
    kSloTpot,
    // The pools' own plans and limits, prefill then decode, in PoolConfig's order (tp, pp, ep,
    // cp, max_num_seqs, max_num_batched_tokens): kPrefillTp + 6 x pool + k.
    kPrefillTp,
    kPrefillPp,
    kPrefillEp,
    kPrefillCp,
    kPrefillMaxSeqs,
    kPrefillMaxTokens,
    kDecodeTp,
    kDecodePp,
    kDecodeEp,
    kDecodeCp,
    kDecodeMaxSeqs,
    kDecodeMaxTokens,
    kInstanceGroups,
    kPartitioning,
    kSizing,
  };

  explicit ServingForm(ConfigDocument* doc, QWidget* parent = nullptr);

  // Binds the form to `doc` (not owned) and shows its spec.
  void setDocument(ConfigDocument* doc);
  ConfigDocument* document() const { return doc_; }
  // The replicas of the design, shown as the instance count's "dp (N)" (0 = the design's dp).
  void setDesignDp(int dp);
  // A wafer design serves disaggregated: 0 prefill/decode instances mean the central
  // scheduler's split (wafer/partition.hpp), and the co-located instance count is not used.
  void setWafer(bool wafer);
  // The design's degrees, shown as a pool's unchanged ones ("tp (2)").
  void setDesignPlan(int tp, int pp, int ep, int cp);
  // Types the length texts into their fields (recorded when they parse, as typed ones).
  void setLengthTexts(const QString& input, const QString& output);
  // Why the form holds a value the spec does not ("input length: ..."), else empty.
  QString pendingError() const;
  // Marks the fields of `issues` (serving::validate() paths under /serving; a path below a
  // field's, such as /serving/instance_groups/1/tp, marks that field) red, with the issue in
  // their tooltip; the others are cleared.
  void showIssues(const std::vector<Issue>& issues);

 Q_SIGNALS:
  // After every change of a field (recorded or not) and every refresh from the document.
  void edited();

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  // Label/field pairs per row: as many as the width holds, 3 to 5.
  static constexpr int kMinPairs = 3, kMaxPairs = 5;
  struct Cell {
    QLabel* label;
    QWidget* field;
    int span;     // pairs of room it takes (capped at the row's pairs)
    bool newRow;  // starts a row
  };
  int pairsFor(int width) const;
  void reflow(int pairs);
  void build();
  void connectFields();
  void refresh();
  void updateEnabled();
  void browseTrace();
  // Records `change` applied to the document's spec as one step named after `name`.
  void commit(Field field, const QString& name,
              const std::function<void(serving::ServingSpec&)>& change);
  void lengthEdited(Field field, QLineEdit* edit, const QString& name);
  void groupsEdited();

  QGridLayout* grid_ = nullptr;
  std::vector<Cell> cells_;  // in reading order
  int minWidth_[kMaxPairs + 1] = {};  // the grid's minimum width at n pairs per row (px)
  int pairs_ = 0;            // pairs per row as laid out
  ConfigDocument* doc_ = nullptr;
  bool committing_ = false;     // the document's change is this form's own edit
  serving::ServingSpec shown_;  // what the widgets show (the spec as last refreshed or edited)
  std::map<Field, QString> pending_;    // length and group texts that do not parse
  std::map<QString, QWidget*> byPath_;  // issue path -> field

  QComboBox* source_ = nullptr;
  QSpinBox* requests_ = nullptr;
  QDoubleSpinBox* rate_ = nullptr;
  QComboBox* arrivals_ = nullptr;
  QDoubleSpinBox* cv_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QLineEdit* trace_ = nullptr;
  QPushButton* browse_ = nullptr;
  QDoubleSpinBox* timeScale_ = nullptr;
  QLineEdit* input_ = nullptr;
  QLineEdit* output_ = nullptr;
  QSpinBox* instances_ = nullptr;
  QLineEdit* groups_ = nullptr;  // instance groups as the CLI's --instance-groups text
  QSpinBox* prefill_ = nullptr;
  QSpinBox* decode_ = nullptr;
  QComboBox* router_ = nullptr;
  QComboBox* split_ = nullptr;   // ServingSpec::partitioning
  QComboBox* sizing_ = nullptr;  // ServingSpec::sizing
  QSpinBox* concurrency_ = nullptr;
  QSpinBox* maxSeqs_ = nullptr;
  QSpinBox* maxTokens_ = nullptr;
  QSpinBox* blockSize_ = nullptr;
  QSpinBox* maxModelLen_ = nullptr;
  QCheckBox* chunked_ = nullptr;
  QComboBox* kvPolicy_ = nullptr;
  QDoubleSpinBox* kvFraction_ = nullptr;
  QDoubleSpinBox* sloTtft_ = nullptr;
  QDoubleSpinBox* sloTpot_ = nullptr;
  QSpinBox* pool_[2][6] = {};  // [prefill, decode][PoolConfig field]
};

}  // namespace stackscope::ui
