// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/validate/fit.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "items.hpp"
#include "stackscope/runtime/profile.hpp"

namespace stackscope::validate {
namespace {

constexpr std::size_t kMaxAxes = 8;
constexpr std::size_t kMaxPoints = 10'000;

using detail::trim;

double number(std::string_view text, const std::string& where) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw std::invalid_argument(where + ": '" + std::string(text) + "' is not a finite number");
  return v;
}

std::string keys_text() {
  std::string s;
  for (auto k : runtime::numeric_field_names()) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

}  // namespace

std::vector<GridAxis> parse_grid(std::string_view text, std::string_view what) {
  std::vector<GridAxis> axes;
  std::size_t points = 1;
  for (const std::string_view item : detail::items(text, ',')) {
    const std::size_t eq = item.find('=');
    const std::string where = std::string(what) + " '" + std::string(item) + "'";
    if (eq == std::string_view::npos)
      throw std::invalid_argument(where +
                                  ": not KEY=LO:HI:STEP or KEY=V1|V2 (keys: " + keys_text() + ")");
    GridAxis axis;
    axis.key = std::string(trim(item.substr(0, eq)));
    runtime::Profile probe;
    if (!runtime::numeric_field(probe, axis.key))
      throw std::invalid_argument(where + ": unknown key '" + axis.key +
                                  "' (allowed: " + keys_text() + ")");
    for (const auto& a : axes)
      if (a.key == axis.key) throw std::invalid_argument(where + ": '" + axis.key + "' twice");
    const std::string_view spec = item.substr(eq + 1);
    if (spec.find(':') != std::string_view::npos) {
      const std::size_t c1 = spec.find(':');
      const std::size_t c2 = spec.find(':', c1 + 1);
      if (c2 == std::string_view::npos)
        throw std::invalid_argument(where + ": a range is LO:HI:STEP");
      const double lo = number(spec.substr(0, c1), where);
      const double hi = number(spec.substr(c1 + 1, c2 - c1 - 1), where);
      const double step = number(spec.substr(c2 + 1), where);
      if (!(step > 0) || hi < lo || (hi - lo) / step > static_cast<double>(kMaxPoints))
        throw std::invalid_argument(where + ": needs LO <= HI and STEP > 0 with at most " +
                                    std::to_string(kMaxPoints) + " values");
      for (int i = 0;; ++i) {
        // Rounded to 1e-9 so 0.55 + 3 x 0.05 is the 0.7 the user means, not 0.7000000000000001.
        const double v = std::round((lo + i * step) * 1e9) / 1e9;
        if (v > hi + step * 1e-3) break;
        axis.values.push_back(v);
      }
    } else {
      std::string_view vals = spec;
      while (true) {
        const std::size_t bar = vals.find('|');
        axis.values.push_back(number(trim(vals.substr(0, bar)), where));
        if (bar == std::string_view::npos) break;
        vals = vals.substr(bar + 1);
      }
    }
    points *= axis.values.size();
    if (points > kMaxPoints || axes.size() >= kMaxAxes)
      throw std::invalid_argument(std::string(what) + ": at most " + std::to_string(kMaxAxes) +
                                  " axes and " + std::to_string(kMaxPoints) + " points in all");
    axes.push_back(std::move(axis));
  }
  if (axes.empty()) throw std::invalid_argument(std::string(what) + ": no axis given");
  return axes;
}

Catalog with_point(Catalog catalog, const std::string& profile_id,
                   const std::vector<GridAxis>& axes, const std::vector<double>& values) {
  auto it = catalog.runtimes.find(profile_id);
  if (it == catalog.runtimes.end())
    throw std::invalid_argument("runtime profile '" + profile_id + "' is not in the registry");
  for (std::size_t a = 0; a < axes.size() && a < values.size(); ++a)
    if (double* f = runtime::numeric_field(it->second, axes[a].key)) *f = values[a];
  return catalog;
}

FitResult fit_profile(const std::vector<SiliconRow>& rows, const Catalog& catalog,
                      const std::string& profile_id, const std::vector<GridAxis>& axes,
                      const RunOptions& options) {
  if (!catalog.runtimes.contains(profile_id))
    throw std::invalid_argument("runtime profile '" + profile_id + "' is not in the registry");
  FitResult out;
  out.profile = profile_id;
  out.axes = axes;
  // The rows this profile runs (the mapping does not depend on the swept values).
  // Each measurement once (mark_duplicates).
  std::vector<Case> all;
  for (const auto& r : rows) all.push_back(map_row(r, catalog));
  mark_duplicates(all);
  std::vector<SiliconRow> mine;
  for (const auto& c : all)
    if (c.unmapped.empty() && c.runtime == profile_id) mine.push_back(c.row);
  if (mine.empty())
    throw std::invalid_argument("no selected row runs under runtime profile '" + profile_id + "'");
  out.rows = mine.size();
  std::size_t total = 1;
  for (const auto& a : axes) total *= a.values.size();
  std::vector<std::size_t> idx(axes.size(), 0);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t p = 0; p < total; ++p) {
    if (options.stop.stop_requested()) break;
    FitPoint pt;
    for (std::size_t a = 0; a < axes.size(); ++a) pt.values.push_back(axes[a].values[idx[a]]);
    const Catalog cat = with_point(catalog, profile_id, axes, pt.values);
    std::vector<Case> cases;
    std::vector<std::size_t> sel;
    for (const auto& r : mine) {
      sel.push_back(cases.size());
      cases.push_back(map_row(r, cat));
    }
    RunOptions ro;
    ro.threads = options.threads;
    ro.stop = options.stop;
    const auto results = run_cases(cases, sel, std::vector<Group>(sel.size(), Group::fitted), ro);
    if (options.stop.stop_requested()) break;
    std::vector<double> et, ep;
    for (const auto& r : results) {
      if (r.ran) {
        et.push_back(std::abs(r.ttft_err));
        ep.push_back(std::abs(r.tpot_err));
      } else {
        ++pt.failed;
        et.push_back(1.0);
        ep.push_back(1.0);
      }
    }
    pt.ttft = error_stats(et);
    pt.tpot = error_stats(ep);
    pt.objective = 0.5 * (pt.ttft.mape + pt.tpot.mape);
    if (pt.objective < best) {
      best = pt.objective;
      out.best = out.points.size();
    }
    out.points.push_back(std::move(pt));
    if (options.progress) options.progress(p + 1, total);
    // Next grid index, last axis fastest.
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++idx[a] < axes[a].values.size()) break;
      idx[a] = 0;
    }
  }
  return out;
}

}  // namespace stackscope::validate
