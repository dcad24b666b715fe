// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/mesh_view.hpp"

#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "stackscope/compute/noc.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {

// One device's mesh, its traffic per phase and the block grid it is drawn in.
struct MeshView::Computed {
  bool ok = false;
  std::string error;
  compute::MeshRates mesh;          // at the clock the design runs at
  double nominal_link_Bps = 0;      // at the nominal clock
  double clock = 1;                 // power wall x thermal throttle
  compute::NocTraffic traffic[2];   // decode step, prefill pass
  double time_s[2] = {};            // phase time the loads are spread over
  double noc_bound_s[2] = {};       // time the mesh bounded operators
  double byte_hops[2] = {};
  double noc_pJ_per_bit_hop = 0;
  int bx = 1, by = 1;               // cores per block along x / y
  int sx = 1, sy = 1;               // blocks along x / y
  double util(double bytes, int ph) const {
    const double cap = time_s[ph] * mesh.link_Bps;
    return cap > 0 ? bytes / cap : 0.0;
  }
  // The original column (row) whose link crosses the boundary after block i.
  int boundary_x(int i) const { return std::min(mesh.x - 2, (i + 1) * bx - 1); }
  int boundary_y(int j) const { return std::min(mesh.y - 2, (j + 1) * by - 1); }
  // Bytes of both directions of the drawn link leaving block (i, j) east (or south).
  std::pair<double, double> bytes(int i, bool horizontal, int ph) const {
    const auto& t = traffic[ph];
    if (horizontal) {
      const int c = boundary_x(i);
      return {compute::x_link_bytes(mesh, t, c, true), compute::x_link_bytes(mesh, t, c, false)};
    }
    const int r = boundary_y(i);
    return {compute::y_link_bytes(mesh, t, r, true), compute::y_link_bytes(mesh, t, r, false)};
  }
  double crossbar_bytes(int ph) const { return compute::max_link_bytes(mesh, traffic[ph]); }
  bool crossbar() const { return mesh.x <= 1 && mesh.y <= 1; }
};

namespace {

QString phase_name(int ph) {
  return ph == 0 ? MeshView::tr("decode step") : MeshView::tr("prefill pass");
}

QString link_text(const MeshView::Computed& c, int i, int j, bool horizontal, int ph) {
  const auto [fwd, back] = c.bytes(horizontal ? i : j, horizontal, ph);
  const int x = horizontal ? c.boundary_x(i) : std::min(c.mesh.x - 1, i * c.bx);
  const int y = horizontal ? std::min(c.mesh.y - 1, j * c.by) : c.boundary_y(j);
  const QString where =
      horizontal ? MeshView::tr("X-link between core columns %1 and %2 (the same in every row)")
                       .arg(x)
                       .arg(x + 1)
                 : MeshView::tr("Y-link between core rows %1 and %2 (the same in every column)")
                       .arg(y)
                       .arg(y + 1);
  return MeshView::tr("<b>%1</b><br>%2: %3 B, %4 %<br>%5: %6 B, %7 %<br>per %8 at %9 GB/s per "
                      "direction")
      .arg(where, horizontal ? MeshView::tr("eastward") : MeshView::tr("southward"),
           readable(fwd), QString::number(100 * c.util(fwd, ph), 'f', 1),
           horizontal ? MeshView::tr("westward") : MeshView::tr("northward"), readable(back),
           QString::number(100 * c.util(back, ph), 'f', 1), phase_name(ph),
           readable(c.mesh.link_Bps / 1e9));
}

}  // namespace

class MeshCanvas : public QWidget {
 public:
  explicit MeshCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(200);
  }
  std::shared_ptr<MeshView::Computed> data;
  int phase = 0;

  QRectF area() const { return QRectF(rect()).adjusted(24, 12, -24, -44); }
  double pitch() const {
    const QRectF a = area();
    return std::min(a.width() / std::max(1, data->sx), a.height() / std::max(1, data->sy));
  }
  QPointF centre(int i, int j) const {
    const QRectF a = area();
    const double p = pitch();
    const double ox = a.left() + 0.5 * (a.width() - p * data->sx);
    const double oy = a.top() + 0.5 * (a.height() - p * data->sy);
    return {ox + (i + 0.5) * p, oy + (j + 0.5) * p};
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!data || !data->ok) return;
    const auto& c = *data;
    const double pt = pitch();
    const double half = std::clamp(0.22 * pt, 3.0, 14.0);
    if (c.crossbar()) {
      const double u = c.util(c.crossbar_bytes(phase), phase);
      const QPointF m = centre(0, 0);
      p.setPen(QPen(theme::ink(), 1.2));
      p.setBrush(utilisationColor(u));
      p.drawRect(QRectF(m.x() - 2 * half, m.y() - 2 * half, 4 * half, 4 * half));
    } else {
      // Links between blocks: one line per neighbour pair, coloured and sized by the busier
      // direction.
      for (int pass = 0; pass < 2; ++pass) {
        const bool horizontal = pass == 0;
        const int ni = horizontal ? c.sx - 1 : c.sx, nj = horizontal ? c.sy : c.sy - 1;
        for (int j = 0; j < nj; ++j)
          for (int i = 0; i < ni; ++i) {
            const auto [a, b] = c.bytes(horizontal ? i : j, horizontal, phase);
            const double u = c.util(std::max(a, b), phase);
            QPen pen(utilisationColor(u), 1.0 + 5.0 * std::clamp(u, 0.0, 1.0));
            pen.setCapStyle(Qt::FlatCap);
            p.setPen(pen);
            p.drawLine(centre(i, j), horizontal ? centre(i + 1, j) : centre(i, j + 1));
          }
      }
      p.setPen(QPen(theme::ink(), 1.0));
      p.setBrush(palette().color(QPalette::Button));
      for (int j = 0; j < c.sy; ++j)
        for (int i = 0; i < c.sx; ++i) {
          const QPointF m = centre(i, j);
          p.drawRect(QRectF(m.x() - half, m.y() - half, 2 * half, 2 * half));
        }
    }
    drawUtilisationKey(
        p, rect(),
        MeshView::tr("mesh link utilisation, busier direction (bytes / (link GB/s × %1))")
            .arg(phase_name(phase)),
        palette().color(QPalette::Text));
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (!data || !data->ok) return;
    const auto& c = *data;
    const QPointF m = e->position();
    if (c.crossbar()) {
      const double b = c.crossbar_bytes(phase);
      QToolTip::showText(e->globalPosition().toPoint(),
                         MeshView::tr("<b>Crossbar to L2</b><br>%1 B per %2, %3 % of %4 GB/s")
                             .arg(readable(b), phase_name(phase),
                                  QString::number(100 * c.util(b, phase), 'f', 1),
                                  readable(c.mesh.link_Bps / 1e9)),
                         this);
      return;
    }
    // Nearest link midpoint within half a pitch.
    double best = 0.25 * pitch() * pitch();
    int hi = -1, hj = -1;
    bool hh = true;
    for (int pass = 0; pass < 2; ++pass) {
      const bool horizontal = pass == 0;
      const int ni = horizontal ? c.sx - 1 : c.sx, nj = horizontal ? c.sy : c.sy - 1;
      for (int j = 0; j < nj; ++j)
        for (int i = 0; i < ni; ++i) {
          const QPointF q =
              0.5 * (centre(i, j) + (horizontal ? centre(i + 1, j) : centre(i, j + 1)));
          const double d = (q.x() - m.x()) * (q.x() - m.x()) + (q.y() - m.y()) * (q.y() - m.y());
          if (d < best) {
            best = d;
            hi = i;
            hj = j;
            hh = horizontal;
          }
        }
    }
    if (hi < 0) {
      QToolTip::hideText();
      return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), link_text(c, hi, hj, hh, phase), this);
  }
};

QString MeshView::invalidHint() {
  return tr("The design is not valid: fix the fields marked in red on the left to see the load "
            "on each link of its on-die mesh");
}

MeshView::MeshView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("meshView"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* title = new QLabel(tr("On-die mesh of one device: link loads"), this);
  title->setObjectName(QStringLiteral("sectionTitle"));
  box->addWidget(title);
  stats_ = new QLabel(this);
  stats_->setObjectName(QStringLiteral("meshStats"));
  stats_->setWordWrap(true);
  box->addWidget(stats_);
  canvas_ = new MeshCanvas(this);
  canvas_->setObjectName(QStringLiteral("meshCanvas"));
  box->addWidget(canvas_, 1);
  attachExportMenu(canvas_, QStringLiteral("mesh"));
  clear();
}

MeshView::~MeshView() = default;

void MeshView::clear() {
  computed_.reset();
  canvas_->data.reset();
  stats_->setText(tr("No result: the design is not valid"));
  showHint(canvas_, invalidHint());
  canvas_->update();
}

void MeshView::setPhase(int phase) {
  phase_ = std::clamp(phase, 0, 1);
  canvas_->phase = phase_;
  redraw();
}

void MeshView::showResult(const perf::Design& design, const perf::Result& r) {
  auto c = std::make_shared<Computed>();
  c->clock = r.clock_scale;
  c->noc_pJ_per_bit_hop = design.hardware.energy.noc_pJ_per_bit_per_hop;
  c->mesh = compute::mesh_rates(design.hardware, r.clock_scale);
  c->nominal_link_Bps = compute::mesh_rates(design.hardware).link_Bps;
  const perf::PhaseBreakdown* ph[2] = {&r.decode, &r.prefill};
  for (int i = 0; i < 2; ++i) {
    c->traffic[i] = ph[i]->noc;
    c->time_s[i] = ph[i]->time_s;
    c->noc_bound_s[i] = ph[i]->resource_s[static_cast<std::size_t>(perf::Resource::noc)];
    c->byte_hops[i] = compute::byte_hops(c->mesh, ph[i]->noc);
  }
  c->bx = (c->mesh.x + kMaxDrawn - 1) / kMaxDrawn;
  c->by = (c->mesh.y + kMaxDrawn - 1) / kMaxDrawn;
  c->sx = (c->mesh.x + c->bx - 1) / c->bx;
  c->sy = (c->mesh.y + c->by - 1) / c->by;
  c->ok = r.prefill.time_s > 0 || r.decode.time_s > 0;
  computed_ = c;
  canvas_->data = computed_;
  redraw();
}

double MeshView::busiest() const {
  if (!computed_ || !computed_->ok) return 0;
  const auto& c = *computed_;
  return c.util(compute::max_link_bytes(c.mesh, c.traffic[phase_]), phase_);
}

int MeshView::drawnLinks() const {
  if (!computed_ || !computed_->ok || computed_->crossbar()) return 0;
  const auto& c = *computed_;
  return 2 * ((c.sx - 1) * c.sy + c.sx * (c.sy - 1));
}

QString MeshView::linkToolTip(int bx, int by, bool horizontal) const {
  if (!computed_ || !computed_->ok || computed_->crossbar()) return {};
  return link_text(*computed_, bx, by, horizontal, phase_);
}

void MeshView::redraw() {
  if (!computed_) return;
  const auto& c = *computed_;
  if (!c.ok) {
    stats_->setText(tr("No result: the design is not valid"));
    showHint(canvas_, invalidHint());
    canvas_->update();
    return;
  }
  hideHint(canvas_);
  const int ph = phase_;
  const QString clock =
      c.clock < 1.0 - 1e-9
          ? tr(" (%1 GB/s nominal; the clock runs at %2 % under the power wall or thermal "
               "throttle)")
                .arg(readable(c.nominal_link_Bps / 1e9))
                .arg(QString::number(100 * c.clock, 'f', 1))
          : QString();
  if (c.crossbar()) {
    stats_->setText(
        c.mesh.edge_memory
            ? tr("1 × 1 mesh: the crossbar to L2 carries every DRAM byte once — %1 B per %2, "
                 "%3 % of its %4 GB/s%5.")
                  .arg(readable(c.crossbar_bytes(ph)), phase_name(ph))
                  .arg(QString::number(100 * busiest(), 'f', 1))
                  .arg(readable(c.mesh.link_Bps / 1e9), clock)
            : tr("1 × 1 mesh: one core cluster, no on-die links (memory is read where it is "
                 "used)."));
    canvas_->update();
    return;
  }
  const QString blocks = c.bx * c.by > 1
                             ? tr("each square a block of %1 × %2 cores, links between blocks "
                                  "drawn")
                                   .arg(c.bx)
                                   .arg(c.by)
                             : tr("each square a core");
  const double share = c.time_s[ph] > 0 ? c.noc_bound_s[ph] / c.time_s[ph] : 0.0;
  stats_->setText(
      tr("%1 × %2 mesh, %3 · %4 GB/s per link and direction%5 · busiest link %6 % of the %7 · "
         "mesh-bound %8 % · fill %9 ns per operator")
          .arg(c.mesh.x)
          .arg(c.mesh.y)
          .arg(blocks, readable(c.mesh.link_Bps / 1e9), clock)
          .arg(QString::number(100 * busiest(), 'f', 1), phase_name(ph))
          .arg(QString::number(100 * share, 'f', 1))
          .arg(readable(compute::fill_time_s(c.mesh) * 1e9)));
  stats_->setToolTip(
      tr("Mesh-bound: share of the %1 in operators whose busiest mesh link outlasts their compute "
         "and DRAM time. Traffic: %2 byte-hops per %1 (× %3 pJ/bit/hop in the energy).")
          .arg(phase_name(ph), readable(c.byte_hops[ph]),
               readable(c.noc_pJ_per_bit_hop)));
  canvas_->update();
}

}  // namespace stackscope::ui
