// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The temperature heat map both thermal pictures draw (the device stack's layer in the Thermal
// view, the whole wafer in the Wafer view): a colour map in °C with its scale on the right,
// sharing the plot's vertical extent, HotSpot's thermal gradient, cells not interpolated.
#include <qcustomplot.h>

#include <QObject>

namespace stackscope::ui::detail {

struct TemperatureMap {
  QCPColorMap* map = nullptr;
  QCPColorScale* scale = nullptr;
};

// Adds the map to `plot`'s axes and its colour scale at (row, 1) of the plot layout.
inline TemperatureMap addTemperatureMap(QCustomPlot* plot, int row) {
  TemperatureMap t;
  plot->axisRect()->setupFullAxesBox(true);
  t.map = new QCPColorMap(plot->xAxis, plot->yAxis);
  t.scale = new QCPColorScale(plot);
  plot->plotLayout()->addElement(row, 1, t.scale);
  t.scale->setType(QCPAxis::atRight);
  t.scale->axis()->setLabel(QObject::tr("Temperature (°C)"));
  t.map->setColorScale(t.scale);
  t.map->setGradient(QCPColorGradient::gpThermal);
  t.map->setInterpolate(false);
  // Colour scale and plot share their vertical extent.
  auto* group = new QCPMarginGroup(plot);
  plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  t.scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  return t;
}

// The hottest spot's label: white bold text on a translucent dark box (readable on the brightest
// colours too), at (x, y) in plot coordinates, clipped to the axis rectangle.
inline QCPItemText* addHottestLabel(QCustomPlot* plot, double x, double y, Qt::Alignment align,
                                    const QString& text, const QFont& font) {
  auto* label = new QCPItemText(plot);
  label->position->setCoords(x, y);
  label->setPositionAlignment(align);
  label->setText(text);
  label->setColor(Qt::white);
  label->setBrush(QColor(0, 0, 0, 150));
  label->setPadding(QMargins(4, 1, 4, 1));
  label->setFont(QFont(font.family(), font.pointSize(), QFont::Bold));
  label->setClipToAxisRect(true);
  return label;
}

}  // namespace stackscope::ui::detail
