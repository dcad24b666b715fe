// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "stackscope/report/svg_chart.hpp"

namespace stackscope::report {
namespace {

// Minimal well-formedness check: balanced, properly nested tags, quoted attributes, one root
// <svg>, and no bare '&' or '<' in text. Returns an empty string when fine, else the problem.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> stack;
  int roots = 0;
  std::size_t i = 0;
  const auto entity_ok = [&](std::size_t at) {
    static const std::regex kEntity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
    return std::regex_search(s.substr(at, 12), kEntity);
  };
  while (i < s.size()) {
    if (s[i] == '&') {
      if (!entity_ok(i)) return "bare & at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s[i] != '<') {
      if (s[i] == '>') return "bare > at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s.compare(i, 5, "<?xml") == 0) {
      if (i != 0) return "XML declaration not at the start";
      i = s.find("?>", i);
      if (i == std::string::npos) return "unterminated declaration";
      i += 2;
      continue;
    }
    const std::size_t end = s.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = s.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.find('<') != std::string::npos) return "'<' inside tag " + tag;
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return "unexpected </" + name + ">";
      stack.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find_first_of(" \n\t"));
    if (name.empty()) return "empty tag name";
    // Attributes: name="value" pairs, values free of '<' and bare '&'.
    static const std::regex kAttrs(R"(^(\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<]*")*\s*$)");
    const std::string rest = tag.substr(name.size());
    if (!std::regex_match(rest, kAttrs)) return "bad attributes in <" + name + ">: " + rest;
    for (std::size_t a = rest.find('&'); a != std::string::npos; a = rest.find('&', a + 1)) {
      static const std::regex kEntity("^&(amp|lt|gt|quot|apos);");
      if (!std::regex_search(rest.substr(a, 8), kEntity)) return "bare & in <" + name + ">";
    }
    if (stack.empty()) ++roots;
    if (stack.empty() && name != "svg") return "root element is <" + name + ">";
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return {};
}

// Text of every <text class="cls"> element (tspans joined by a space), in document order.
std::vector<std::string> texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  const std::regex re("<text[^>]*class=\"" + cls + "\"[^>]*>(.*?)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    std::string inner = (*it)[1];
    inner = std::regex_replace(inner, std::regex("</tspan><tspan[^>]*>"), " ");
    out.push_back(std::regex_replace(inner, std::regex("<[^>]*>"), ""));
  }
  return out;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

BarChart steps_chart() {
  BarChart c;
  c.title = "Decode throughput per step";
  c.y_label = "STPS (tokens/s)";
  c.categories = {"Step 1: baseline", "Step 2: 3D DRAM", "Step 3: wider NoC", "Step 4"};
  c.series = {{"Paper", {12.5, 30.1, 41.0, 47.0}}, {"StackScope", {11.9, 28.7, NAN, 44.2}}};
  c.caption = "Source: paper Table 3; StackScope at default settings.";
  return c;
}

LineChart layers_chart() {
  LineChart c;
  c.title = "STPS and power vs DRAM layers";
  c.x_label = "DRAM layers";
  c.y_label = "STPS (tokens/s)";
  c.y2_label = "Power (W)";
  c.integer_x = true;
  c.series = {
      {"STPS", {2, 4, 6, 8, 9, 10, 12, 14, 16}, {10, 21, 30, 37, 39, 38, 35, 31, 27}},
      {"STPS (paper)", {2, 4, 6, 8, 10, 12, 14, 16}, {11, 22, 31, NAN, 39, 36, 32, 28}, true},
      {"Power", {2, 4, 6, 8, 10, 12, 14, 16}, {80, 95, 110, 126, 141, 157, 172, 188}, false, true}};
  c.x_marks = {9};
  c.x_mark_labels = {"paper optimum (9 layers)"};
  c.caption = "Dashed: values read from the paper's Figure 7; the gap is a point the paper omits.";
  return c;
}

TEST(SvgChart, WellFormednessCheckRejectsBrokenMarkup) {
  EXPECT_EQ(xml_problem("<svg><g><text>a &amp; b</text></g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a < b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg x=\"1></svg>"), "");
  EXPECT_NE(xml_problem("<svg/><svg/>"), "");
}

TEST(SvgChart, BarChartIsWellFormedAndComplete) {
  const BarChart c = steps_chart();
  const std::string svg = to_svg(c);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("viewBox=\"0 0 960 520\""), std::string::npos);
  EXPECT_NE(svg.find("width=\"960\" height=\"520\""), std::string::npos);
  EXPECT_NE(svg.find("font-family=\"DejaVu Sans, Arial, sans-serif\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#ffffff\""), std::string::npos);
  EXPECT_EQ(texts(svg, "title"), std::vector<std::string>{c.title});
  const auto cats = texts(svg, "category");
  ASSERT_EQ(cats.size(), c.categories.size());
  for (std::size_t i = 0; i < cats.size(); ++i) EXPECT_EQ(cats[i], c.categories[i]);
  EXPECT_EQ(texts(svg, "legend"), (std::vector<std::string>{"Paper", "StackScope"}));
  EXPECT_EQ(texts(svg, "caption").size(), 1u);
  EXPECT_EQ(count(svg, "class=\"bar\""), 7u);  // 8 values, one NaN
  // No font size under 12 px anywhere.
  const std::regex size_re("font-size=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), size_re);
       it != std::sregex_iterator(); ++it) {
    EXPECT_GE(std::stod((*it)[1]), 12.0);
  }
}

TEST(SvgChart, EscapesMarkupInLabels) {
  BarChart c = steps_chart();
  c.title = "R&D <fast> \"quoted\" 'single'";
  c.categories[0] = "A&B <1>";
  c.series[0].name = "x<y & z";
  const std::string svg = to_svg(c);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("R&amp;D &lt;fast&gt; &quot;quoted&quot; &apos;single&apos;"),
            std::string::npos);
  EXPECT_NE(svg.find("A&amp;B &lt;1&gt;"), std::string::npos);
  EXPECT_NE(svg.find("x&lt;y &amp; z"), std::string::npos);
  EXPECT_EQ(svg.find("R&D"), std::string::npos);
  EXPECT_EQ(svg.find("<fast>"), std::string::npos);
}

TEST(SvgChart, LinearTicksAreNiceAndStartAtZero) {
  BarChart c;
  c.categories = {"a", "b", "c"};
  c.series = {{"s", {3, 47, 20}}};
  EXPECT_EQ(texts(to_svg(c), "ytick"),
            (std::vector<std::string>{"0", "10", "20", "30", "40", "50"}));
  c.series = {{"s", {0.12, 0.31, 0.05}}};
  EXPECT_EQ(texts(to_svg(c), "ytick"), (std::vector<std::string>{"0", "0.05", "0.10", "0.15",
                                                                 "0.20", "0.25", "0.30", "0.35"}));
  c.series = {{"s", {12000, 41000, 2000}}};
  EXPECT_EQ(texts(to_svg(c), "ytick"),
            (std::vector<std::string>{"0", "10k", "20k", "30k", "40k", "50k"}));
}

TEST(SvgChart, LogAxisHasDecadeTicks) {
  BarChart c;
  c.log_y = true;
  c.categories = {"a", "b", "c"};
  c.series = {{"s", {3, 250, 5000}}};
  const std::string svg = to_svg(c);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(texts(svg, "ytick"), (std::vector<std::string>{"1", "10", "100", "1k", "10k"}));
}

TEST(SvgChart, ValueLabelsHaveThreeSignificantDigits) {
  BarChart c;
  c.categories = {"a", "b", "c", "d"};
  c.series = {{"s", {12345, 999.7, 47.26, 0.5}}};
  EXPECT_EQ(texts(to_svg(c), "value"), (std::vector<std::string>{"12.3k", "1k", "47.3", "0.5"}));
  c.value_labels = false;
  EXPECT_TRUE(texts(to_svg(c), "value").empty());
}

TEST(SvgChart, NanBarsSayNotAvailable) {
  BarChart c = steps_chart();
  c.series[0].values[1] = NAN;
  const std::string svg = to_svg(c);
  EXPECT_EQ(texts(svg, "na"), (std::vector<std::string>{"n/a", "n/a"}));
  EXPECT_EQ(count(svg, "class=\"bar\""), 6u);
}

TEST(SvgChart, ReferenceLineIsDashedAndLabelled) {
  BarChart c;
  c.categories = {"a", "b"};
  c.series = {{"ratio", {0.8, 1.3}}};
  c.reference_line = 1.0;
  c.reference_label = "parity";
  const std::string svg = to_svg(c);
  EXPECT_EQ(texts(svg, "reference"), std::vector<std::string>{"parity"});
  EXPECT_NE(svg.find("stroke-dasharray=\"6 4\""), std::string::npos);
}

TEST(SvgChart, LongCategoryLabelsWrapOrRotate) {
  BarChart c;
  c.categories = {"Prefill with long context", "Decode at batch one", "Decode at batch sixty-four"};
  c.series = {{"a", {1, 2, 3}}, {"b", {2, 3, 4}}};
  std::string svg = to_svg(c, 600, 300);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_GE(count(svg, "<tspan"), 2u);  // wrapped onto two lines
  EXPECT_EQ(svg.find("rotate(-45"), std::string::npos);
  for (int i = 0; i < 12; ++i) c.categories.push_back("Configuration number " + std::to_string(i));
  for (auto& s : c.series) s.values.resize(c.categories.size(), 1.0);
  svg = to_svg(c, 600, 300);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "rotate(-45"), c.categories.size());
  // Too dense even for 45 degrees: vertical, and only every n-th category is labelled.
  for (int i = 0; i < 45; ++i) c.categories.push_back("Extra " + std::to_string(i));
  for (auto& s : c.series) s.values.resize(c.categories.size(), 1.0);
  svg = to_svg(c, 400, 300);
  EXPECT_EQ(xml_problem(svg), "");
  const auto shown = texts(svg, "category");
  EXPECT_GT(shown.size(), 5u);
  EXPECT_LT(shown.size(), c.categories.size());
  EXPECT_EQ(svg.find("rotate(-45"), std::string::npos);
}

TEST(SvgChart, LineChartIsWellFormedWithGapsDashesAndRightAxis) {
  const LineChart c = layers_chart();
  const std::string svg = to_svg(c);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(texts(svg, "title"), std::vector<std::string>{c.title});
  EXPECT_EQ(texts(svg, "legend"),
            (std::vector<std::string>{"STPS", "STPS (paper)", "Power (right axis)"}));
  EXPECT_EQ(texts(svg, "xtick"),
            (std::vector<std::string>{"2", "4", "6", "8", "10", "12", "14", "16"}));
  EXPECT_FALSE(texts(svg, "y2tick").empty());
  EXPECT_NE(svg.find(">Power (W)<"), std::string::npos);
  EXPECT_EQ(texts(svg, "xmark"), std::vector<std::string>{"paper optimum (9 layers)"});
  // The NaN splits the paper series into two subpaths; it is the only dashed path.
  const std::regex path_re("<path d=\"([^\"]*)\"[^>]*stroke-dasharray[^>]*class=\"series\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, path_re));
  EXPECT_EQ(count(m[1], "M"), 2u);
  EXPECT_EQ(count(svg, "class=\"series\""), 3u);
}

TEST(SvgChart, OutputIsDeterministic) {
  EXPECT_EQ(to_svg(steps_chart()), to_svg(steps_chart()));
  EXPECT_EQ(to_svg(layers_chart(), 700, 400), to_svg(layers_chart(), 700, 400));
}

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no invalid_argument thrown>";
}

TEST(SvgChart, InvalidInputThrowsNamingTheCulprit) {
  BarChart b = steps_chart();
  b.series[1].values.pop_back();
  EXPECT_NE(error_of([&] { to_svg(b); }).find("'StackScope'"), std::string::npos);

  b = steps_chart();
  b.log_y = true;
  b.series[0].values[2] = 0;
  const std::string log_err = error_of([&] { to_svg(b); });
  EXPECT_NE(log_err.find("'Paper'"), std::string::npos) << log_err;
  EXPECT_NE(log_err.find("log"), std::string::npos) << log_err;

  b = steps_chart();
  b.categories.clear();
  EXPECT_NE(error_of([&] { to_svg(b); }).find("no categories"), std::string::npos);
  b = steps_chart();
  b.series.clear();
  EXPECT_NE(error_of([&] { to_svg(b); }).find("no series"), std::string::npos);
  EXPECT_NE(error_of([&] { to_svg(steps_chart(), 199, 520); }).find("199"), std::string::npos);
  EXPECT_NE(error_of([&] { to_svg(steps_chart(), 960, 4001); }).find("4001"), std::string::npos);

  LineChart l = layers_chart();
  l.series[2].y.pop_back();
  EXPECT_NE(error_of([&] { to_svg(l); }).find("'Power'"), std::string::npos);
  l = layers_chart();
  l.series.clear();
  EXPECT_NE(error_of([&] { to_svg(l); }).find("no series"), std::string::npos);
  EXPECT_NE(error_of([&] { to_svg(layers_chart(), 4001, 500); }).find("4001"), std::string::npos);
}

// With STACKSCOPE_SVG_OUT set, writes the two example charts there for a human to look at.
TEST(SvgChart, WritesExamplesWhenAsked) {
  const char* dir = std::getenv("STACKSCOPE_SVG_OUT");
  if (dir == nullptr || *dir == '\0') GTEST_SKIP() << "STACKSCOPE_SVG_OUT not set";
  BarChart bar = steps_chart();
  bar.series.push_back({"Roofline bound", {14.0, 35.2, 52.8, 60.3}});
  bar.reference_line = 40;
  bar.reference_label = "target 40 tokens/s";
  for (const auto& [name, svg] : {std::pair{"example_bar.svg", to_svg(bar)},
                                  std::pair{"example_line.svg", to_svg(layers_chart())}}) {
    std::ofstream out(std::string(dir) + "/" + name, std::ios::binary);
    out << svg;
    EXPECT_TRUE(out.good()) << name;
  }
}

}  // namespace
}  // namespace stackscope::report
