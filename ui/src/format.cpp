// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/format.hpp"

#include <QLinearGradient>
#include <QLocale>
#include <QPainter>
#include <QRectF>
#include <algorithm>
#include <cmath>
#include <iterator>

namespace stackscope::ui {

namespace {

// "700.0" -> "700", "1.830" -> "1.83": trailing zeros carry no information on screen.
QString trimmed(QString s) {
  if (!s.contains(QChar('.'))) return s;
  while (s.endsWith(QChar('0'))) s.chop(1);
  if (s.endsWith(QChar('.'))) s.chop(1);
  return s;
}

}  // namespace

QString readable(double value) {
  if (!std::isfinite(value)) return QStringLiteral("n/a");
  // English grouping regardless of the system locale: numbers are copied into reports.
  static const QLocale c(QLocale::English, QLocale::UnitedStates);
  const double a = std::fabs(value);
  if (a == 0) return QStringLiteral("0");
  if (a >= 1000) return c.toString(value, 'f', 0);
  if (a >= 100) return trimmed(c.toString(value, 'f', 1));
  if (a >= 10) return trimmed(c.toString(value, 'f', 2));
  if (a >= 0.01) return trimmed(c.toString(value, 'f', 3));
  return c.toString(value, 'g', 3);
}

QString withUnit(double value, const QString& unit) {
  if (!std::isfinite(value)) return QStringLiteral("n/a");
  return readable(value) + QChar(' ') + unit;
}

QColor resourceColor(perf::Resource r) {
  switch (r) {
    case perf::Resource::compute: return QColor(0x4C, 0x72, 0xB0);
    case perf::Resource::dram: return QColor(0xDD, 0x84, 0x52);
    case perf::Resource::vertical_link: return QColor(0x81, 0x72, 0xB3);
    case perf::Resource::noc: return QColor(0x93, 0x78, 0x60);
    case perf::Resource::interchip: return QColor(0x55, 0xA8, 0x68);
    case perf::Resource::overhead: return QColor(0x8C, 0x8C, 0x8C);
    case perf::Resource::count: break;
  }
  return Qt::black;
}

QString resourceLabel(perf::Resource r) {
  switch (r) {
    case perf::Resource::compute: return QStringLiteral("Compute");
    case perf::Resource::dram: return QStringLiteral("DRAM");
    case perf::Resource::vertical_link: return QStringLiteral("Vertical links");
    case perf::Resource::noc: return QStringLiteral("On-die NoC");
    case perf::Resource::interchip: return QStringLiteral("Inter-chip network");
    case perf::Resource::overhead: return QStringLiteral("Launch/sync overhead");
    case perf::Resource::count: break;
  }
  return QStringLiteral("?");
}

QColor utilisationColor(double u) {
  if (u <= 1e-9) return QColor(0xC8, 0xCE, 0xD6);
  const QColor stops[] = {QColor(0x4C, 0x72, 0xB0), QColor(0xE0, 0xA4, 0x3A),
                          QColor(0xC4, 0x3E, 0x3A)};
  const double t = std::clamp(u, 0.0, 1.0) * 2.0;
  const int i = std::min(1, static_cast<int>(t));
  const double f = t - i;
  auto mix = [&](int a, int b) { return static_cast<int>(a + (b - a) * f); };
  return QColor(mix(stops[i].red(), stops[i + 1].red()),
                mix(stops[i].green(), stops[i + 1].green()),
                mix(stops[i].blue(), stops[i + 1].blue()));
}

void drawUtilisationKey(QPainter& p, const QRectF& area, const QString& legend,
                        const QColor& text) {
  const QRectF key(area.left() + 24, area.bottom() - 30, 120, 10);
  QLinearGradient g(key.topLeft(), key.topRight());
  for (int i = 0; i <= 10; ++i) g.setColorAt(i / 10.0, utilisationColor(std::max(0.01, i / 10.0)));
  p.setPen(Qt::NoPen);
  p.setBrush(g);
  p.drawRect(key);
  p.setPen(text);
  p.drawText(QPointF(key.left(), key.bottom() + 13), QStringLiteral("0 %"));
  p.drawText(QPointF(key.right() - 30, key.bottom() + 13), QStringLiteral("100 %"));
  p.drawText(QRectF(key.right() + 10, key.top() - 3, area.right() - key.right() - 18, 30),
             Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, legend);
}

QColor opClassColor(perf::OpClass c) {
  // Tableau 20's saturated and light pairs, alternated so neighbours differ.
  static const QColor colours[] = {
      QColor(0xBA, 0xB0, 0xAC), QColor(0x4E, 0x79, 0xA7), QColor(0xF2, 0x8E, 0x2B),
      QColor(0xA0, 0xCB, 0xE8), QColor(0x59, 0xA1, 0x4F), QColor(0xB6, 0x99, 0x2D),
      QColor(0xE1, 0x57, 0x59), QColor(0xFF, 0x9D, 0x9A), QColor(0x79, 0x70, 0x6E),
      QColor(0x76, 0xB7, 0xB2), QColor(0xB0, 0x7A, 0xA1), QColor(0xD4, 0xA6, 0xC8)};
  return colours[static_cast<std::size_t>(c) % std::size(colours)];
}

QString opClassLabel(perf::OpClass c) {
  switch (c) {
    case perf::OpClass::norm: return QStringLiteral("Norms, residuals");
    case perf::OpClass::qkv_proj: return QStringLiteral("QKV projections");
    case perf::OpClass::attention: return QStringLiteral("Attention");
    case perf::OpClass::o_proj: return QStringLiteral("Output projection");
    case perf::OpClass::ffn: return QStringLiteral("Dense FFN");
    case perf::OpClass::router: return QStringLiteral("Router");
    case perf::OpClass::moe_experts: return QStringLiteral("Routed experts");
    case perf::OpClass::shared_experts: return QStringLiteral("Shared experts");
    case perf::OpClass::lm_head: return QStringLiteral("LM head");
    case perf::OpClass::tp_comm: return QStringLiteral("TP collectives");
    case perf::OpClass::ep_comm: return QStringLiteral("EP all-to-all");
    case perf::OpClass::pp_comm: return QStringLiteral("PP transfers");
    case perf::OpClass::count: break;
  }
  return QStringLiteral("Other");
}

QString opClassShortLabel(perf::OpClass c) {
  switch (c) {
    case perf::OpClass::norm: return QStringLiteral("Norms");
    case perf::OpClass::qkv_proj: return QStringLiteral("QKV proj.");
    case perf::OpClass::attention: return QStringLiteral("Attention");
    case perf::OpClass::o_proj: return QStringLiteral("Out proj.");
    case perf::OpClass::ffn: return QStringLiteral("Dense FFN");
    case perf::OpClass::router: return QStringLiteral("Router");
    case perf::OpClass::moe_experts: return QStringLiteral("Experts");
    case perf::OpClass::shared_experts: return QStringLiteral("Shared exp.");
    case perf::OpClass::lm_head: return QStringLiteral("LM head");
    case perf::OpClass::tp_comm: return QStringLiteral("TP comm");
    case perf::OpClass::ep_comm: return QStringLiteral("EP a2a");
    case perf::OpClass::pp_comm: return QStringLiteral("PP comm");
    case perf::OpClass::count: break;
  }
  return QStringLiteral("Other");
}

}  // namespace stackscope::ui
