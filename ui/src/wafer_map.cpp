// SPDX-License-Identifier: GPL-3.0-or-later
// Before any Qt header: network/topology.hpp has a member named `slots`, Qt's macro.
#include "stackscope/wafer/d2d_links.hpp"
// clang-format off
#include "wafer_map.hpp"
// clang-format on

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "stackscope/ui/format.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

constexpr double kKeyHeight = 64;  // role swatches and the utilisation key under the grid

QColor roleColor(wafer::DieRole r) {
  switch (r) {
    case wafer::DieRole::prefill: return QColor(0x3b, 0x7d, 0xd8);
    case wafer::DieRole::decode: return QColor(0xe0, 0x7b, 0x2c);
    case wafer::DieRole::lender: return QColor(0x3f, 0xa3, 0x6b);
    case wafer::DieRole::idle: return QColor(0x9e, 0x9e, 0x9e);
    case wafer::DieRole::spare: return QColor(0x5a, 0x5a, 0x5a);
  }
  return Qt::gray;
}

QString roleName(wafer::DieRole r) {
  switch (r) {
    case wafer::DieRole::prefill: return WaferMap::tr("prefill");
    case wafer::DieRole::decode: return WaferMap::tr("decode");
    case wafer::DieRole::lender: return WaferMap::tr("lends KV memory");
    case wafer::DieRole::idle: return WaferMap::tr("idle");
    case wafer::DieRole::spare: return WaferMap::tr("spare");
  }
  return {};
}

}  // namespace

WaferMap::WaferMap(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("waferMap"));
  setMouseTracking(true);
}

void WaferMap::show(std::shared_ptr<const wafer::WaferRun> run, int prefill, QString empty) {
  run_ = std::move(run);
  prefill_ = prefill;
  empty_ = std::move(empty);
  update();
}

QRectF WaferMap::Geometry::die(int x, int y, int ny) const {
  // Row 0 at the bottom, as `serve` prints the map.
  return {x0 + x * cell + gap / 2, y0 + (ny - 1 - y) * cell + gap / 2, cell - gap, cell - gap};
}

WaferMap::Geometry WaferMap::geometry() const {
  Geometry g;
  if (!run_) return g;
  const auto& l = run_->wafer.layout;
  const double w = width() - 16, h = height() - 16 - kKeyHeight;
  g.cell = std::max(8.0, std::min(w / l.dies_x, h / l.dies_y));
  g.gap = std::clamp(g.cell * 0.22, 4.0, 18.0);
  g.x0 = (width() - g.cell * l.dies_x) / 2;
  g.y0 = 8 + (h - g.cell * l.dies_y) / 2;
  return g;
}

QString WaferMap::dieLabel(int d) const {
  const auto& owner = run_->wafer.placement.die_owner;
  const int o = owner[static_cast<std::size_t>(d)];
  if (o >= 0)
    return o < prefill_ ? QStringLiteral("P%1").arg(o) : QStringLiteral("D%1").arg(o - prefill_);
  const int lender = run_->wafer.lender_of[static_cast<std::size_t>(d)];
  if (lender >= 0) return QStringLiteral("→D%1").arg(lender - prefill_);
  return run_->role[static_cast<std::size_t>(d)] == wafer::DieRole::spare ? tr("spare") : QString();
}

void WaferMap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QColor ink = theme::ink(), quiet = theme::quietInk();
  if (!run_) {
    p.setPen(quiet);
    p.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap,
               empty_.isEmpty() ? tr("Run the wafer to see its dies by role and its D2D links by "
                                     "load")
                                : empty_);
    return;
  }
  const auto& l = run_->wafer.layout;
  const Geometry g = geometry();
  // Links first, in the gaps: the busier direction of each neighbour pair.
  const auto& topo = run_->wafer.links->topology();
  const auto& links = topo.links();
  for (std::size_t i = 0; i < links.size() && i < run_->link_utilisation.size(); ++i) {
    const int a = links[i].src, b = links[i].dst;
    if (a < 0 || b < 0 || a >= l.dies || b >= l.dies || a > b) continue;
    double u = run_->link_utilisation[i];
    for (std::size_t j = 0; j < links.size(); ++j)
      if (links[j].src == b && links[j].dst == a) u = std::max(u, run_->link_utilisation[j]);
    const QRectF ra = g.die(a % l.dies_x, a / l.dies_x, l.dies_y);
    const QRectF rb = g.die(b % l.dies_x, b / l.dies_x, l.dies_y);
    QPen pen(u > 0 ? utilisationColor(std::min(1.0, u)) : quiet,
             u > 0 ? 2.0 + std::min(1.0, u * 4) * (g.gap - 2) : 1.0);
    pen.setCapStyle(Qt::FlatCap);
    p.setPen(pen);
    p.drawLine(ra.center(), rb.center());
  }
  QFont f = font();
  f.setPointSizeF(std::clamp(g.cell / 7, 7.0, 11.0));
  p.setFont(f);
  for (int d = 0; d < l.dies; ++d) {
    const auto role = run_->role[static_cast<std::size_t>(d)];
    const QRectF r = g.die(d % l.dies_x, d / l.dies_x, l.dies_y);
    QColor c = roleColor(role);
    const double busy = run_->busy[static_cast<std::size_t>(d)];
    if (role == wafer::DieRole::prefill || role == wafer::DieRole::decode)
      c = c.lighter(static_cast<int>(100 + 70 * (1 - std::clamp(busy, 0.0, 1.0))));
    p.setPen(QPen(ink, 1));
    p.setBrush(c);
    p.drawRoundedRect(r, 3, 3);
    if (role == wafer::DieRole::spare) {
      p.setBrush(QBrush(QColor(255, 255, 255, 90), Qt::BDiagPattern));
      p.drawRoundedRect(r, 3, 3);
    }
    p.setPen(Qt::black);
    QString text = dieLabel(d);
    if (role == wafer::DieRole::prefill || role == wafer::DieRole::decode)
      text += QStringLiteral("\n%1 %").arg(qRound(100 * busy));
    p.drawText(r, Qt::AlignCenter, text);
  }
  // Key: role swatches, then the link utilisation gradient.
  const double ky = height() - kKeyHeight + 6;
  double kx = 12;
  QFont kf = font();
  p.setFont(kf);
  for (auto role : {wafer::DieRole::prefill, wafer::DieRole::decode, wafer::DieRole::lender,
                    wafer::DieRole::idle, wafer::DieRole::spare}) {
    p.setPen(QPen(ink, 1));
    p.setBrush(roleColor(role));
    p.drawRect(QRectF(kx, ky, 14, 14));
    p.setPen(ink);
    const QString name = roleName(role);
    p.drawText(QPointF(kx + 19, ky + 12), name);
    kx += 32 + p.fontMetrics().horizontalAdvance(name);
  }
  p.setPen(quiet);
  // The shade's meaning in the room the swatches leave: in full, shortened, or cut short.
  const double room = width() - 12 - kx;
  QString shade = tr("die shade: busy share of the run (lighter = idler)");
  if (p.fontMetrics().horizontalAdvance(shade) > room) shade = tr("shade: busy share");
  p.drawText(QPointF(kx, ky + 12),
             p.fontMetrics().elidedText(shade, Qt::ElideRight, static_cast<int>(room)));
  drawUtilisationKey(p, QRectF(0, height() - kKeyHeight + 24, width(), kKeyHeight - 24),
                     tr("D2D link: share of the run spent moving KV (width and colour)"), ink);
}

QString WaferMap::tipAt(QPointF pos) const {
  if (!run_) return {};
  const auto& l = run_->wafer.layout;
  const Geometry g = geometry();
  for (int d = 0; d < l.dies; ++d) {
    const int x = d % l.dies_x, y = d / l.dies_x;
    if (!g.die(x, y, l.dies_y).contains(pos)) continue;
    const auto role = run_->role[static_cast<std::size_t>(d)];
    QString t = tr("Die %1 at (%2, %3): %4").arg(d).arg(x).arg(y).arg(roleName(role));
    const QString label = dieLabel(d);
    if (role == wafer::DieRole::prefill || role == wafer::DieRole::decode) {
      const int o = run_->wafer.placement.die_owner[static_cast<std::size_t>(d)];
      const auto& inst = run_->wafer.deployment.instances[static_cast<std::size_t>(o)];
      t += tr(" instance %1 of %2 dies, busy %3 % of the run, KV %4 blocks")
               .arg(label)
               .arg(inst.devices)
               .arg(qRound(100 * run_->busy[static_cast<std::size_t>(d)]))
               .arg(inst.kv_blocks);
    } else if (role == wafer::DieRole::lender) {
      t += tr(" to decode instance %1").arg(label.mid(1));
    }
    return t;
  }
  // A link: the segment between two dies' centres, within half the gap.
  const auto& links = run_->wafer.links->topology().links();
  for (std::size_t i = 0; i < links.size() && i < run_->link_utilisation.size(); ++i) {
    const int a = links[i].src, b = links[i].dst;
    if (a < 0 || b < 0 || a >= l.dies || b >= l.dies) continue;
    const QRectF ra = g.die(a % l.dies_x, a / l.dies_x, l.dies_y);
    const QRectF rb = g.die(b % l.dies_x, b / l.dies_x, l.dies_y);
    const QRectF span = QRectF(ra.center(), rb.center())
                            .normalized()
                            .adjusted(-g.gap / 2, -g.gap / 2, g.gap / 2, g.gap / 2);
    if (!span.contains(pos) || ra.contains(pos) || rb.contains(pos)) continue;
    const auto& bytes = run_->wafer.links->link_bytes();
    return tr("D2D link die %1 → die %2: %3 of KV, busy %4 % of the run")
        .arg(a)
        .arg(b)
        .arg(readable(bytes[i] / 1e9) + QStringLiteral(" GB"))
        .arg(100 * run_->link_utilisation[i], 0, 'f', 2);
  }
  return {};
}

bool WaferMap::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* h = static_cast<QHelpEvent*>(e);
    const QString t = tipAt(h->pos());
    if (t.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(h->globalPos(), t, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace stackscope::ui
