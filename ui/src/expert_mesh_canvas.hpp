// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The expert-placement view's link map: a mesh of nodes, each directed link coloured and sized
// by its busy share of the layer time.
#include "experts_view_detail.hpp"

namespace stackscope::ui {

using namespace experts_view_detail;

// The mesh of nodes with every directed link coloured and sized by busy time / layer time.
class ExpertMeshCanvas : public QWidget {
 public:
  explicit ExpertMeshCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(280, 220);
  }
  bool ok = false;
  experts::MeshConfig mesh;
  experts::LayerResult layer;
  QString legend;

  double util(const experts::LinkStats& l) const {
    return layer.time_s > 0 ? l.busy_s / layer.time_s : 0.0;
  }
  QRectF area() const { return QRectF(rect()).adjusted(16, 10, -16, -52); }
  double pitch() const {
    const QRectF a = area();
    return std::min(a.width() / std::max(1, mesh.x), a.height() / std::max(1, mesh.y));
  }
  QPointF centre(int node) const {
    const QRectF a = area();
    const double p = pitch();
    const double ox = a.left() + 0.5 * (a.width() - p * mesh.x);
    const double oy = a.top() + 0.5 * (a.height() - p * mesh.y);
    return {ox + (node % mesh.x + 0.5) * p, oy + (node / mesh.x + 0.5) * p};
  }
  double half() const { return std::clamp(0.24 * pitch(), 5.0, 20.0); }
  // The drawn segment of a directed link: beside the line between the nodes, on the right of
  // its direction, so both directions show.
  std::pair<QPointF, QPointF> segment(const experts::LinkStats& l) const {
    const QPointF a = centre(l.from), b = centre(l.to);
    QPointF d = b - a;
    const double len = std::hypot(d.x(), d.y());
    if (len <= 0) return {a, b};
    d /= len;
    const QPointF n(-d.y(), d.x());
    const double off = std::clamp(0.12 * pitch(), 2.5, 9.0), h = half() + 2;
    return {a + n * off + d * h, b + n * off - d * h};
  }
  int nearest(QPointF m) const {
    double best = 0.09 * pitch() * pitch();
    int hit = -1;
    for (std::size_t i = 0; i < layer.links.size(); ++i) {
      const auto [a, b] = segment(layer.links[i]);
      const QPointF q = 0.5 * (a + b);
      const double dd = (q.x() - m.x()) * (q.x() - m.x()) + (q.y() - m.y()) * (q.y() - m.y());
      if (dd < best) {
        best = dd;
        hit = static_cast<int>(i);
      }
    }
    return hit;
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!ok) return;
    const double hs = half();
    for (const auto& l : layer.links) {
      const double u = util(l);
      const auto [a, b] = segment(l);
      QPen pen(utilisationColor(u), 1.2 + 4.0 * std::clamp(u, 0.0, 1.0));
      pen.setCapStyle(Qt::FlatCap);
      p.setPen(pen);
      p.drawLine(a, b);
      // An arrowhead at the receiving end.
      QPointF d = b - a;
      const double len = std::hypot(d.x(), d.y());
      if (len > 8) {
        d /= len;
        const QPointF n(-d.y(), d.x());
        const double s = std::clamp(0.08 * pitch(), 3.0, 6.0);
        p.setPen(Qt::NoPen);
        p.setBrush(utilisationColor(u));
        p.drawPolygon(QPolygonF({b, b - d * 2 * s + n * s, b - d * 2 * s - n * s}));
      }
    }
    p.setPen(QPen(theme::ink(), 1.0));
    p.setBrush(palette().color(QPalette::Button));
    QFont small = font();
    small.setPointSizeF(std::max(7.0, std::min(small.pointSizeF(), 0.55 * hs)));
    p.setFont(small);
    for (int n = 0; n < mesh.nodes(); ++n) {
      const QPointF c = centre(n);
      const QRectF r(c.x() - hs, c.y() - hs, 2 * hs, 2 * hs);
      p.setPen(QPen(theme::ink(), 1.0));
      p.drawRect(r);
      if (hs >= 9) {
        p.setPen(palette().color(QPalette::ButtonText));
        p.drawText(r, Qt::AlignCenter, QString::number(n));
      }
    }
    p.setFont(font());
    drawUtilisationKey(p, rect(), legend, palette().color(QPalette::Text));
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (!ok) return;
    const int i = nearest(e->position());
    if (i < 0) {
      QToolTip::hideText();
      return;
    }
    const auto& l = layer.links[static_cast<std::size_t>(i)];
    QToolTip::showText(
        e->globalPosition().toPoint(),
        ExpertsView::tr("<b>Node %1 → node %2</b><br>busy %3 µs of the layer's %4 µs (%5 %)<br>"
                        "%6 kB in %7 chunks at %8 GB/s")
            .arg(l.from)
            .arg(l.to)
            .arg(us(l.busy_s), us(layer.time_s), QString::number(100 * util(l), 'f', 1),
                 readable(l.bytes / 1e3))
            .arg(l.chunks)
            .arg(readable(mesh.link_Bps / 1e9)),
        this);
  }
};

}  // namespace stackscope::ui
