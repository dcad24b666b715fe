// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers shared by the main window's sources (main_window.cpp, main_window_views.cpp,
// main_window_files.cpp).
#include <QPainter>
#include <QPixmap>
#include <QScrollArea>
#include <QSvgRenderer>
#include <QWidget>
#include <exception>
#include <string>

#include "stackscope/common/issue.hpp"

namespace stackscope::ui::detail {

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// A ConfigError's issues, one per line; any other exception's message.
inline QString describeError(const std::exception& e) {
  if (const auto* ce = dynamic_cast<const ConfigError*>(&e)) return qs(format_issues(ce->issues()));
  return QString::fromLocal8Bit(e.what());
}

// The nearest scroll area around `view`: its tab of the view stack while it is docked there.
inline QWidget* tabPage(QWidget* view) {
  for (QWidget* w = view; w; w = w->parentWidget())
    if (auto* area = qobject_cast<QScrollArea*>(w)) return area;
  return view;
}

// The product icon (resources/stackscope.svg) at `size` px.
inline QPixmap renderIcon(int size) {
  QSvgRenderer svg(QStringLiteral(":/stackscope/stackscope.svg"));
  QPixmap pm(size, size);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  svg.render(&p);
  return pm;
}

}  // namespace stackscope::ui::detail
