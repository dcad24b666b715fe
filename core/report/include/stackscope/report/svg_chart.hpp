// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <cmath>
#include <string>
#include <vector>

// Standalone SVG 1.1 bar and line charts for generated reports; standard library only.
// to_svg() is a pure function of its arguments: reentrant, locale-independent, and the same input
// gives byte-identical output. Sizes are in CSS pixels.
namespace stackscope::report {

// One value per category; NaN = no bar ("n/a" is drawn at the base).
struct Series {
  std::string name;
  std::vector<double> values;
};

struct BarChart {
  std::string title;                    // drawn at the top
  std::string y_label;                  // with unit, e.g. "STPS (tokens/s)"
  std::vector<std::string> categories;  // x groups; long labels wrap onto 2 lines or rotate
  std::vector<Series> series;           // grouped bars, one colour per series, legend shown
  bool log_y = false;                   // log10 axis with decade ticks (1, 10, 100, 1k...)
  bool value_labels = true;             // value above each bar (3 significant digits, 12.3k)
  double reference_line = NAN;          // optional horizontal dashed line (e.g. 1.0 for ratios)
  std::string reference_label;
  std::string caption;  // optional small text under the plot (source note)
};

// NaN y = gap in the line; markers at every point.
struct LineSeries {
  std::string name;
  std::vector<double> x, y;
  bool dashed = false;
  bool right_axis = false;
};

struct LineChart {
  std::string title, x_label, y_label, y2_label;  // y2_label: right axis, used when a series has
                                                  // right_axis
  std::vector<LineSeries> series;
  bool integer_x = false;       // ticks at whole numbers (e.g. DRAM layers 2..16)
  std::vector<double> x_marks;  // optional vertical dotted lines (e.g. an optimum at 9 layers)
  std::vector<std::string> x_mark_labels;  // label of x_marks[i]; missing or empty = unlabelled
  std::string caption;
};

// Throw std::invalid_argument naming the series and index on: no categories/series, a series
// whose value count differs from the category count, x/y size mismatch, an infinite value (or a
// non-finite x), a non-positive value or reference line on a log axis, width/height outside
// [200, 4000]. When space is short, value labels give way first, then the length of rotated
// category labels (cut with an ellipsis), then y tick density; too dense categories are thinned.
std::string to_svg(const BarChart& chart, int width_px = 960, int height_px = 520);
std::string to_svg(const LineChart& chart, int width_px = 960, int height_px = 520);

}  // namespace stackscope::report
