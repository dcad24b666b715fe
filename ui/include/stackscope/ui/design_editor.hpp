// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The design's form editors: a device preset on top and one page per concern
// in a QToolBox — Model & workload (with MoE routing), Parallelism & batch, Memory (DRAM
// organisation, timings, the 3D stack), Compute die, On-die mesh, System network, Power, area &
// thermal. Every field is bound to one member of perf::Design by its JSON pointer
// (the same path perf::validate() reports), so an issue lands beside its field. Each edit
// changes the editor's design at once and emits fieldEdited() with a stable id for undo
// merging; derived quantities (per-layer capacity and bandwidth, link density, peaks) are
// computed by the core model and shown read-only.
#include <QWidget>

#include <functional>
#include <map>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/perf/validate.hpp"

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QTableWidget;
class QToolBox;

namespace stackscope::ui {

class DesignEditor : public QWidget {
  Q_OBJECT
 public:
  // The pages of the tool box, in order.
  enum Page {
    kModelPage,
    kParallelPage,
    kStackPage,  // memory: DRAM organisation and timings of any kind, the 3D stack's links
    kComputePage,
    kMeshPage,
    kSystemPage,
    kPowerPage,
    kRuntimePage  // the runtime profile: the serving software's efficiencies and launch rules
  };

  // `presets` must outlive the editor.
  explicit DesignEditor(const io::PresetRegistry& presets, QWidget* parent = nullptr);

  // Where a relative routing-trace path typed into the form resolves (the project file's
  // folder; empty: the working directory, as for built-in projects).
  void setProjectDir(const QString& dir) { projectDir_ = dir; }
  // Shows `base` (a loaded project); widgets are refreshed without emitting edited().
  void setBase(const perf::Design& base);
  // setBase for a project just opened or started: its own device (inline or a changed preset)
  // is labelled "(from project)", and only a device that later differs from it "(edited)".
  void setProject(const perf::Design& project);
  // The design as edited: `base` with every form edit applied. Devices follow the plan.
  perf::Design compose() const { return cur_; }
  // Marks the fields that validation issues point at (JSON-pointer paths such as
  // "/parallel/tp"; the longest bound prefix wins): a red frame and the messages as tooltip,
  // and a warning icon on the page holding them. An empty list clears the marks. Returns how
  // many issues were placed on a field.
  int showIssues(const std::vector<Issue>& issues);
  // The page box, and the widget bound to a JSON pointer (nullptr if none).
  QToolBox* pages() const { return pages_; }
  QWidget* fieldFor(const QString& path) const;
  void showPage(Page page);
  // The form of a page (the tool box scrolls a long one).
  QWidget* pageContents(Page page) const;
  // Appends a page to the tool box (after the editor pages), on the editor's background.
  void addPage(QWidget* page, const QString& title);

 Q_SIGNALS:
  void edited();
  // Which field changed (stable id for undo merging, -1 for edits that never merge) and a
  // name for the undo text.
  void fieldEdited(int field, const QString& name);

 protected:
  // A new style sheet or font changes label widths: the page's forms are lined up again.
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // One form field bound to a member of the design.
  struct Binding {
    QString path;  // JSON pointer; "{L}" stands for the selected network level
    QWidget* widget = nullptr;
    int page = 0;
    std::function<void()> refresh;  // design -> widget (signals blocked by the caller)
  };
  using IntRef = std::function<int*(perf::Design&)>;
  using DoubleRef = std::function<double*(perf::Design&)>;

  QWidget* buildModelPage();
  QWidget* buildParallelPage();
  QWidget* buildStackPage();
  QWidget* buildComputePage();
  QWidget* buildMeshPage();
  QWidget* buildSystemPage();
  QWidget* buildPowerPage();
  QWidget* buildRuntimePage();
  // Loads the routing trace's expert frequencies when the routing kind is "trace" (clears
  // them otherwise); a file that cannot be read leaves them empty for validate() to report.
  void loadRoutingTrace();

  struct IntSpec {
    const char* object;
    const char* path;
    int min, max;
    QString suffix, tip, special;  // special: text shown at the minimum ("auto")
  };
  struct DoubleSpec {
    const char* object;
    const char* path;
    double min, max;
    int decimals;
    QString suffix, tip, special = {};  // special: text shown at the minimum
  };
  // The range validate() checks `path` against for the current design (with "{L}" the
  // selected level), or null; refreshAll() recomputes them (perf::field_ranges).
  const perf::FieldRange* rangeFor(const QString& path) const;
  void addInt(QFormLayout* form, const QString& label, const IntSpec& spec, IntRef ref);
  void addDouble(QFormLayout* form, const QString& label, const DoubleSpec& spec, DoubleRef ref);
  // A choice among `items`; get returns the index shown (-1: none), set applies one.
  void addCombo(QFormLayout* form, const QString& label, const char* object, const char* path,
                const QString& tip, const QStringList& items, std::function<int(perf::Design&)> get,
                std::function<void(perf::Design&, int)> set);
  void addCheck(QFormLayout* form, const QString& label, const char* object, const char* path,
                const QString& tip, std::function<bool*(perf::Design&)> ref);
  // Registers a field; returns its index (the undo-merge id).
  int bind(const QString& path, QWidget* w, std::function<void()> refresh);
  // After an edit of field `index`: devices follow the plan, derived labels refresh.
  void commit(int index, const QString& name, bool mergeable = true);
  void refreshAll();
  void refreshDerived();
  void refreshLevels();
  void refreshRouting();  // MoE routing fields: enabled per kind, the skew in words
  // The 3D stack's per-layer table: fills it from the design (top die first), applies a cell
  // edit, and runs one layer operation (add, remove, move) as one undoable edit.
  void refreshLayerTable();
  void layerCellEdited(int row, int column);
  void editLayers(const QString& name, int selectDie,
                  const std::function<void(std::vector<hw::DramLayer>&)>& change);
  int selectedDie() const;
  void markLayerCells(const std::vector<Issue>& issues);
  // Lists the presets of `kind`, selecting `currentId`; without it, a first entry named
  // `customName` (data: empty id) is selected.
  void fillCombo(QComboBox* combo, io::PresetKind kind, const std::string& currentId,
                 const QString& customName);
  // Selects (adding it if needed) the hardware combo's first entry for the edited device,
  // named `prefix` + the device's name.
  void showCustomHardware(const QString& prefix);
  QString levelPath(const QString& path) const;

  const io::PresetRegistry& presets_;
  perf::Design base_;
  perf::Design cur_;
  hw::Hardware custom_;  // what the hardware combo's non-preset entry stands for
  std::string projectHardware_;  // the open project's device as JSON (setProject)
  std::vector<Binding> bindings_;
  std::map<std::string, perf::FieldRange> ranges_;  // validate()'s ranges for cur_
  int page_ = 0;       // page being built
  int level_ = 0;      // selected network level
  int batchEdit_ = 0;  // the batch spin's value: 0 = auto
  int seedEdit_ = 0;   // the routing-seed spin's value (the design holds a 64-bit seed)
  QString projectDir_;
  QString traceError_;  // why the routing trace could not be loaded (empty: loaded or none)
  QToolBox* pages_ = nullptr;
  QComboBox* hardware_ = nullptr;
  QComboBox* model_ = nullptr;
  QComboBox* runtime_ = nullptr;
  QLabel* runtimeInfo_ = nullptr;
  QLabel* modelInfo_ = nullptr;
  QLabel* devices_ = nullptr;
  QLabel* systemDevices_ = nullptr;
  QLabel* routingNote_ = nullptr;
  QLabel* routingInfo_ = nullptr;
  QLabel* stackNote_ = nullptr;
  QWidget* dramFields_ = nullptr;
  QLabel* dramInfo_ = nullptr;
  QWidget* stackFields_ = nullptr;
  QLabel* layerTitle_ = nullptr;
  QTableWidget* layerTable_ = nullptr;
  QLabel* stackTotals_ = nullptr;
  QPushButton* addLayer_ = nullptr;
  QPushButton* removeLayer_ = nullptr;
  QPushButton* layerUp_ = nullptr;
  QPushButton* layerDown_ = nullptr;
  QLabel* density_ = nullptr;
  QLabel* computeInfo_ = nullptr;
  QLabel* meshInfo_ = nullptr;
  QLabel* powerInfo_ = nullptr;
  QLabel* areaInfo_ = nullptr;
  QLabel* thermalInfo_ = nullptr;
  QTableWidget* levels_ = nullptr;
  QWidget* levelForm_ = nullptr;
  QPushButton* addLevel_ = nullptr;
  QPushButton* removeLevel_ = nullptr;
  std::vector<QString> pageTitles_;
  std::vector<QLabel*> pageProblems_;  // per page: its issues in words
  bool refreshing_ = false;
};

}  // namespace stackscope::ui
