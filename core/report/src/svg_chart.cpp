// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace stackscope::report {
namespace {

// Okabe & Ito, "Color Universal Design" (2008): distinct under the common colour-vision
// deficiencies. Yellow comes late because it is faint on white.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                 "#56B4E9", "#CC79A7", "#F0E442", "#000000"};
constexpr const char* kDash = "7 4";
constexpr const char* kRefDash = "6 4";
constexpr const char* kRefColour = "#333333";
constexpr double kTitleFont = 18, kAxisFont = 14, kTickFont = 12, kLegendFont = 13;
constexpr double kSmallFont = 12, kPad = 12, kLineH = 15;
// No font metrics without a renderer: DejaVu Sans advances average ~0.55 em (digits 0.64 em),
// so 0.62 em per character over-estimates slightly and labels never collide.
constexpr double kEm = 0.62, kBoldEm = 0.68;

const char* colour(std::size_t i) {
  return kPalette[i % kPalette.size()];
}

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// to_chars never consults the locale (printf and iostreams do, and Qt sets LC_NUMERIC).
std::string fixed(double v, int decimals) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed,
                               std::clamp(decimals, 0, 20));
  std::string s(buf.data(), r.ptr);
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string shortest(double v) {
  std::array<char, 64> buf{};
  return std::string(buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr);
}

std::string px(double v) {
  return trim_zeros(fixed(v, 1));
}

// 3 significant digits, k/M/G/T beyond a thousand (12345 -> "12.3k", 999.7 -> "1k").
std::string si3(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) < 1e-3) {
    std::array<char, 64> buf{};
    const auto r =
        std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::scientific, 2);
    return std::string(buf.data(), r.ptr);
  }
  static constexpr std::array<std::pair<double, const char*>, 5> kUnits = {
      {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}}};
  std::size_t u = 0;
  while (u + 1 < kUnits.size() && std::fabs(v) >= kUnits[u + 1].first) ++u;
  for (;; ++u) {
    const double s = v / kUnits[u].first;
    const int digits = static_cast<int>(std::floor(std::log10(std::fabs(s)))) + 1;
    const int dec = std::max(0, 3 - digits);
    const double scale = std::pow(10.0, dec);
    // Rounding can carry into the next unit: 999.7 is "1k", not "1000".
    if (std::round(std::fabs(s) * scale) >= 1000 * scale && u + 1 < kUnits.size()) continue;
    return trim_zeros(fixed(s, dec)) + kUnits[u].second;
  }
}

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:  // XML 1.0 allows no control characters but tab and newline
        out += static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' ? ' ' : ch;
    }
  }
  return out;
}

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

double text_w(std::string_view s, double font, double em = kEm) {
  return static_cast<double>(code_points(s)) * font * em;
}

// Greedy word wrap; a single word longer than the width stays whole.
std::vector<std::string> wrap(std::string_view s, double max_w, double font, double em = kEm) {
  std::vector<std::string> lines;
  std::string cur;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find(' ', i), s.size());
    const std::string_view word = s.substr(i, j - i);
    i = j + 1;
    if (word.empty()) continue;
    std::string cand = cur.empty() ? std::string(word) : cur + ' ' + std::string(word);
    if (cur.empty() || text_w(cand, font, em) <= max_w) {
      cur = std::move(cand);
    } else {
      lines.push_back(std::move(cur));
      cur = std::string(word);
    }
  }
  if (!cur.empty()) lines.push_back(std::move(cur));
  return lines;
}

// Cuts a label to max_w, ending it with an ellipsis; never splits a UTF-8 sequence.
std::string truncate(const std::string& s, double max_w, double font, double em = kEm) {
  if (text_w(s, font, em) <= max_w) return s;
  std::string out;
  for (std::size_t i = 0, n = 1; i < s.size(); i += n, n = 1) {
    while (i + n < s.size() && (s[i + n] & 0xC0) == 0x80) ++n;
    if (text_w(out, font, em) + 2 * font * em > max_w) break;  // this character + the ellipsis
    out.append(s, i, n);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\xE2\x80\xA6";
}

// At most n lines; the rest folds into the last one, cut with an ellipsis.
std::vector<std::string> wrap_at_most(std::string_view s, double max_w, double font, std::size_t n,
                                      double em = kEm) {
  auto lines = wrap(s, max_w, font, em);
  if (lines.size() > n) {
    std::string rest = lines[n - 1];
    for (std::size_t i = n; i < lines.size(); ++i) rest += ' ' + lines[i];
    lines.resize(n);
    lines.back() = truncate(rest, max_w, font, em);
  }
  return lines;
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks, minor;
  std::vector<std::string> labels;
  double frac(double v) const {
    return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
               : (v - lo) / (hi - lo);
  }
  double max_label_w() const {
    double w = 0;
    for (const auto& l : labels) w = std::max(w, text_w(l, kTickFont));
    return w;
  }
};

// Nice numbers (Heckbert, Graphics Gems, 1990): steps of 1, 2 or 5 times a power of ten. The
// smallest step needing at most max_intervals intervals, so the axis hugs the data.
Axis linear_axis(double lo, double hi, int max_intervals, bool integer) {
  if (!(hi > lo)) {
    const double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= d;
    hi += d;
  }
  const double mag = std::pow(10.0, std::floor(std::log10((hi - lo) / max_intervals)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0}) {
    step = m * mag;
    if (integer && step < 1) continue;
    if (std::ceil(hi / step - 1e-9) - std::floor(lo / step + 1e-9) <= max_intervals) break;
  }
  if (integer) step = std::max(1.0, std::round(step));
  Axis a;
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  const long count = std::lround((a.hi - a.lo) / step);
  const double top = std::max(std::fabs(a.lo), std::fabs(a.hi));
  const double unit = top >= 1e10 ? 1e9 : top >= 1e7 ? 1e6 : top >= 1e4 ? 1e3 : 1;
  const char* suffix = unit == 1e9 ? "G" : unit == 1e6 ? "M" : unit == 1e3 ? "k" : "";
  const int dec = std::max(0, -static_cast<int>(std::floor(std::log10(step / unit) + 1e-9)));
  for (long i = 0; i <= count; ++i) {
    double t = a.lo + static_cast<double>(i) * step;
    if (std::fabs(t) < step * 1e-9) t = 0;
    a.ticks.push_back(t);
    a.labels.push_back(t == 0 ? "0" : fixed(t / unit, dec) + suffix);
  }
  return a;
}

// Decade ticks; on wide ranges every n-th decade so that at most `target` intervals remain.
Axis log_axis(double lo, double hi, int target) {
  const int e0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (e1 <= e0) e1 = e0 + 1;
  const int every = std::max(1, (e1 - e0 + target - 1) / target);
  e1 = e0 + (e1 - e0 + every - 1) / every * every;
  Axis a;
  a.log = true;
  a.lo = std::pow(10.0, e0);
  a.hi = std::pow(10.0, e1);
  for (int e = e0; e <= e1; e += every) {
    a.ticks.push_back(std::pow(10.0, e));
    a.labels.push_back(si3(std::pow(10.0, e)));
    for (int m = 2; every == 1 && e1 - e0 <= 4 && e < e1 && m <= 9; ++m)
      a.minor.push_back(m * std::pow(10.0, e));
  }
  return a;
}

class Svg {
 public:
  Svg(int w, int h, std::string_view title) {
    out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" ";
    out_ += "version=\"1.1\" width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) +
            "\" viewBox=\"0 0 " + std::to_string(w) + ' ' + std::to_string(h) +
            "\" font-family=\"DejaVu Sans, Arial, sans-serif\" fill=\"#222222\">\n";
    out_ += "<title>" + escape(title) + "</title>\n";
    out_ += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(w) + "\" height=\"" +
            std::to_string(h) + "\" fill=\"#ffffff\"/>\n";
  }
  // `attrs` is trusted markup (class, transform, fill ...) written by this file, never user text.
  void text(double x, double y, std::string_view s, double size, const char* anchor = "start",
            std::string_view attrs = {}) {
    lines(x, y, {std::string(s)}, size, anchor, attrs);
  }
  void lines(double x, double y, const std::vector<std::string>& ls, double size,
             const char* anchor, std::string_view attrs = {}) {
    out_ += "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\" font-size=\"" + px(size) + '"';
    if (std::string_view(anchor) != "start") out_ += " text-anchor=\"" + std::string(anchor) + '"';
    if (!attrs.empty()) out_ += ' ' + std::string(attrs);
    out_ += '>';
    for (std::size_t i = 0; i < ls.size(); ++i) {
      if (ls.size() == 1) {
        out_ += escape(ls[i]);
      } else {
        out_ += "<tspan x=\"" + px(x) + "\"" + (i ? " dy=\"" + px(size * 1.25) + '"' : "") + '>' +
                escape(ls[i]) + "</tspan>";
      }
    }
    out_ += "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2, const char* stroke, double width,
            std::string_view attrs = {}) {
    out_ += "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" +
            px(y2) + "\" stroke=\"" + stroke + "\" stroke-width=\"" + px(width) + '"';
    if (!attrs.empty()) out_ += ' ' + std::string(attrs);
    out_ += "/>\n";
  }
  // A non-empty tooltip becomes the rect's <title> (shown on hover in browsers).
  void rect(double x, double y, double w, double h, const char* fill, std::string_view attrs = {},
            std::string_view tooltip = {}) {
    out_ += "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" +
            px(h) + "\" fill=\"" + fill + '"';
    if (!attrs.empty()) out_ += ' ' + std::string(attrs);
    out_ += tooltip.empty() ? "/>\n" : "><title>" + escape(tooltip) + "</title></rect>\n";
  }
  void raw(std::string_view s) { out_ += s; }
  std::string finish() { return std::move(out_) + "</svg>\n"; }

 private:
  std::string out_;
};

// Circle, square, diamond, triangle: a second cue beside colour for line series.
void marker(Svg& svg, double x, double y, std::size_t kind, const char* fill) {
  const std::string paint =
      std::string("\" fill=\"") + fill + "\" stroke=\"#ffffff\" stroke-width=\"1\"/>\n";
  if (kind % 4 == 0)
    return svg.raw("<circle cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"3.8" + paint);
  static constexpr std::array<std::array<double, 6>, 3> kCorners = {
      {{-3.5, -3.5, 3.5, -3.5, 3.5, 3.5},
       {0, -4.8, 4.8, 0, 0, 4.8},
       {0, -4.8, 4.5, 3.6, -4.5, 3.6}}};
  const auto& p = kCorners[kind % 4 - 1];
  std::string d;
  for (std::size_t i = 0; i < p.size(); i += 2)
    d += (i ? "L" : "M") + px(x + p[i]) + ',' + px(y + p[i + 1]);
  if (kind % 4 != 3) {  // square and diamond: the fourth corner completes the parallelogram
    d += "L" + px(x + p[0] + p[4] - p[2]) + ',' + px(y + p[1] + p[5] - p[3]);
  }
  svg.raw("<path d=\"" + d + "Z" + paint);
}

struct LegendItem {
  std::string label;
  const char* colour;
  bool line;         // line sample, else a filled swatch
  const char* dash;  // stroke-dasharray, nullptr = solid
  int marker;        // marker kind, -1 = none
  const char* cls = "legend";
};

// Title (two lines at most) and legend rows centred under it. Draws only when svg is non-null and
// returns the height used, so that layout can measure first.
double header(Svg* svg, int width, std::string_view title, const std::vector<LegendItem>& items) {
  double y = kPad;
  const auto tl = wrap_at_most(title, width - 2 * kPad, kTitleFont, 2, kBoldEm);
  if (!tl.empty()) {
    if (svg) {
      svg->lines(width / 2.0, y + kTitleFont * 0.9, tl, kTitleFont, "middle",
                 "font-weight=\"bold\" class=\"title\"");
    }
    y += static_cast<double>(tl.size()) * kTitleFont * 1.25 + 6;
  }
  constexpr double kGap = 18;
  const auto sample = [](const LegendItem& it) { return it.line ? 28.0 : 14.0; };
  const auto shown = [&](const LegendItem& it) {
    return truncate(it.label, width - 2 * kPad - sample(it) - 6, kLegendFont);
  };
  const auto item_w = [&](const LegendItem& it) {
    return sample(it) + 6 + text_w(shown(it), kLegendFont);
  };
  for (std::size_t i = 0; i < items.size();) {
    std::size_t j = i + 1;
    double row = item_w(items[i]);
    while (j < items.size() && row + kGap + item_w(items[j]) <= width - 2 * kPad) {
      row += kGap + item_w(items[j++]);
    }
    double x = std::max(kPad, (width - row) / 2);
    const double cy = y + 10;
    for (; svg && i < j; ++i) {
      const auto& it = items[i];
      if (it.line) {
        svg->line(x, cy, x + sample(it), cy, it.colour, 2.5,
                  it.dash ? std::string("stroke-dasharray=\"") + it.dash + '"' : std::string());
        if (it.marker >= 0) {
          marker(*svg, x + sample(it) / 2, cy, static_cast<std::size_t>(it.marker), it.colour);
        }
      } else {
        svg->rect(x, cy - 7, sample(it), 14, it.colour);
      }
      svg->text(x + sample(it) + 6, cy + 4.5, shown(it), kLegendFont, "start",
                std::string("class=\"") + it.cls + '"');
      x += item_w(it) + kGap;
    }
    i = j;
    y += 20;
  }
  return y + (items.empty() ? 0 : 4);
}

void draw_caption(Svg& svg, int height, const std::vector<std::string>& cap) {
  if (cap.empty()) return;
  const double y = height - kPad - static_cast<double>(cap.size() - 1) * kSmallFont * 1.25 - 3;
  svg.lines(kPad, y, cap, kSmallFont, "start", "fill=\"#555555\" class=\"caption\"");
}

double caption_h(const std::vector<std::string>& cap) {
  return cap.empty() ? 0 : static_cast<double>(cap.size()) * kSmallFont * 1.25 + 8;
}

// Width of a rotated axis title of n lines plus its gap to the tick labels.
double title_block(const std::vector<std::string>& lines) {
  return lines.empty() ? 0 : static_cast<double>(lines.size()) * kAxisFont * 1.25 + 6;
}

// Horizontal grid lines, tick marks and labels of a y axis at x (labels left or right of it).
void draw_y_axis(Svg& svg, const Axis& a, double x, double top, double h, bool right, double grid_w,
                 const char* cls) {
  const auto ypx = [&](double v) { return top + h - a.frac(v) * h; };
  for (const double m : a.minor) svg.line(x, ypx(m), x + grid_w, ypx(m), "#f0f0f0", 1);
  for (std::size_t i = 0; i < a.ticks.size(); ++i) {
    const double y = ypx(a.ticks[i]);
    if (grid_w > 0) svg.line(x, y, x + grid_w, y, "#e0e0e0", 1);
    svg.line(x, y, x + (right ? 5 : -5), y, "#444444", 1);
    svg.text(x + (right ? 8 : -8), y + 4, a.labels[i], kTickFont, right ? "start" : "end",
             std::string("class=\"") + cls + '"');
  }
  svg.line(x, top, x, top + h, "#444444", 1);
}

// Rotated title beside a y axis; `edge` is the side facing the tick labels. Lines after the first
// step towards the axis (tspan dy runs along the rotated y).
void draw_axis_title(Svg& svg, double edge, double cy, const std::vector<std::string>& lines,
                     bool right) {
  if (lines.empty()) return;
  const double step = kAxisFont * 1.25, n = static_cast<double>(lines.size()) - 1;
  const double x = right ? edge + kAxisFont * 0.25 + n * step : edge - kAxisFont * 0.25 - n * step;
  svg.lines(x, cy, lines, kAxisFont, "middle",
            "transform=\"rotate(" + std::string(right ? "90 " : "-90 ") + px(x) + ' ' + px(cy) +
                ")\" class=\"axis-title\"");
}

void check_size(int w, int h) {
  if (w < 200 || w > 4000 || h < 200 || h > 4000) {
    throw std::invalid_argument("to_svg: width_px " + std::to_string(w) + " / height_px " +
                                std::to_string(h) + " outside [200, 4000]");
  }
}

// At most one y interval per ~60 px of chart height; layout lowers it when the plot is short.
int y_target(int height) {
  return std::clamp((height - 100) / 60, 3, 10);
}
constexpr double kMinTickGap = 32;  // px between y ticks

std::string quoted(const std::string& name, std::size_t i) {
  return "series '" + name + "' (index " + std::to_string(i) + ")";
}

// Best split of a label into two lines at a space (the one with the shorter longer half).
std::vector<std::string> split2(const std::string& s) {
  std::vector<std::string> best{s};
  double best_w = std::numeric_limits<double>::infinity();
  for (std::size_t p = s.find(' '); p != std::string::npos; p = s.find(' ', p + 1)) {
    const std::string a = s.substr(0, p), b = s.substr(p + 1);
    const double w = std::max(text_w(a, kTickFont), text_w(b, kTickFont));
    if (w < best_w) {
      best_w = w;
      best = {a, b};
    }
  }
  return best;
}

struct BarLayout {
  Axis y;
  std::vector<std::string> ytitle;
  std::vector<std::vector<std::string>> cat;  // category label lines
  double left = 0, top = 0, ph = 0, gw = 0, slot = 0, label_w = 0;
  int rot = 0;            // category labels: 0 (one or two lines), 45 or 90 degrees
  double rot_h = 0;       // vertical extent of rotated labels
  std::size_t every = 1;  // label every n-th category (vertical labels still too dense)
  bool labels = false, vertical = false;  // value labels shown; rotated to fit narrow bars
};
constexpr double kBarRight = kPad + 8;

BarLayout layout_bars(const BarChart& c, int width, int height, double head_h, double cap_h,
                      double lo, double hi, int intervals, bool labels_on, double rot_cap) {
  BarLayout L;
  L.y = c.log_y ? log_axis(lo, hi, intervals) : linear_axis(lo, hi, intervals, false);
  L.ytitle = wrap_at_most(c.y_label, height - head_h - cap_h - 80, kAxisFont, 2);
  L.left = kPad + title_block(L.ytitle) + L.y.max_label_w() + 8;
  const std::size_t nc = c.categories.size(), ns = c.series.size();
  const auto group_w = [&] { return (width - L.left - kBarRight) / static_cast<double>(nc); };
  L.gw = group_w();
  bool fits = true;
  for (const auto& name : c.categories) {
    L.cat.push_back(text_w(name, kTickFont) <= L.gw - 6 ? std::vector{name} : split2(name));
    for (const auto& l : L.cat.back()) fits = fits && text_w(l, kTickFont) <= L.gw - 6;
  }
  if (!fits) {
    // 45 degrees while neighbours stay a line apart (gw sin 45 >= 15 px), else vertical.
    L.rot = L.gw * 0.7071 >= 15 ? 45 : 90;
    const double sin_a = L.rot == 45 ? 0.7071 : 1;
    for (std::size_t i = 0; i < nc; ++i) {
      L.cat[i] = {truncate(c.categories[i], rot_cap / sin_a, kTickFont)};
      L.rot_h = std::max(L.rot_h, text_w(L.cat[i][0], kTickFont) * sin_a);
    }
    for (int pass = 0; L.rot == 45 && pass < 2; ++pass) {  // the first labels reach left
      for (std::size_t i = 0; i < nc; ++i) {
        L.left = std::max(L.left, text_w(L.cat[i][0], kTickFont) * 0.7071 + kPad -
                                      (static_cast<double>(i) + 0.5) * L.gw);
      }
      L.gw = group_w();
    }
    if (L.rot == 90) L.every = static_cast<std::size_t>(std::ceil(15 / L.gw));
  }
  L.slot = L.gw * 0.8 / static_cast<double>(ns);  // 10 % of a group is air on either side
  const auto measure = [&](bool values) {
    L.label_w = text_w("n/a", kSmallFont);
    for (const auto& s : c.series) {
      for (const double v : s.values) {
        if (values && std::isfinite(v)) L.label_w = std::max(L.label_w, text_w(si3(v), kSmallFont));
      }
    }
    L.vertical = L.label_w > L.slot + 2;
  };
  measure(labels_on);
  L.labels = labels_on && (!L.vertical || L.slot >= 14);  // thinner bars cannot carry text
  if (labels_on && !L.labels) measure(false);
  L.top = head_h + (!L.labels ? 6 : L.vertical ? L.label_w + 8 : kSmallFont + 8);
  std::size_t lines = 1;
  for (const auto& l : L.cat) lines = std::max(lines, l.size());
  const double cat_h = L.rot == 45   ? 14 + L.rot_h + 8
                       : L.rot == 90 ? 8 + L.rot_h + 8
                                     : 20 + static_cast<double>(lines - 1) * kLineH + 8;
  L.ph = std::max(20.0, height - L.top - cat_h - cap_h - kPad);
  return L;
}

}  // namespace

std::string to_svg(const BarChart& c, int width, int height) {
  check_size(width, height);
  if (c.categories.empty())
    throw std::invalid_argument("BarChart '" + c.title + "': no categories");
  if (c.series.empty()) throw std::invalid_argument("BarChart '" + c.title + "': no series");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const auto& ser = c.series[s];
    if (ser.values.size() != c.categories.size()) {
      throw std::invalid_argument("BarChart: " + quoted(ser.name, s) + " has " +
                                  std::to_string(ser.values.size()) + " values for " +
                                  std::to_string(c.categories.size()) + " categories");
    }
    for (std::size_t i = 0; i < ser.values.size(); ++i) {
      const double v = ser.values[i];
      if (std::isnan(v)) continue;
      const std::string where = quoted(ser.name, s) + " value " + std::to_string(i) +
                                " (category '" + c.categories[i] + "') is " + shortest(v);
      if (!std::isfinite(v)) throw std::invalid_argument("BarChart: " + where);
      if (c.log_y && v <= 0) {
        throw std::invalid_argument("BarChart: log_y needs positive values; " + where);
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (std::isfinite(c.reference_line)) {
    if (c.log_y && c.reference_line <= 0) {
      throw std::invalid_argument("BarChart: log_y needs a positive reference_line, got " +
                                  shortest(c.reference_line));
    }
    lo = std::min(lo, c.reference_line);
    hi = std::max(hi, c.reference_line);
  }
  if (lo > hi) lo = hi = c.log_y ? 1 : 0;  // every value NaN
  if (!c.log_y) {                          // linear bars start at zero
    lo = std::min(0.0, lo);
    hi = hi > 0 || lo < 0 ? std::max(0.0, hi) : 1;
  }

  const std::size_t nc = c.categories.size(), ns = c.series.size();
  std::vector<LegendItem> legend;
  for (std::size_t s = 0; s < ns; ++s)
    legend.push_back({c.series[s].name, colour(s), false, nullptr, -1});
  // The reference line is explained in the legend, where its label cannot collide with bars.
  if (std::isfinite(c.reference_line) && !c.reference_label.empty()) {
    legend.push_back({c.reference_label, kRefColour, true, kRefDash, -1, "reference"});
  }
  const double head_h = header(nullptr, width, c.title, legend);
  const auto cap = wrap_at_most(c.caption, width - 2 * kPad, kSmallFont, 3);
  // Give way, in this order, when the plot would get shorter than 40 % of the chart: value labels,
  // then rotated category label length, then y tick density.
  const double want = 0.4 * height;
  int n = y_target(height);
  double rot_cap = 0.3 * height;
  const auto layout = [&](bool labels) {
    return layout_bars(c, width, height, head_h, caption_h(cap), lo, hi, n, labels, rot_cap);
  };
  BarLayout L = layout(c.value_labels);
  if (L.ph < want && L.labels) L = layout(false);
  if (L.ph < want && L.rot) {
    rot_cap = std::max(30.0, L.rot_h - (want - L.ph));
    L = layout(L.labels);
  }
  if (const int fit = std::max(2, static_cast<int>(L.ph / kMinTickGap)); fit < n) {
    n = fit;
    L = layout(L.labels);
  }

  Svg svg(width, height, c.title);
  header(&svg, width, c.title, legend);
  const double left = L.left, top = L.top, ph = L.ph, pw = width - left - kBarRight;
  const auto ypx = [&](double v) { return top + ph - L.y.frac(v) * ph; };
  const double base = L.y.log ? top + ph : ypx(0);
  const double bar_w = L.slot - std::min(2.0, L.slot * 0.1);
  const auto bar_x = [&](std::size_t i, std::size_t s) {
    return left + static_cast<double>(i) * L.gw + L.gw * 0.1 + static_cast<double>(s) * L.slot;
  };

  draw_y_axis(svg, L.y, left, top, ph, false, pw, "ytick");
  draw_axis_title(svg, left - 8 - L.y.max_label_w() - 6, top + ph / 2, L.ytitle, false);
  for (std::size_t i = 0; i < nc; ++i) {
    for (std::size_t s = 0; s < ns; ++s) {
      const double v = c.series[s].values[i];
      if (std::isnan(v)) continue;
      const double vy = ypx(v);
      svg.rect(bar_x(i, s), std::min(vy, base), bar_w, std::fabs(base - vy), colour(s),
               "class=\"bar\"", c.series[s].name + ", " + c.categories[i] + ": " + si3(v));
    }
  }
  svg.line(left, base, left + pw, base, "#444444", 1);
  if (std::isfinite(c.reference_line)) {
    const double ry = ypx(c.reference_line);
    svg.line(left, ry, left + pw, ry, kRefColour, 1.5,
             std::string("stroke-dasharray=\"") + kRefDash + '"');
  }
  // Text after all bars and the reference line, so that nothing is drawn over it.
  for (std::size_t i = 0; i < nc; ++i) {
    for (std::size_t s = 0; s < ns; ++s) {
      const double v = c.series[s].values[i], mid = bar_x(i, s) + bar_w / 2;
      const bool na = std::isnan(v);
      if (!na && !L.labels) continue;
      const double ty = na       ? base - 4
                        : v >= 0 ? ypx(v) - 4
                                 : ypx(v) + (L.vertical ? L.label_w + 4 : 14);
      const std::string txt = na ? "n/a" : si3(v);
      const std::string attrs =
          std::string("class=\"") + (na ? "na" : "value") + "\" fill=\"#333333\"";
      if (!na && std::isfinite(c.reference_line)) {  // keep the dashed line out of the digits
        const double tw = text_w(txt, kSmallFont);
        if (L.vertical) {
          svg.rect(mid - 7, ty - tw - 1, 14, tw + 2, "#ffffff");
        } else {
          svg.rect(mid - tw / 2 - 1, ty - 11, tw + 2, 14, "#ffffff");
        }
      }
      if (L.vertical) {
        const double x = mid + kSmallFont * 0.35;
        svg.text(x, ty, txt, kSmallFont, "start",
                 "transform=\"rotate(-90 " + px(x) + ' ' + px(ty) + ")\" " + attrs);
      } else {
        svg.text(mid, ty, txt, kSmallFont, "middle", attrs);
      }
    }
  }
  for (std::size_t i = 0; i < nc; i += L.every) {
    const double cx = left + (static_cast<double>(i) + 0.5) * L.gw;
    if (L.rot == 0) {
      svg.lines(cx, top + ph + 20, L.cat[i], kTickFont, "middle", "class=\"category\"");
      continue;
    }
    const double x = L.rot == 45 ? cx + 4 : cx + kTickFont * 0.35,
                 y = top + ph + (L.rot == 45 ? 14 : 8);
    svg.text(x, y, L.cat[i][0], kTickFont, "end",
             "transform=\"rotate(-" + std::to_string(L.rot) + ' ' + px(x) + ' ' + px(y) +
                 ")\" class=\"category\"");
  }
  draw_caption(svg, height, cap);
  return svg.finish();
}

namespace {

struct LineLayout {
  Axis x, y, y2;
  std::vector<std::string> ytitle, y2title;
  double left = 0, right = 0, top = 0, ph = 0;
  std::vector<std::size_t> mark_row;  // row of each x-mark label above the plot (0 = lowest)
};

LineLayout layout_lines(const LineChart& c, int width, int height, double head_h, double cap_h,
                        const std::array<std::array<double, 2>, 3>& r, bool any_right, int n) {
  LineLayout L;
  L.y = linear_axis(r[1][0], r[1][1], n, false);
  L.y2 = linear_axis(r[2][0], r[2][1], n, false);
  const double title_room = height - head_h - cap_h - 80;
  L.ytitle = wrap_at_most(c.y_label, title_room, kAxisFont, 2);
  L.left = kPad + title_block(L.ytitle) + L.y.max_label_w() + 8;
  if (any_right) {
    L.y2title = wrap_at_most(c.y2_label, title_room, kAxisFont, 2);
    L.right = kPad + title_block(L.y2title) + L.y2.max_label_w() + 8;
  } else {
    L.right = kPad + 8;
  }
  for (int target = std::clamp(width / 100, 3, 12);; --target) {  // fewer x ticks till they fit
    L.x = linear_axis(r[0][0], r[0][1], target, c.integer_x);
    const double room = (width - L.left - L.right) / static_cast<double>(L.x.ticks.size());
    if (L.x.max_label_w() + 12 <= room || target <= 2) break;
  }
  L.left = std::max(L.left, kPad + text_w(L.x.labels.front(), kTickFont) / 2);
  if (!any_right) L.right = std::max(L.right, kPad + text_w(L.x.labels.back(), kTickFont) / 2);
  // Mark labels go above the plot, each in the lowest row where it clears its neighbours.
  const double pw = width - L.left - L.right;
  std::vector<double> row_end;
  for (std::size_t k = 0; k < c.x_marks.size(); ++k) {
    if (!std::isfinite(c.x_marks[k]) || k >= c.x_mark_labels.size() || c.x_mark_labels[k].empty()) {
      L.mark_row.push_back(0);
      continue;
    }
    const double half = text_w(c.x_mark_labels[k], kSmallFont) / 2;
    const double cx = std::clamp(L.left + L.x.frac(c.x_marks[k]) * pw, L.left + half,
                                 std::max(L.left + half, L.left + pw - half));
    std::size_t row = 0;
    while (row < row_end.size() && row_end[row] + 8 > cx - half) ++row;
    if (row == row_end.size()) row_end.push_back(0);
    row_end[row] = cx + half;
    L.mark_row.push_back(row);
  }
  L.top = head_h + 8 + kLineH * static_cast<double>(row_end.size());
  const double bottom = 20 + 8 + (c.x_label.empty() ? 0 : kAxisFont + 10) + cap_h + kPad;
  L.ph = std::max(20.0, height - L.top - bottom);
  return L;
}

}  // namespace

std::string to_svg(const LineChart& c, int width, int height) {
  check_size(width, height);
  if (c.series.empty()) throw std::invalid_argument("LineChart '" + c.title + "': no series");
  const double inf = std::numeric_limits<double>::infinity();
  std::array<std::array<double, 2>, 3> r{{{inf, -inf}, {inf, -inf}, {inf, -inf}}};  // x, y, y2
  bool any_right = false;
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const auto& ser = c.series[s];
    if (ser.x.size() != ser.y.size()) {
      throw std::invalid_argument("LineChart: " + quoted(ser.name, s) + " has " +
                                  std::to_string(ser.x.size()) + " x values but " +
                                  std::to_string(ser.y.size()) + " y values");
    }
    any_right = any_right || ser.right_axis;
    auto& ry = r[ser.right_axis ? 2 : 1];
    for (std::size_t i = 0; i < ser.x.size(); ++i) {
      if (!std::isfinite(ser.x[i]) || std::isinf(ser.y[i])) {
        throw std::invalid_argument("LineChart: " + quoted(ser.name, s) + " point " +
                                    std::to_string(i) + " is (" + shortest(ser.x[i]) + ", " +
                                    shortest(ser.y[i]) + "); x must be finite, y finite or NaN");
      }
      r[0] = {std::min(r[0][0], ser.x[i]), std::max(r[0][1], ser.x[i])};
      if (!std::isnan(ser.y[i])) ry = {std::min(ry[0], ser.y[i]), std::max(ry[1], ser.y[i])};
    }
  }
  for (const double m : c.x_marks) {
    if (std::isfinite(m)) r[0] = {std::min(r[0][0], m), std::max(r[0][1], m)};
  }
  for (auto& a : r) {
    if (a[0] > a[1]) a = {0, 1};  // no data on this axis
  }
  // 3 % air above and below so markers do not sit on the axis, never below zero for data >= 0.
  for (auto* a : {&r[1], &r[2]}) {
    const double air = 0.03 * ((*a)[1] - (*a)[0]);
    *a = {(*a)[0] >= 0 ? std::max(0.0, (*a)[0] - air) : (*a)[0] - air, (*a)[1] + air};
  }

  std::vector<LegendItem> legend;
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const auto& ser = c.series[s];
    legend.push_back({ser.name + (ser.right_axis ? " (right axis)" : ""), colour(s), true,
                      ser.dashed ? kDash : nullptr, static_cast<int>(s)});
  }
  const double head_h = header(nullptr, width, c.title, legend);
  const auto cap = wrap_at_most(c.caption, width - 2 * kPad, kSmallFont, 3);
  int n = y_target(height);
  LineLayout L = layout_lines(c, width, height, head_h, caption_h(cap), r, any_right, n);
  if (const int fit = std::max(2, static_cast<int>(L.ph / kMinTickGap)); fit < n) {
    L = layout_lines(c, width, height, head_h, caption_h(cap), r, any_right, fit);
  }

  Svg svg(width, height, c.title);
  header(&svg, width, c.title, legend);
  const double left = L.left, top = L.top, ph = L.ph, pw = width - left - L.right;
  const auto xpx = [&](double v) { return left + L.x.frac(v) * pw; };
  draw_y_axis(svg, L.y, left, top, ph, false, pw, "ytick");
  draw_axis_title(svg, left - 8 - L.y.max_label_w() - 6, top + ph / 2, L.ytitle, false);
  if (any_right) {
    draw_y_axis(svg, L.y2, left + pw, top, ph, true, 0, "y2tick");
    draw_axis_title(svg, left + pw + 8 + L.y2.max_label_w() + 6, top + ph / 2, L.y2title, true);
  }
  for (std::size_t i = 0; i < L.x.ticks.size(); ++i) {
    const double x = xpx(L.x.ticks[i]);
    svg.line(x, top, x, top + ph, "#eeeeee", 1);
    svg.line(x, top + ph, x, top + ph + 5, "#444444", 1);
    svg.text(x, top + ph + 20, L.x.labels[i], kTickFont, "middle", "class=\"xtick\"");
  }
  svg.line(left, top + ph, left + pw, top + ph, "#444444", 1);
  if (!c.x_label.empty()) {
    svg.text(left + pw / 2, top + ph + 20 + 8 + kAxisFont + 2,
             truncate(c.x_label, width - 2 * kPad, kAxisFont), kAxisFont, "middle",
             "class=\"axis-title\"");
  }
  for (std::size_t k = 0; k < c.x_marks.size(); ++k) {
    if (!std::isfinite(c.x_marks[k])) continue;
    const double x = xpx(c.x_marks[k]);
    svg.line(x, top, x, top + ph, "#444444", 1.2, "stroke-dasharray=\"2 3\"");
    if (k >= c.x_mark_labels.size() || c.x_mark_labels[k].empty()) continue;
    const double half = text_w(c.x_mark_labels[k], kSmallFont) / 2;
    const double cx = std::clamp(x, left + half, std::max(left + half, left + pw - half));
    svg.text(cx, top - 5 - kLineH * static_cast<double>(L.mark_row[k]), c.x_mark_labels[k],
             kSmallFont, "middle", "class=\"xmark\"");
  }
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const auto& ser = c.series[s];
    const Axis& a = ser.right_axis ? L.y2 : L.y;
    const auto ypx = [&](double v) { return top + ph - a.frac(v) * ph; };
    std::string d;
    bool pen = false;
    for (std::size_t i = 0; i < ser.x.size(); ++i) {
      if (std::isnan(ser.y[i])) {
        pen = false;
        continue;
      }
      d += (pen ? "L" : d.empty() ? "M" : " M") + px(xpx(ser.x[i])) + ',' + px(ypx(ser.y[i]));
      pen = true;
    }
    if (!d.empty()) {
      svg.raw("<path d=\"" + d + "\" fill=\"none\" stroke=\"" + colour(s) +
              "\" stroke-width=\"2.5\" stroke-linejoin=\"round\"" +
              (ser.dashed ? std::string(" stroke-dasharray=\"") + kDash + '"' : std::string()) +
              " class=\"series\"><title>" + escape(ser.name) + "</title></path>\n");
    }
    for (std::size_t i = 0; i < ser.x.size(); ++i) {
      if (!std::isnan(ser.y[i])) marker(svg, xpx(ser.x[i]), ypx(ser.y[i]), s, colour(s));
    }
  }
  draw_caption(svg, height, cap);
  return svg.finish();
}

}  // namespace stackscope::report
