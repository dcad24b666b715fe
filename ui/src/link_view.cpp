// SPDX-License-Identifier: GPL-3.0-or-later
// network/topology.hpp first: it has a member named `slots`, which Qt defines as a macro.
#include "stackscope/network/topology.hpp"
// clang-format off
#include "stackscope/ui/link_view.hpp"

#include "stackscope/ui/review_section.hpp"
// clang-format on

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>
#include <map>

#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/expert_map.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/mesh_view.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/result_pane.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

// rows x cols (rows <= cols) as square as possible with rows * cols == n.
std::pair<int, int> squarest(int n) {
  int rows = 1;
  for (int r = 1; r * r <= n; ++r)
    if (n % r == 0) rows = r;
  return {rows, n / rows};
}

// Share of the busiest device's routed tokens 0..1 -> colour: pale to deep violet.
QColor share_colour(double t) {
  const QColor a(0xE8, 0xE4, 0xF2), b(0x4B, 0x1D, 0x8F);
  const double f = std::clamp(t, 0.0, 1.0);
  auto mix = [&](int x, int y) { return static_cast<int>(x + (y - x) * f); };
  return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

// Distinct colours for expert-parallel groups (Tableau 10), cycled.
QColor group_colour(int g) {
  static const QColor c[] = {QColor(0x4E, 0x79, 0xA7), QColor(0xF2, 0x8E, 0x2B),
                             QColor(0x59, 0xA1, 0x4F), QColor(0xE1, 0x57, 0x59),
                             QColor(0x76, 0xB7, 0xB2), QColor(0xED, 0xC9, 0x48),
                             QColor(0xB0, 0x7A, 0xA1), QColor(0xFF, 0x9D, 0xA7),
                             QColor(0x9C, 0x75, 0x5F), QColor(0xBA, 0xB0, 0xAC)};
  return c[static_cast<std::size_t>(std::max(0, g)) % std::size(c)];
}

// The routing and redundancy the expert placement was computed with, for the stats line.
std::string describe_routing(const perf::Design& d) {
  const auto& r = d.workload.routing;
  std::string s;
  switch (r.kind) {
    case workload::RoutingKind::uniform: s = "uniform routing"; break;
    case workload::RoutingKind::zipf:
      s = "Zipf routing (s = " + QString::number(r.zipf_s, 'g', 3).toStdString() + ")";
      break;
    case workload::RoutingKind::dirichlet:
      s = "Dirichlet routing (alpha = " + QString::number(r.dirichlet_alpha, 'g', 3).toStdString() +
          ")";
      break;
    case workload::RoutingKind::trace: s = "traced routing (first MoE layer)"; break;
  }
  const int red = d.parallel.redundant_experts_per_rank;
  if (red > 0) s += ", " + std::to_string(red) + " redundant expert slot(s) per EP rank";
  return s;
}

// Text (black or white) readable on `fill`.
QColor text_on(const QColor& fill) {
  return fill.lightnessF() > 0.5 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace

// The computed picture: node positions in layout units and undirected links with both
// directions' loads.
struct LinkView::Computed {
  struct Edge {
    int a = 0, b = 0, level = 0;
    std::string a_name, b_name;
    double bytes[2][2] = {};  // [phase decode/prefill][direction a->b, b->a]
    double util[2][2] = {};
    bool wrap = false;  // a torus/ring wrap-around link: drawn as an arc
  };
  std::vector<QPointF> pos;  // per node
  std::vector<bool> is_switch;
  std::vector<std::string> names;
  std::vector<Edge> edges;
  std::vector<std::string> level_names;
  QRectF bounds;
  int devices = 0;
  double step_s[2] = {};    // decode step, prefill pass
  perf::ExpertMap experts;  // moe == false for dense models
  std::string routing;      // how tokens are routed, for the legend
  // Devices whose routed tokens are the busiest, when the load is not balanced.
  bool imbalanced() const {
    double lo = 1e300;
    for (const auto& d : experts.devices) lo = std::min(lo, d.tokens);
    return experts.moe && experts.busiest_tokens > lo * (1.0 + 1e-9);
  }
  const perf::DeviceExperts* device(int d) const {
    if (!experts.moe || d < 0 || d >= devices || d >= static_cast<int>(experts.devices.size()))
      return nullptr;
    return &experts.devices[static_cast<std::size_t>(d)];
  }
};

namespace {

QString device_tooltip(const LinkView::Computed& c, int d) {
  const QString name = d < static_cast<int>(c.names.size())
                           ? QString::fromStdString(c.names[static_cast<std::size_t>(d)])
                           : QString::number(d);
  const perf::DeviceExperts* x = c.device(d);
  if (!x) return LinkView::tr("<b>Device %1</b> (%2)").arg(d).arg(name);
  const double share = c.experts.busiest_tokens > 0 ? x->tokens / c.experts.busiest_tokens : 0;
  return LinkView::tr(
             "<b>Device %1</b> (%2)<br>stage %3 · TP rank %4 · EP rank %5"
             "<br>expert-parallel group %6, rank %7 of %8 (expert shard %9 of %10)"
             "<br>routed experts hosted: %11 (%12 redundant)"
             "<br>expected tokens per decode step and MoE layer: %13"
             "<br>%14 % of the busiest device (%15)")
      .arg(d)
      .arg(name)
      .arg(x->stage)
      .arg(x->tp)
      .arg(x->ep)
      .arg(x->ep_group)
      .arg(x->ep_rank)
      .arg(c.experts.moe_ep)
      .arg(x->moe_tp_rank + 1)
      .arg(c.experts.moe_tp)
      .arg(x->experts)
      .arg(x->replicas)
      .arg(QString::number(x->tokens, 'f', 1))
      .arg(QString::number(100 * share, 'f', 1))
      .arg(QString::number(c.experts.busiest_tokens, 'f', 1));
}

}  // namespace

class LinkCanvas : public QWidget {
 public:
  explicit LinkCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(200);
  }
  std::shared_ptr<LinkView::Computed> data;
  int phase = 0;
  int colour = LinkView::kNone;
  bool colouring() const { return colour != LinkView::kNone && data && data->experts.moe; }

 protected:
  // Pixels per layout unit (one device cell), and the layout -> widget mapping.
  double scale() const {
    const QRectF b = data->bounds;
    const QRectF area = QRectF(rect()).adjusted(24, 16, -24, colouring() ? -96 : -44);
    return std::min(area.width() / std::max(1e-9, b.width()),
                    area.height() / std::max(1e-9, b.height()));
  }
  QPointF map(const QPointF& p) const {
    const QRectF b = data->bounds;
    const QRectF area = QRectF(rect()).adjusted(24, 16, -24, colouring() ? -96 : -44);
    const double s = scale();
    const double ox = area.left() + 0.5 * (area.width() - s * b.width());
    const double oy = area.top() + 0.5 * (area.height() - s * b.height());
    return {ox + (p.x() - b.left()) * s, oy + (p.y() - b.top()) * s};
  }
  double radius() const { return std::clamp(0.22 * scale(), 2.0, 9.0); }
  // The device colour key, a row above the link key.
  void drawDeviceKey(QPainter& p) const {
    const auto& x = data->experts;
    const double y = rect().bottom() - 80;
    p.setPen(palette().color(QPalette::Text));
    if (colour == LinkView::kExperts) {
      const QRectF key(rect().left() + 24, y, 120, 10);
      QLinearGradient g(key.topLeft(), key.topRight());
      for (int i = 0; i <= 10; ++i) g.setColorAt(i / 10.0, share_colour(i / 10.0));
      p.setPen(Qt::NoPen);
      p.setBrush(g);
      p.drawRect(key);
      p.setPen(palette().color(QPalette::Text));
      p.drawText(QPointF(key.left(), key.bottom() + 13), QStringLiteral("0 %"));
      p.drawText(QPointF(key.right() - 30, key.bottom() + 13), QStringLiteral("100 %"));
      p.drawText(QRectF(key.right() + 10, key.top() - 3, rect().right() - key.right() - 18, 44),
                 Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                 tr("fill: expected routed tokens per decode step and MoE layer, % of the "
                    "busiest device (%1); number = routed experts hosted; %2")
                     .arg(QString::number(x.busiest_tokens, 'f', 1))
                     .arg(data->imbalanced() ? tr("red outline = busiest device")
                                             : tr("all devices equally loaded")));
      return;
    }
    double left = rect().left() + 24;
    const int shown = std::min(x.ep_groups, 8);
    for (int g = 0; g < shown; ++g) {
      p.setPen(QPen(theme::ink(), 1.0));
      p.setBrush(group_colour(g));
      p.drawRect(QRectF(left, y, 12, 12));
      p.setPen(palette().color(QPalette::Text));
      const QString label = tr("EP group %1").arg(g);
      p.drawText(QPointF(left + 16, y + 10), label);
      left += 16 + p.fontMetrics().horizontalAdvance(label) + 12;
    }
    p.drawText(QPointF(left, y + 10),
               tr("%1%2 expert-parallel groups of %3 devices; number = EP rank in the group")
                   .arg(x.ep_groups > shown ? QStringLiteral("… ") : QString())
                   .arg(x.ep_groups)
                   .arg(x.moe_ep));
  }
  // A wrap-around link (torus, ring) is drawn as two short stubs leaving the grid at both ends.
  QPainterPath edgePath(const LinkView::Computed::Edge& e) const {
    const QPointF a = map(data->pos[static_cast<std::size_t>(e.a)]);
    const QPointF b = map(data->pos[static_cast<std::size_t>(e.b)]);
    QPainterPath path(a);
    if (e.wrap) {
      const QPointF d = a - b;
      const double len = std::max(1e-9, std::hypot(d.x(), d.y()));
      const QPointF out = d * (0.7 * scale() / len);
      path.lineTo(a + out);
      path.moveTo(b);
      path.lineTo(b - out);
    } else {
      path.lineTo(b);
    }
    return path;
  }
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!data || data->pos.empty()) return;
    // Idle links first, the busiest last (on top).
    std::vector<std::size_t> order(data->edges.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto util = [&](std::size_t i) {
      const auto& e = data->edges[i];
      return std::max(e.util[phase][0], e.util[phase][1]);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return util(x) < util(y); });
    for (std::size_t i : order) {
      const double u = util(i);
      QPen pen(utilisationColor(u), 1.0 + 5.0 * std::clamp(u, 0.0, 1.0));
      pen.setCapStyle(Qt::RoundCap);
      if (data->edges[i].wrap) pen.setStyle(Qt::DashLine);
      p.setPen(pen);
      p.setBrush(Qt::NoBrush);
      p.drawPath(edgePath(data->edges[i]));
    }
    const double r = radius();
    const bool coloured = colouring();
    const bool highlight = coloured && colour == LinkView::kExperts && data->imbalanced();
    QFont small = font();
    small.setPixelSize(std::max(7, static_cast<int>(r * 1.1)));
    for (std::size_t n = 0; n < data->pos.size(); ++n) {
      const QPointF c = map(data->pos[n]);
      if (data->is_switch[n]) {
        p.setPen(QPen(theme::ink(), 1.2));
        p.setBrush(palette().color(QPalette::Button));
        p.drawEllipse(c, r * 1.3, r * 1.3);
        continue;
      }
      const QRectF sq(c.x() - r, c.y() - r, 2 * r, 2 * r);
      const perf::DeviceExperts* x = coloured ? data->device(static_cast<int>(n)) : nullptr;
      if (!x) {
        p.setPen(QPen(theme::ink(), 1.0));
        p.setBrush(theme::ink());
        p.drawRect(sq);
        continue;
      }
      const double busiest = data->experts.busiest_tokens;
      const QColor fill = colour == LinkView::kExperts
                              ? share_colour(busiest > 0 ? x->tokens / busiest : 0.0)
                              : group_colour(x->ep_group);
      const bool top = highlight && x->tokens >= busiest * (1.0 - 1e-9);
      p.setPen(top ? QPen(QColor(0xD6, 0x27, 0x28), 3.0) : QPen(theme::ink(), 1.0));
      p.setBrush(fill);
      p.drawRect(sq);
      // Experts hosted (or the EP rank) inside the square when it is big enough to read.
      if (r >= 6) {
        p.setFont(small);
        p.setPen(text_on(fill));
        p.drawText(sq, Qt::AlignCenter,
                   QString::number(colour == LinkView::kExperts ? x->experts : x->ep_rank));
      }
    }
    p.setFont(font());
    if (coloured) drawDeviceKey(p);
    drawUtilisationKey(p, rect(),
                       tr("link utilisation (busy time / %1); grey = idle, dashed = wrap-around")
                           .arg(phase == 0 ? tr("decode step") : tr("prefill pass")),
                       palette().color(QPalette::Text));
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (!data) return;
    const QPointF m = e->position();
    // A device square under the pointer first.
    const double r = radius();
    for (int d = 0; d < data->devices && d < static_cast<int>(data->pos.size()); ++d) {
      const QPointF c = map(data->pos[static_cast<std::size_t>(d)]);
      if (std::abs(c.x() - m.x()) <= r && std::abs(c.y() - m.y()) <= r) {
        QToolTip::showText(e->globalPosition().toPoint(), device_tooltip(*data, d), this);
        return;
      }
    }
    // Nearest link within 6 px.
    double best = 36;
    const LinkView::Computed::Edge* hit = nullptr;
    for (const auto& edge : data->edges) {
      const QPainterPath path = edgePath(edge);
      for (int k = 0; k <= 20; ++k) {
        const QPointF q = path.pointAtPercent(k / 20.0);
        const double d = (q.x() - m.x()) * (q.x() - m.x()) + (q.y() - m.y()) * (q.y() - m.y());
        if (d < best) {
          best = d;
          hit = &edge;
        }
      }
    }
    if (!hit) {
      QToolTip::hideText();
      return;
    }
    const int ph = phase;
    const QString level =
        hit->level < static_cast<int>(data->level_names.size())
            ? QString::fromStdString(data->level_names[static_cast<std::size_t>(hit->level)])
            : QString::number(hit->level);
    QToolTip::showText(
        e->globalPosition().toPoint(),
        tr("<b>%1 ↔ %2</b> (%3)<br>%1 → %2: %4 B, %5 %<br>%2 → %1: %6 B, %7 %<br>per %8")
            .arg(QString::fromStdString(hit->a_name), QString::fromStdString(hit->b_name), level,
                 readable(hit->bytes[ph][0]), QString::number(100 * hit->util[ph][0], 'f', 1),
                 readable(hit->bytes[ph][1]), QString::number(100 * hit->util[ph][1], 'f', 1),
                 ph == 0 ? tr("decode step") : tr("prefill pass")),
        this);
  }
};

LinkView::LinkView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("linkView"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  // Controls for both pictures, then the system network (left) and one device's on-die mesh
  // (right) side by side.
  auto* top = new QHBoxLayout();
  top->addStretch(1);
  top->addWidget(new QLabel(tr("Phase:"), this));
  phase_ = new QComboBox(this);
  phase_->setObjectName(QStringLiteral("linkPhase"));
  phase_->addItems({tr("Decode step"), tr("Prefill pass")});
  top->addWidget(phase_);
  top->addWidget(new QLabel(tr("Colour devices by:"), this));
  colour_ = new QComboBox(this);
  colour_->setObjectName(QStringLiteral("linkDeviceColour"));
  colour_->addItems({tr("none"), tr("experts hosted"), tr("expert-parallel group")});
  top->addWidget(colour_);
  box->addLayout(top);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("linkSplit"));
  split->setChildrenCollapsible(false);
  auto* system = new QWidget(split);
  auto* left = new QVBoxLayout(system);
  left->setContentsMargins(0, 0, 6, 0);
  auto* title = new QLabel(tr("System network: link loads"), system);
  title->setObjectName(QStringLiteral("sectionTitle"));
  left->addWidget(title);
  stats_ = new QLabel(system);
  stats_->setObjectName(QStringLiteral("linkStats"));
  stats_->setWordWrap(true);
  left->addWidget(stats_);
  canvas_ = new LinkCanvas(system);
  canvas_->setObjectName(QStringLiteral("linkCanvas"));
  left->addWidget(canvas_, 1);
  attachExportMenu(canvas_, QStringLiteral("links"));
  note_ = new QLabel(system);
  note_->setObjectName(QStringLiteral("hint"));
  note_->setWordWrap(true);
  left->addWidget(note_);
  mesh_ = new MeshView(split);
  split->addWidget(system);
  // The mesh can be enlarged on its own (a pane inside the Links pane).
  split->addWidget(new ResultPane(QStringLiteral("mesh"), tr("On-die mesh"), mesh_, split));
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  box->addWidget(split, 1);
  connect(phase_, &QComboBox::currentIndexChanged, this, [this](int i) {
    canvas_->phase = std::max(0, i);
    mesh_->setPhase(canvas_->phase);
    redraw();
  });
  connect(colour_, &QComboBox::currentIndexChanged, this, [this](int i) {
    canvas_->colour = std::max(0, i);
    redraw();
  });
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<Computed>>::finished, this,
          &LinkView::onFinished);
  clear();
}

LinkView::~LinkView() {
  watcher_.waitForFinished();
}

void LinkView::clear() {
  computed_.reset();
  canvas_->data.reset();
  stats_->setText(tr("No result: the design is not valid"));
  note_->clear();
  showHint(canvas_, tr("The design is not valid: fix the fields marked in red on the left to "
                       "see the load on each link of its system network"));
  canvas_->update();
  mesh_->clear();
}

void LinkView::showDesign(const perf::Design& design, const perf::Result& result) {
  pending_ = ++generation_;
  const bool moe = parallel::is_moe(design.model);
  colour_->setEnabled(moe);
  colour_->setToolTip(moe ? tr("Colour each device by the routed experts it hosts and its "
                               "expected share of the routed tokens, or by its expert-parallel "
                               "group")
                          : tr("%1 is a dense model: no routed experts to place")
                                .arg(QString::fromStdString(design.model.name)));
  stats_->setText(tr("Routing every collective of the design…"));
  if (!canvas_->data)
    showHint(canvas_, tr("Routing every collective of the design… the load on each link "
                         "appears here"));
  mesh_->showResult(design, result);
  auto job = [design]() {
    auto c = std::make_shared<Computed>();
    if (design.system.levels.empty() || design.system.devices <= 1) return c;
    const network::Topology topo(design.system);
    const auto rep = perf::network_report(design, false);
    c->experts = perf::expert_map(design);
    c->routing = describe_routing(design);
    c->devices = topo.devices();
    c->pos.assign(static_cast<std::size_t>(topo.nodes()), {});
    c->is_switch.assign(static_cast<std::size_t>(topo.nodes()), false);
    for (int n = 0; n < topo.nodes(); ++n) {
      c->names.push_back(topo.node_name(n));
      c->is_switch[static_cast<std::size_t>(n)] = n >= topo.devices();
    }
    for (const auto& l : design.system.levels) c->level_names.push_back(l.name);
    // Space between the blocks of level l, in device cells: wider at higher levels.
    auto gap = [](int l) { return 0.6 * (l + 1); };
    // Nested grid: level l arranges its slots (units of level l-1) in a grid; blocks of higher
    // levels get wider gaps so packages read as groups.
    const int L = topo.levels();
    std::vector<int> cols(static_cast<std::size_t>(L)), slot_count(static_cast<std::size_t>(L));
    std::vector<double> bw(static_cast<std::size_t>(L) + 1, 1.0), bh(bw);
    for (int l = 0; l < L; ++l) {
      const int below = topo.unit_size(l - 1);
      const int s = std::max(1, topo.unit_size(l) / std::max(1, below));
      const auto& lv = design.system.levels[static_cast<std::size_t>(l)];
      auto [rows, cs] = squarest(s);
      const bool grid = lv.topology == hw::Topology::mesh2d || lv.topology == hw::Topology::torus2d;
      if (grid && lv.dims_x > 0 && lv.dims_y > 0 && lv.dims_x * lv.dims_y == s) cs = lv.dims_x;
      if (!grid && s <= 16) cs = s;  // rings, switches, fully connected: one row when short
      cols[static_cast<std::size_t>(l)] = cs;
      slot_count[static_cast<std::size_t>(l)] = s;
      const int rr = (s + cs - 1) / cs;
      bw[static_cast<std::size_t>(l) + 1] = cs * (bw[static_cast<std::size_t>(l)] + gap(l));
      bh[static_cast<std::size_t>(l) + 1] =
          rr * (bh[static_cast<std::size_t>(l)] + gap(l)) + (grid ? 0 : 1.5);
    }
    for (int d = 0; d < topo.devices(); ++d) {
      double x = 0, y = 0;
      for (int l = 0; l < L; ++l) {
        const int below = topo.unit_size(l - 1);
        const int s = slot_count[static_cast<std::size_t>(l)],
                  cs = cols[static_cast<std::size_t>(l)];
        const int slot = (d / std::max(1, below)) % s;
        x += (slot % cs) * (bw[static_cast<std::size_t>(l)] + gap(l));
        y += (slot / cs) * (bh[static_cast<std::size_t>(l)] + gap(l));
      }
      c->pos[static_cast<std::size_t>(d)] = {x, y};
    }
    // Switches: above the devices they connect, one band per level.
    std::map<int, std::vector<int>> attached;
    std::map<int, int> switch_level;
    for (const auto& lk : topo.links()) {
      if (lk.src >= topo.devices() && lk.dst < topo.devices()) {
        attached[lk.src].push_back(lk.dst);
        switch_level[lk.src] = lk.level;
      }
    }
    for (const auto& [sw, devs] : attached) {
      double x = 0, y = 1e300;
      for (int d : devs) {
        x += c->pos[static_cast<std::size_t>(d)].x();
        y = std::min(y, c->pos[static_cast<std::size_t>(d)].y());
      }
      c->pos[static_cast<std::size_t>(sw)] = {x / static_cast<double>(devs.size()),
                                              y - 1.5 - 1.2 * switch_level[sw]};
    }
    // Undirected edges with both directions' loads.
    std::map<std::pair<int, int>, std::size_t> index;
    for (const auto& u : rep.links) {
      const int a = std::min(u.from, u.to), b = std::max(u.from, u.to);
      auto [it, fresh] = index.emplace(std::pair{a, b}, c->edges.size());
      if (fresh) {
        Computed::Edge e;
        e.a = a;
        e.b = b;
        e.level = u.level;
        e.a_name = c->names[static_cast<std::size_t>(a)];
        e.b_name = c->names[static_cast<std::size_t>(b)];
        // Non-neighbours in the layout (torus / ring wrap-around) are arcs.
        const QPointF pa = c->pos[static_cast<std::size_t>(a)],
                      pb = c->pos[static_cast<std::size_t>(b)];
        const bool device_pair = a < topo.devices() && b < topo.devices();
        const double dist = std::hypot(pa.x() - pb.x(), pa.y() - pb.y());
        // Grid neighbours of a level are one block pitch apart; a link along a row or column
        // that spans more than two pitches is a wrap-around.
        const double pitch = bw[static_cast<std::size_t>(u.level)] + gap(u.level);
        const bool aligned = std::abs(pa.x() - pb.x()) < 1e-9 || std::abs(pa.y() - pb.y()) < 1e-9;
        e.wrap = device_pair && aligned && dist > 2.5 * pitch;
        c->edges.push_back(e);
      }
      auto& e = c->edges[it->second];
      const int dir = u.from == e.a ? 0 : 1;
      e.bytes[0][dir] = u.decode_bytes;
      e.util[0][dir] = u.decode_utilisation;
      e.bytes[1][dir] = u.prefill_bytes;
      e.util[1][dir] = u.prefill_utilisation;
    }
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    for (const auto& p : c->pos) {
      x0 = std::min(x0, p.x());
      y0 = std::min(y0, p.y());
      x1 = std::max(x1, p.x());
      y1 = std::max(y1, p.y());
    }
    c->bounds = QRectF(QPointF(x0 - 0.8, y0 - 0.8), QPointF(x1 + 0.8, y1 + 0.8));
    return c;
  };
  watcher_.setFuture(QtConcurrent::run(job));
}

void LinkView::waitForIdle() {
  watcher_.waitForFinished();
  QCoreApplication::processEvents();
}

void LinkView::onFinished() {
  if (!watcher_.isFinished() || watcher_.future().resultCount() == 0) return;
  if (pending_ != generation_) return;
  try {
    computed_ = watcher_.result();
  } catch (const std::exception& e) {
    stats_->setText(tr("Cannot route this design: %1").arg(QString::fromLocal8Bit(e.what())));
    showHint(canvas_, tr("This design cannot be routed (the reason is above): no link loads "
                         "to draw"));
    return;
  }
  canvas_->data = computed_;
  redraw();
}

void LinkView::setDeviceColouring(int mode) {
  colour_->setCurrentIndex(std::clamp(mode, 0, colour_->count() - 1));
}

int LinkView::deviceColouring() const {
  return colour_->currentIndex();
}

bool LinkView::deviceColouringAvailable() const {
  return colour_->isEnabled();
}

int LinkView::expertsOnDevice(int device) const {
  const perf::DeviceExperts* x = computed_ ? computed_->device(device) : nullptr;
  return x ? x->experts : -1;
}

QString LinkView::deviceToolTip(int device) const {
  return computed_ ? device_tooltip(*computed_, device) : QString();
}

int LinkView::linkCount() const {
  return computed_ ? static_cast<int>(computed_->edges.size()) : 0;
}

double LinkView::busiest() const {
  double b = 0;
  if (computed_)
    for (const auto& e : computed_->edges)
      b = std::max({b, e.util[canvas_->phase][0], e.util[canvas_->phase][1]});
  return b;
}

void LinkView::redraw() {
  if (!computed_) return;
  if (computed_->pos.empty()) {
    stats_->setText(tr("One device: no system network to show."));
    note_->clear();
    showHint(canvas_, tr("One device: no system network to draw. Use more devices (System "
                         "network page on the left) to see the load on each link"));
    canvas_->update();
    return;
  }
  hideHint(canvas_);
  int loaded = 0;
  for (const auto& e : computed_->edges)
    if (std::max(e.util[canvas_->phase][0], e.util[canvas_->phase][1]) > 0) ++loaded;
  stats_->setText(tr("%1 devices · %2 links (%3 carry traffic) · busiest %4 % of the %5")
                      .arg(computed_->devices)
                      .arg(computed_->edges.size())
                      .arg(loaded)
                      .arg(QString::number(100 * busiest(), 'f', 1))
                      .arg(canvas_->phase == 0 ? tr("decode step") : tr("prefill pass")));
  if (canvas_->colouring()) {
    const auto& x = computed_->experts;
    stats_->setText(
        stats_->text() +
        tr("<br>%1 routed experts (top-%2) in %3 expert-parallel group(s) of %4 ranks, each "
           "expert split over %5 device(s); %6; batch %7 tokens per decode step")
            .arg(x.routed_experts)
            .arg(x.top_k)
            .arg(x.ep_groups)
            .arg(x.moe_ep)
            .arg(x.moe_tp)
            .arg(QString::fromStdString(computed_->routing))
            .arg(x.step_tokens, 0, 'f', 0));
  }
  QStringList levels;
  for (std::size_t l = 0; l < computed_->level_names.size(); ++l)
    levels << tr("level %1: %2").arg(l).arg(QString::fromStdString(computed_->level_names[l]));
  note_->setText(tr("Squares: devices; circles: switches. %1.").arg(levels.join(QStringLiteral("; "))));
  note_->setToolTip(tr("Loads come from the analytic network model of every collective the "
                       "evaluator costs (stackscope-cli evaluate --links)."));
  canvas_->update();
}

ReviewSection LinkView::reviewSection() const {
  ReviewSection s;
  s.title = tr("Links");
  s.missing = tr("No network to show for this design.");
  const QString stats = plainText(stats_);
  if (stats.isEmpty()) return s;
  s.figures << canvas_;
  s.paragraphs << stats;
  if (const QString t = plainText(note_); !t.isEmpty()) s.paragraphs << t;
  return s;
}

}  // namespace stackscope::ui
