// SPDX-License-Identifier: GPL-3.0-or-later
// The expert-placement view's results: the outcome's table, placement heat map, link map and
// per-node compute.
#include "stackscope/ui/experts_view.hpp"

#include "expert_mesh_canvas.hpp"
#include "experts_view_detail.hpp"

namespace stackscope::ui {

using namespace experts_view_detail;

void ExpertsView::showOutcome() {
  updateHint();
  if (!shown_) {
    setTitle(heat_, tr("Placement: experts × nodes"));
    setTitle(compute_, tr("Compute per node"));
    map_->data()->clear();
    compute_->clearPlottables();
    heat_->replot();
    compute_->replot();
    mesh_->ok = false;
    mesh_->update();
    meshTitle_->setText(tr("<b>Link utilisation on the mesh</b>"));
    for (int r = 0; r < table_->rowCount(); ++r)
      for (int c = 0; c < table_->columnCount(); ++c)
        table_->setItem(r, c, new QTableWidgetItem(QStringLiteral("–")));
    solve_->clear();
    return;
  }
  const auto& o = *shown_;
  const auto& r = o.result;
  {
    const QSignalBlocker b(layer_);
    const int was = layer_->currentIndex();
    layer_->clear();
    for (const int l : r.layers) layer_->addItem(QString::number(l), l);
    layer_->setCurrentIndex(std::clamp(was, 0, layer_->count() - 1));
  }
  QStringList layers;
  for (const int l : r.layers) layers << QString::number(l);
  info_->setText(
      tr("<b>%1</b>: %2 experts, top-%3, %4 MoE layers on a %5 × %6 mesh of %7 TFLOPS, %8 GB/s "
         "memory per node, %9 GB/s links<br>Batch %10 tokens, %11 eval batch(es) per layer · "
         "layers %12 · "
         "fitted on %13, scored on %14 · non-MoE time %15 µs per layer")
          .arg(qs(design_ ? design_->model.name : std::string()).toHtmlEscaped())
          .arg(r.experts)
          .arg(r.top_k)
          .arg(r.moe_layers)
          .arg(o.mesh.x)
          .arg(o.mesh.y)
          .arg(readable(o.mesh.node_flops / 1e12), readable(o.mesh.mem_Bps / 1e9),
               readable(o.mesh.link_Bps / 1e9))
          .arg(o.batch)
          .arg(o.batches)
          .arg(layers.join(QStringLiteral(", ")), o.fit.toHtmlEscaped(), o.eval.toHtmlEscaped(),
               us(r.non_moe_s)));
  fillTable();
  // HD-MoE's solves in one line: statuses, the largest gap, what was kept.
  if (!r.hd.empty()) {
    int optimal = 0;
    double gap = 0, secs = 0;
    QMap<QString, int> chosen;
    for (const auto& h : r.hd) {
      optimal += h.status == lp::Status::optimal;
      if (std::isfinite(h.gap)) gap = std::max(gap, h.gap);
      secs += h.seconds;
      ++chosen[qs(h.chosen)];
    }
    QStringList kept;
    for (auto it = chosen.begin(); it != chosen.end(); ++it)
      kept << QStringLiteral("%1 × %2").arg(it.key()).arg(it.value());
    solve_->setText(tr("HD-MoE node balance (GLPK MILP, %1 s limit): %2 of %3 layers proven "
                       "optimal, largest gap %4 %, %5 s in all; placement kept: %6. EPLB: %7 "
                       "redundant slots.")
                        .arg(readable(settings_.time_limit_s))
                        .arg(optimal)
                        .arg(r.hd.size())
                        .arg(QString::number(100 * gap, 'f', 1))
                        .arg(QString::number(secs, 'f', 1))
                        .arg(kept.join(QStringLiteral(", ")))
                        .arg(r.eplb_redundant));
  } else {
    solve_->setText(tr("EPLB: %1 redundant slots.").arg(r.eplb_redundant));
  }
  const QString wall = readable(o.wall_s) + tr(" s");
  // Short enough for the button row at 1280 pixels; the whole sentence is the tooltip.
  status_->setText(o.stopped ? tr("Stopped: %1 of %2 layers (partial), %3")
                                   .arg(r.layers.size())
                                   .arg(o.layers_planned)
                                   .arg(wall)
                             : tr("%1 strategies, %2 layers, %3")
                                   .arg(r.strategies.size())
                                   .arg(r.layers.size())
                                   .arg(wall));
  status_->setToolTip(o.stopped ? tr("Stopped after %1 of %2 layers (%3 of wall time): the "
                                     "results are those of the layers done")
                                      .arg(r.layers.size())
                                      .arg(o.layers_planned)
                                      .arg(wall)
                                : tr("Compared %1 placement strategies on %2 MoE layers in %3 "
                                     "of wall time")
                                      .arg(r.strategies.size())
                                      .arg(r.layers.size())
                                      .arg(wall));
  showSelection();
}

void ExpertsView::fillTable() {
  const auto& r = shown_->result;
  table_->setRowCount(static_cast<int>(r.strategies.size()));
  const Strategy over[] = {Strategy::tp, Strategy::ep, Strategy::balanced};
  const auto cell = [&](int row, int col, const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!tip.isEmpty()) item->setToolTip(tip);
    table_->setItem(row, col, item);
  };
  for (std::size_t i = 0; i < r.strategies.size(); ++i) {
    const auto& s = r.strategies[i];
    const int row = static_cast<int>(i);
    auto* head = new QTableWidgetItem(strategyName(s.strategy));
    head->setToolTip(strategyTip(s.strategy));
    table_->setVerticalHeaderItem(row, head);
    for (int c = 0; c < 3; ++c) {
      const auto e2e = r.speedup(s.strategy, over[c]), moe = r.moe_speedup(s.strategy, over[c]);
      const auto x = [](const std::optional<double>& v) {
        return v ? QString::number(*v, 'f', 2) + QStringLiteral(" ×") : QStringLiteral("–");
      };
      cell(row, c, x(e2e),
           tr("%1 over %2, end-to-end time between tokens")
               .arg(strategyName(s.strategy), strategyName(over[c])));
      cell(row, c + 3, x(moe),
           tr("%1 over %2, MoE layers alone").arg(strategyName(s.strategy), strategyName(over[c])));
    }
    cell(row, 6, us(s.end_to_end_s));
    cell(row, 7, us(r.moe_layers > 0 ? s.moe_s / r.moe_layers : 0.0));
    cell(row, 8, QString::number(s.imbalance, 'f', 2));
    cell(row, 9, QString::number(100 * s.link_utilisation, 'f', 1) + QStringLiteral(" %"));
  }
  table_->resizeRowsToContents();
  int h = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth();
  for (int row = 0; row < table_->rowCount(); ++row) h += table_->rowHeight(row);
  table_->setFixedHeight(h);
}

void ExpertsView::showSelection() {
  if (!shown_) return;
  const auto& r = shown_->result;
  const Strategy s = strategy();
  for (std::size_t i = 0; i < r.strategies.size(); ++i)
    if (r.strategies[i].strategy == s) {
      const QSignalBlocker b(table_);
      table_->selectRow(static_cast<int>(i));
    }
  drawHeatMap();
  drawCompute();
  // The links of the selected strategy at the selected layer's first eval batch.
  const auto li = static_cast<std::size_t>(layerIndex());
  mesh_->ok = false;
  for (std::size_t i = 0; i < r.strategies.size(); ++i)
    if (r.strategies[i].strategy == s && li < shown_->firsts.size()) {
      mesh_->mesh = shown_->mesh;
      mesh_->layer = shown_->firsts[li][i];
      mesh_->ok = true;
    }
  if (mesh_->ok) {
    double busiest = 0;
    for (const auto& l : mesh_->layer.links) busiest = std::max(busiest, mesh_->util(l));
    meshTitle_->setText(tr("<b>Links: %1, layer %2</b><br>first eval batch, busiest %3 %")
                            .arg(strategyName(s))
                            .arg(r.layers[li])
                            .arg(QString::number(100 * busiest, 'f', 1)));
    mesh_->legend = tr("busy / layer time (%1 µs)").arg(us(mesh_->layer.time_s));
  }
  mesh_->update();
}

void ExpertsView::drawHeatMap() {
  const auto& r = shown_->result;
  const auto li = static_cast<std::size_t>(layerIndex());
  const experts::StrategyOutcome* o = r.find(strategy());
  const int N = shown_->mesh.nodes(), E = r.experts;
  if (!o || li >= o->placements.size() || N < 1 || E < 1) {
    map_->data()->clear();
    heat_->replot();
    return;
  }
  const auto& p = o->placements[li];
  map_->data()->setSize(N, E);
  map_->data()->setRange(QCPRange(0, N - 1), QCPRange(0, E - 1));
  std::vector<double> cells(static_cast<std::size_t>(N) * static_cast<std::size_t>(E), 0.0);
  double spread = 0;  // nodes per expert, summed
  for (std::size_t e = 0; e < p.experts.size() && e < static_cast<std::size_t>(E); ++e)
    for (const auto& c : p.experts[e].copies)
      for (const auto& sh : c.shares)
        if (sh.node >= 0 && sh.node < N) {
          cells[e * static_cast<std::size_t>(N) + static_cast<std::size_t>(sh.node)] +=
              sh.fraction;
        }
  for (std::size_t e = 0; e < p.experts.size() && e < static_cast<std::size_t>(E); ++e) {
    int nodes = 0;
    for (int n = 0; n < N; ++n)
      nodes += cells[e * static_cast<std::size_t>(N) + static_cast<std::size_t>(n)] > 0;
    spread += nodes;
  }
  double hi = 1;
  for (int e = 0; e < E; ++e)
    for (int n = 0; n < N; ++n) {
      const double v = cells[static_cast<std::size_t>(e) * static_cast<std::size_t>(N) +
                             static_cast<std::size_t>(n)];
      hi = std::max(hi, v);
      map_->data()->setCell(n, e, v);
    }
  map_->setGradient(shareGradient());
  map_->setDataRange(QCPRange(0, hi));
  heat_->xAxis->setTicker(integerTicker(N));
  heat_->yAxis->setTicker(integerTicker(E));
  heat_->xAxis->setRange(-0.5, N - 0.5);
  heat_->yAxis->setRange(-0.5, E - 0.5);
  setTitle(heat_, tr("Placement: %1, layer %2\n%3 nodes per expert on average")
                      .arg(strategyName(strategy()))
                      .arg(r.layers[li])
                      .arg(readable(spread / E)));
  theme::stylePlot(heat_);
  heat_->replot();
}

void ExpertsView::drawCompute() {
  const auto& r = shown_->result;
  const auto li = static_cast<std::size_t>(layerIndex());
  compute_->clearPlottables();
  if (li >= shown_->firsts.size()) {
    compute_->replot();
    return;
  }
  const Strategy sel = strategy();
  const int N = shown_->mesh.nodes();
  double top = 0;
  QVector<double> x(N);
  for (int n = 0; n < N; ++n) x[n] = n;
  // The selected strategy as bars, the others as lines over them, in the table's order.
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < r.strategies.size(); ++i) {
      const Strategy s = r.strategies[i].strategy;
      if ((s == sel) != (pass == 0)) continue;
      const auto& nodes = shown_->firsts[li][i].nodes;
      QVector<double> y(N, 0.0);
      for (int n = 0; n < N && static_cast<std::size_t>(n) < nodes.size(); ++n) {
        y[n] = nodes[static_cast<std::size_t>(n)].compute_s * 1e6;
        top = std::max(top, y[n]);
      }
      if (pass == 0) {
        auto* bars = new QCPBars(compute_->xAxis, compute_->yAxis);
        bars->setData(x, y, true);
        bars->setWidth(0.7);
        QColor fill = strategyColour(s);
        fill.setAlpha(190);
        bars->setBrush(fill);
        bars->setPen(QPen(strategyColour(s).darker(120), 0.8));
        bars->setName(shortName(s));  // its legend icon is a filled bar
        bars->setWidthType(QCPBars::wtPlotCoords);
      } else {
        // Steps centred on the nodes: one level per node, no slope between neighbours.
        auto* g = compute_->addGraph();
        g->setData(x, y, true);
        g->setLineStyle(QCPGraph::lsStepCenter);
        g->setPen(QPen(strategyColour(s), 1.8));
        g->setName(shortName(s));
      }
    }
  compute_->xAxis->setTicker(integerTicker(N));
  compute_->xAxis->setRange(-0.6, N - 0.4);
  compute_->yAxis->setRange(0, top > 0 ? top * 1.12 : 1);
  compute_->xAxis->setLabel(tr("mesh node (id = y · X + x)"));
  compute_->yAxis->setLabel(tr("expert compute (µs)"));
  setTitle(compute_, tr("Compute per node: layer %1\nfirst eval batch of %2 tokens")
                         .arg(r.layers[li])
                         .arg(shown_->batch));
  compute_->legend->setVisible(true);
  theme::stylePlot(compute_);
  compute_->replot();
}

}  // namespace stackscope::ui
