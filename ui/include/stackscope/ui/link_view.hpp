// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Link view: the system network of the design — devices laid out level
// by level (a package's mesh inside the torus of packages, a node's devices under their
// switches) — with every link coloured and sized by its utilisation in one decode step or
// prefill pass (perf::network_report, computed off the UI thread), and the bytes and utilisation
// of both directions on hover. For MoE designs the devices can be coloured by the routed experts
// they host and their expected share of the routed tokens, or by expert-parallel group
// (perf::expert_map: the placement the evaluator costs), with coordinates and loads on hover.
// Below it, the on-die mesh of one device with its link loads (MeshView).
#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/ui/review_section.hpp"

class QComboBox;
class QLabel;

namespace stackscope::ui {

class LinkCanvas;
class MeshView;

class LinkView : public QWidget {
  Q_OBJECT
 public:
  explicit LinkView(QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;
  ~LinkView() override;
  // `result` is perf::evaluate(design) (the mesh view reads its traffic).
  void showDesign(const perf::Design& design, const perf::Result& result);
  void clear();
  void waitForIdle();
  // Links drawn (undirected pairs) and the busiest utilisation of the shown phase (tests).
  int linkCount() const;
  double busiest() const;
  // Device colouring: 0 none, 1 experts hosted (token share), 2 expert-parallel group. Only MoE
  // designs offer it; for dense models the selector is disabled with a tooltip saying why.
  enum DeviceColour { kNone = 0, kExperts = 1, kEpGroup = 2 };
  void setDeviceColouring(int mode);
  int deviceColouring() const;
  bool deviceColouringAvailable() const;
  // Routed expert slots on `device` (originals + replicas), -1 if unknown (tests).
  int expertsOnDevice(int device) const;
  // The hover text of a device square.
  QString deviceToolTip(int device) const;
  MeshView* meshView() const { return mesh_; }

  struct Computed;  // the laid-out network and its loads (defined in link_view.cpp)

 private:
  void onFinished();
  void redraw();

  QComboBox* phase_ = nullptr;
  QComboBox* colour_ = nullptr;
  QLabel* stats_ = nullptr;
  QLabel* note_ = nullptr;
  LinkCanvas* canvas_ = nullptr;
  MeshView* mesh_ = nullptr;
  QFutureWatcher<std::shared_ptr<Computed>> watcher_;
  std::shared_ptr<Computed> computed_;
  int generation_ = 0, pending_ = 0;
};

}  // namespace stackscope::ui
