// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab's settings form (serving_form.hpp): the project's serving spec field by field,
// each change one undoable step of the ConfigDocument.
#include "serving_form.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QResizeEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "stackscope/serving/request.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// The ranges of serving::validate() where a widget can hold them (not "kMaxTokens": the Field
// enumerator of that name would hide it inside the class).
constexpr int kRequestLimit = 100'000'000;
constexpr int kTokenLimit = 100'000'000;
constexpr int kInstanceLimit = 65'536;

template <class W>
void setIfDifferent(W* w, decltype(w->value()) v) {
  if (w->value() != v) {
    const QSignalBlocker b(w);
    w->setValue(v);
  }
}

void setData(QComboBox* c, int data) {
  const int i = c->findData(data);
  if (i >= 0 && i != c->currentIndex()) {
    const QSignalBlocker b(c);
    c->setCurrentIndex(i);
  }
}

// A pool's fields in the form's order, under their JSON keys (io/serving.hpp).
constexpr const char* kPoolKeys[6] = {"tp", "pp",           "ep",
                                      "cp", "max_num_seqs", "max_num_batched_tokens"};

// Field k of a pool in the form's order (tp, pp, ep, cp, max_num_seqs, max_num_batched_tokens).
int& poolField(serving::PoolConfig& c, int k) {
  switch (k) {
    case 0: return c.tp;
    case 1: return c.pp;
    case 2: return c.ep;
    case 3: return c.cp;
    case 4: return c.max_num_seqs;
    default: return c.max_num_batched_tokens;
  }
}

bool sameLength(const serving::LengthDist& a, const serving::LengthDist& b) {
  return a.kind == b.kind && a.a == b.a && a.b == b.b && a.max == b.max;
}

}  // namespace

ServingForm::ServingForm(ConfigDocument* doc, QWidget* parent) : QWidget(parent) {
  build();
  connectFields();
  setDocument(doc);
}

void ServingForm::build() {
  grid_ = new QGridLayout(this);
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setHorizontalSpacing(8);
  grid_->setVerticalSpacing(4);
  // The fields flow in label/field pairs, as many to a row as the width holds (reflow()); a
  // cell may take several pairs' room, or start a row of its own.
  const auto cell = [&](const QString& text, QWidget* field, int span = 1, bool newRow = false) {
    auto* l = new QLabel(text, this);
    l->setBuddy(field);
    cells_.push_back({l, field, span, newRow});
  };
  // A row of several widgets, as one field.
  const auto strip = [this](QLayout* layout) {
    auto* w = new QWidget(this);
    layout->setContentsMargins(0, 0, 0, 0);
    w->setLayout(layout);
    return w;
  };
  const auto spin = [this](const char* name, int lo, int hi, const QString& tip) {
    auto* s = new QSpinBox(this);
    s->setObjectName(QString::fromLatin1(name));
    s->setRange(lo, hi);
    s->setGroupSeparatorShown(true);
    s->setToolTip(tip);
    return s;
  };
  const auto dspin = [this](const char* name, double lo, double hi, int decimals,
                            const QString& tip) {
    auto* s = new QDoubleSpinBox(this);
    s->setObjectName(QString::fromLatin1(name));
    s->setRange(lo, hi);
    s->setDecimals(decimals);
    s->setToolTip(tip);
    return s;
  };

  // ---- requests ----
  source_ = new QComboBox(this);
  source_->setObjectName(QStringLiteral("servingSource"));
  source_->addItem(tr("Benchmark"), static_cast<int>(serving::SourceKind::benchmark));
  source_->addItem(tr("Generated"), static_cast<int>(serving::SourceKind::generated));
  source_->addItem(tr("Trace file"), static_cast<int>(serving::SourceKind::trace));
  source_->setToolTip(
      tr("Benchmark: N identical requests all arriving at t = 0, an infinite rate "
         "(trtllm-bench); Generated: N requests from a Poisson or Gamma process at a mean rate "
         "with drawn lengths; Trace: an Azure TIMESTAMP,ContextTokens,GeneratedTokens or "
         "arrival_s,input_tokens,output_tokens CSV"));
  requests_ = spin("servingRequests", 1, kRequestLimit, tr("Requests of a benchmark or generator"));
  rate_ = dspin("servingRate", 0.001, 1e6, 3, tr("Mean arrival rate of the generator (req/s)"));
  arrivals_ = new QComboBox(this);
  arrivals_->setObjectName(QStringLiteral("servingArrivals"));
  arrivals_->addItem(tr("Poisson"), static_cast<int>(serving::ArrivalProcess::Kind::poisson));
  arrivals_->addItem(tr("Gamma"), static_cast<int>(serving::ArrivalProcess::Kind::gamma));
  arrivals_->setToolTip(
      tr("Arrival process: Poisson (exponential gaps) or Gamma gaps of a given coefficient of "
         "variation (bursty traffic when CV > 1)"));
  cv_ = dspin("servingCv", 0.001, 1000, 2,
              tr("Coefficient of variation of the Gamma gaps: 1 = Poisson, > 1 burstier"));
  cv_->setSingleStep(0.25);
  cell(tr("Re&quests from:"), source_);
  cell(tr("Requests:"), requests_);
  cell(tr("Rate (req/s):"), rate_);
  cell(tr("Arrivals:"), arrivals_);
  cell(tr("Gamma CV:"), cv_);

  trace_ = new QLineEdit(this);
  trace_->setObjectName(QStringLiteral("servingTrace"));
  trace_->setPlaceholderText(tr("CSV trace file"));
  trace_->setToolTip(tr("A trace in a project file is relative to the project's folder"));
  browse_ = new QPushButton(tr("Browse…"), this);
  browse_->setObjectName(QStringLiteral("servingBrowse"));
  auto* traceRow = new QHBoxLayout();
  traceRow->addWidget(trace_, 1);
  traceRow->addWidget(browse_);
  cell(tr("Trace file:"), strip(traceRow), 3);
  cells_.back().label->setBuddy(trace_);
  timeScale_ = dspin("servingTimeScale", 1e-6, 1e6, 3,
                     tr("Trace arrivals this many times faster (2 = twice the request rate)"));
  seed_ = spin("servingSeed", 0, 2'147'483'647, tr("Seed of the generated arrivals and lengths"));
  seed_->setGroupSeparatorShown(false);
  cell(tr("Time scale:"), timeScale_);
  cell(tr("Seed:"), seed_);

  // ---- lengths and instances ----
  const QString lengthTip =
      tr("Tokens per request: N, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA (a benchmark needs "
         "a fixed N)");
  input_ = new QLineEdit(this);
  input_->setObjectName(QStringLiteral("servingInput"));
  input_->setToolTip(lengthTip);
  output_ = new QLineEdit(this);
  output_->setObjectName(QStringLiteral("servingOutput"));
  output_->setToolTip(lengthTip);
  instances_ =
      spin("servingInstances", 0, kInstanceLimit,
           tr("Co-located instances, each a replica of the design's plan; dp = as many as the "
              "design has replicas (its dp)"));
  instances_->setSpecialValueText(tr("dp"));
  prefill_ = spin("servingPrefill", 0, kInstanceLimit,
                  tr("Prefill/decode disaggregation (Splitwise, DistServe): prefill instances; "
                     "the KV cache of each request moves to a decode instance over the "
                     "system's network. off:off = co-located"));
  prefill_->setSpecialValueText(tr("off"));
  prefill_->setPrefix(tr("P "));
  decode_ = spin("servingDecode", 0, kInstanceLimit,
                 tr("Prefill/decode disaggregation: decode instances (off:off = co-located)"));
  decode_->setSpecialValueText(tr("off"));
  decode_->setPrefix(tr("D "));
  auto* pools = new QHBoxLayout();
  pools->setSpacing(4);
  pools->addWidget(prefill_, 1);
  pools->addWidget(decode_, 1);
  router_ = new QComboBox(this);
  router_->setObjectName(QStringLiteral("servingRouter"));
  router_->addItem(tr("round-robin"), static_cast<int>(serving::Router::round_robin));
  router_->addItem(tr("shortest queue"), static_cast<int>(serving::Router::join_shortest_queue));
  router_->addItem(tr("least KV"), static_cast<int>(serving::Router::least_kv));
  router_->setToolTip(
      tr("Which instance takes a request: round-robin, join the shortest queue (fewest waiting "
         "or running), or the lowest KV-cache use"));
  cell(tr("Input (tok):"), input_);
  cell(tr("Output (tok):"), output_);
  cell(tr("Instances:"), instances_);
  cell(tr("Disaggregate:"), strip(pools));
  cells_.back().label->setBuddy(prefill_);

  // ---- scheduler (vLLM names; TensorRT-LLM's in simulator.hpp) ----
  concurrency_ = spin("servingConcurrency", 0, 1 << 30,
                      tr("Closed loop: at most this many requests in the system, the next when "
                         "one finishes (trtllm-bench --concurrency, vLLM --max-concurrency)"));
  concurrency_->setSpecialValueText(tr("open"));
  maxSeqs_ = spin("servingMaxSeqs", 1, 1 << 20,
                  tr("Running sequences per instance (vLLM max_num_seqs, TensorRT-LLM "
                     "max_batch_size)"));
  maxTokens_ = spin("servingMaxTokens", 1, kTokenLimit,
                    tr("Token budget of one iteration (vLLM max_num_batched_tokens, TensorRT-LLM "
                       "max_num_tokens)"));
  blockSize_ = spin("servingBlockSize", 1, 1 << 16,
                    tr("Tokens per KV-cache block (vLLM block_size 16, TensorRT-LLM "
                       "tokens_per_block 32)"));
  maxModelLen_ = spin("servingMaxModelLen", 0, kTokenLimit,
                      tr("Longest input + output admitted; longer requests are rejected (vLLM "
                         "max_model_len)"));
  maxModelLen_->setSpecialValueText(tr("no limit"));
  // Fields with long items (the router, the KV policy, the pools) share columns with short
  // labels, so the form fits the window's view area.
  cell(tr("Concurrency:"), concurrency_);
  cell(tr("Max seqs:"), maxSeqs_);
  cell(tr("Max tokens:"), maxTokens_);
  cell(tr("Max length:"), maxModelLen_);
  cell(tr("KV block:"), blockSize_);
  cell(tr("Router:"), router_);
  // Who splits prefill from decode, and how the scheduler is sized (runs/serve.hpp).
  split_ = new QComboBox(this);
  split_->setObjectName(QStringLiteral("servingSplit"));
  split_->addItem(tr("by design"), static_cast<int>(serving::Partitioning::by_design));
  split_->addItem(tr("as given"), static_cast<int>(serving::Partitioning::given));
  split_->addItem(tr("central scheduler"), static_cast<int>(serving::Partitioning::automatic));
  split_->setToolTip(
      tr("Who splits the devices between prefill and decode instances: by design (the central "
         "scheduler on a wafer without a given split, else the instances or disaggregation "
         "above), as given, or the central scheduler on any system (it runs the candidate "
         "splits on the requests and keeps the best goodput; stackscope-cli serve --partition "
         "auto)"));
  sizing_ = new QComboBox(this);
  sizing_->setObjectName(QStringLiteral("servingSizing"));
  sizing_->addItem(tr("as given"), static_cast<int>(serving::SchedulerSizing::as_given));
  sizing_->addItem(tr("trtllm-bench"), static_cast<int>(serving::SchedulerSizing::trtllm_bench));
  sizing_->setToolTip(
      tr("The scheduler's limits as given here, or as TensorRT-LLM's trtllm-bench sizes them "
         "from the requests' mean lengths for one replica (max_batch_size, max_num_tokens, "
         "32-token KV blocks, 95 % of free memory for the KV cache; stackscope-cli serve "
         "--scheduler trtllm-bench)"));
  cell(tr("Split:"), split_);
  cell(tr("Sizing:"), sizing_);

  chunked_ = new QCheckBox(tr("chunked"), this);
  chunked_->setObjectName(QStringLiteral("servingChunked"));
  chunked_->setToolTip(
      tr("Split prompts over iterations within the token budget (vLLM enable_chunked_prefill, "
         "TensorRT-LLM enable_chunked_context)"));
  kvPolicy_ = new QComboBox(this);
  kvPolicy_->setObjectName(QStringLiteral("servingKvPolicy"));
  kvPolicy_->addItem(tr("max utilization"), static_cast<int>(serving::KvPolicy::max_utilization));
  kvPolicy_->addItem(tr("no evict"), static_cast<int>(serving::KvPolicy::guaranteed_no_evict));
  kvPolicy_->setToolTip(
      tr("max utilization: allocate KV blocks as tokens are scheduled and preempt on a shortage "
         "(vLLM); no evict: reserve each request's whole length at admission (TensorRT-LLM "
         "GUARANTEED_NO_EVICT)"));
  kvFraction_ = dspin("servingKvFraction", 0.001, 1, 3,
                      tr("Share of the memory left after weights and activations given to the KV "
                         "cache (TensorRT-LLM kv_cache_free_gpu_mem_fraction, 0.9 there)"));
  kvFraction_->setSingleStep(0.05);
  sloTtft_ = dspin("servingSloTtft", 0, 1e6, 3,
                   tr("Time-to-first-token SLO of goodput (requests meeting both SLOs)"));
  sloTtft_->setSpecialValueText(tr("none"));
  sloTpot_ = dspin("servingSloTpot", 0, 1e6, 1, tr("Time-per-output-token SLO of goodput, in ms"));
  sloTpot_->setSpecialValueText(tr("none"));
  cell(tr("Prefill:"), chunked_);
  cell(tr("KV fraction:"), kvFraction_);
  cell(tr("SLO TTFT (s):"), sloTtft_);
  cell(tr("SLO TPOT (ms):"), sloTpot_);
  cell(tr("KV policy:"), kvPolicy_);
  // ---- co-located instances of their own plans behind the router ----
  groups_ = new QLineEdit(this);
  groups_->setObjectName(QStringLiteral("servingInstanceGroups"));
  groups_->setPlaceholderText(
      tr("none: the instance count above, replicas of the design; groups of their own plans "
         "e.g. 2:tp=2+1:tp=4,max-seqs=128"));
  groups_->setToolTip(
      tr("Co-located instances of their own plans behind one router, on consecutive devices: "
         "groups COUNT[:KEY=VALUE,...] joined by '+' with keys tp, pp, ep, cp, max-seqs, "
         "max-tokens (0 or absent = the design's or the scheduler's), e.g. "
         "2:tp=2+1:tp=4,max-seqs=128. Replaces the instance count; clear it to disaggregate"));
  // ---- the pools' own plans and limits (DistServe sizes each pool's parallelism on its own) ----
  for (int p = 0; p < 2; ++p) {
    const QString pool = p == 0 ? tr("prefill") : tr("decode");
    const QString name =
        p == 0 ? QStringLiteral("servingPrefillPool") : QStringLiteral("servingDecodePool");
    auto* plan = new QHBoxLayout();
    plan->setSpacing(4);
    static constexpr const char* kDegree[4] = {"tensor", "pipeline", "expert", "context"};
    for (int k = 0; k < 6; ++k) {
      const QString key = QString::fromLatin1(kPoolKeys[k]);
      const QString tip =
          k < 4 ? tr("The %1 pool's %2-parallel degree; (N) = the design's N. A changed degree "
                     "derives the pool's per-module plans from its own degrees")
                      .arg(pool, QString::fromLatin1(kDegree[k]))
                : tr("The %1 pool's %2; (N) = the scheduler's N above").arg(pool, key);
      auto* w = spin("", 0, k < 4 ? kInstanceLimit : (k == 4 ? 1 << 20 : kTokenLimit), tip);
      w->setObjectName(name + QLatin1Char('_') + key);  // "servingDecodePool_tp"
      pool_[p][k] = w;
      if (k < 4) {
        w->setPrefix(key + QLatin1Char(' '));
        plan->addWidget(w, 1);
      }
    }
    cell(p == 0 ? tr("Prefill pool:") : tr("Decode pool:"), strip(plan), 2, true);
    cells_.back().label->setBuddy(pool_[p][0]);
    cell(tr("Max seqs:"), pool_[p][4]);
    cell(tr("Max tokens:"), pool_[p][5]);
  }
  cell(tr("Instance groups:"), groups_, kMaxPairs, true);
  setDesignPlan(1, 1, 1, 1);

  // Narrow minimums, so the form fits the view area of the default 1440 px window: a spin box
  // asks for the width of its largest value ("100,000,000"); the column stretch gives the fields
  // more wherever there is room. A combo box keeps room for its longest item.
  const int digits = fontMetrics().horizontalAdvance(QStringLiteral("0000000"));
  for (auto* w : findChildren<QAbstractSpinBox*>()) w->setMinimumWidth(digits + 24);
  for (auto* w : {prefill_, decode_}) w->setMinimumWidth(digits * 4 / 7 + 24);
  for (auto& pool : pool_)
    for (int k = 0; k < 4; ++k) pool[k]->setMinimumWidth(digits * 4 / 7 + 24);
  for (auto* c : findChildren<QComboBox*>()) {
    int longest = 0;
    for (int i = 0; i < c->count(); ++i)
      longest = std::max(longest, fontMetrics().horizontalAdvance(c->itemText(i)));
    c->setMinimumWidth(longest + 32);
  }
  // The width each count of pairs per row needs, measured on the grid laid out so.
  for (int n = kMinPairs; n <= kMaxPairs; ++n) {
    reflow(n);
    minWidth_[n] = grid_->minimumSize().width();
  }
  // The form may be as narrow as its fewest pairs per row allow (the layout would otherwise
  // hold it at the current count's width, and a wider count would never give way).
  setMinimumWidth(minWidth_[kMinPairs]);

  const std::pair<const char*, QWidget*> paths[] = {
      {"source", source_},
      {"requests", requests_},
      {"rate_per_s", rate_},
      {"arrivals", arrivals_},
      {"cv", cv_},
      {"seed", seed_},
      {"trace", trace_},
      {"time_scale", timeScale_},
      {"input_len", input_},
      {"output_len", output_},
      {"instances", instances_},
      {"instance_groups", groups_},
      {"disaggregate", prefill_},
      {"disaggregate/prefill", prefill_},
      {"disaggregate/decode", decode_},
      {"router", router_},
      {"partition", split_},
      {"scheduler_sizing", sizing_},
      {"concurrency", concurrency_},
      {"scheduler/max_num_seqs", maxSeqs_},
      {"scheduler/max_num_batched_tokens", maxTokens_},
      {"scheduler/block_size", blockSize_},
      {"scheduler/max_model_len", maxModelLen_},
      {"scheduler/chunked_prefill", chunked_},
      {"scheduler/kv_policy", kvPolicy_},
      {"scheduler/kv_cache_fraction", kvFraction_},
      {"slo/ttft_s", sloTtft_},
      {"slo/tpot_s", sloTpot_},
  };
  for (const auto& [path, w] : paths) {
    byPath_[QStringLiteral("/serving/") + QString::fromLatin1(path)] = w;
    w->setProperty("baseTip", w->toolTip());
  }
  for (int p = 0; p < 2; ++p)
    for (int k = 0; k < 6; ++k) {
      byPath_[QStringLiteral("/serving/disaggregate/%1_pool/%2")
                  .arg(p == 0 ? QStringLiteral("prefill") : QStringLiteral("decode"),
                       QString::fromLatin1(kPoolKeys[k]))] = pool_[p][k];
      pool_[p][k]->setProperty("baseTip", pool_[p][k]->toolTip());
    }
}

int ServingForm::pairsFor(int width) const {
  int n = kMaxPairs;
  while (n > kMinPairs && minWidth_[n] > width) --n;
  return n;
}

void ServingForm::reflow(int pairs) {
  if (pairs == pairs_) return;
  pairs_ = pairs;
  for (const Cell& c : cells_) {
    grid_->removeWidget(c.label);
    grid_->removeWidget(c.field);
  }
  int row = 0, col = 0;
  for (const Cell& c : cells_) {
    const int span = std::min(c.span, pairs);
    if ((c.newRow && col > 0) || col + span > pairs) {
      ++row;
      col = 0;
    }
    grid_->addWidget(c.label, row, 2 * col, Qt::AlignRight);
    grid_->addWidget(c.field, row, 2 * col + 1, 1, 2 * span - 1);
    col += span;
  }
  for (int k = 0; k < 2 * kMaxPairs; ++k)
    grid_->setColumnStretch(k, k % 2 == 1 && k < 2 * pairs ? 1 : 0);
}

void ServingForm::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  reflow(pairsFor(e->size().width()));
}

void ServingForm::connectFields() {
  using S = serving::ServingSpec;
  connect(source_, &QComboBox::currentIndexChanged, this, [this] {
    const auto v = static_cast<serving::SourceKind>(source_->currentData().toInt());
    commit(kSource, tr("Requests from"), [v](S& s) { s.source = v; });
  });
  connect(arrivals_, &QComboBox::currentIndexChanged, this, [this] {
    const auto v = static_cast<serving::ArrivalProcess::Kind>(arrivals_->currentData().toInt());
    commit(kArrivals, tr("Arrivals"), [v](S& s) { s.arrivals = v; });
  });
  connect(router_, &QComboBox::currentIndexChanged, this, [this] {
    const auto v = static_cast<serving::Router>(router_->currentData().toInt());
    commit(kRouter, tr("Router"), [v](S& s) { s.router = v; });
  });
  connect(split_, &QComboBox::currentIndexChanged, this, [this] {
    const auto v = static_cast<serving::Partitioning>(split_->currentData().toInt());
    commit(kPartitioning, tr("Split"), [v](S& s) { s.partitioning = v; });
  });
  connect(sizing_, &QComboBox::currentIndexChanged, this, [this] {
    const auto v = static_cast<serving::SchedulerSizing>(sizing_->currentData().toInt());
    commit(kSizing, tr("Scheduler sizing"), [v](S& s) { s.sizing = v; });
  });
  connect(kvPolicy_, &QComboBox::currentIndexChanged, this, [this] {
    const auto v = static_cast<serving::KvPolicy>(kvPolicy_->currentData().toInt());
    commit(kKvPolicy, tr("KV policy"), [v](S& s) { s.scheduler.kv_policy = v; });
  });
  connect(chunked_, &QCheckBox::toggled, this, [this](bool on) {
    commit(kChunked, tr("Chunked prefill"), [on](S& s) { s.scheduler.chunked_prefill = on; });
  });
  const auto ints = [this](QSpinBox* w, Field f, const QString& name, auto set) {
    connect(w, &QSpinBox::valueChanged, this,
            [this, f, name, set](int v) { commit(f, name, [&](S& s) { set(s, v); }); });
  };
  ints(requests_, kRequests, tr("Requests"),
       [](S& s, int v) { s.requests = static_cast<std::size_t>(v); });
  ints(seed_, kSeed, tr("Seed"), [](S& s, int v) { s.seed = static_cast<std::uint64_t>(v); });
  ints(instances_, kInstances, tr("Instances"), [](S& s, int v) { s.instances = v; });
  ints(prefill_, kPrefill, tr("Prefill instances"),
       [](S& s, int v) { s.disaggregate.prefill = v; });
  ints(decode_, kDecode, tr("Decode instances"), [](S& s, int v) { s.disaggregate.decode = v; });
  for (int p = 0; p < 2; ++p) {
    static constexpr const char* kNames[6] = {"TP", "PP", "EP", "CP", "max seqs", "max tokens"};
    for (int k = 0; k < 6; ++k) {
      const QString name = (p == 0 ? tr("Prefill pool %1") : tr("Decode pool %1"))
                               .arg(QString::fromLatin1(kNames[k]));
      ints(pool_[p][k], static_cast<Field>(kPrefillTp + 6 * p + k), name, [p, k](S& s, int v) {
        poolField(p == 0 ? s.disaggregate.prefill_pool : s.disaggregate.decode_pool, k) = v;
      });
    }
  }
  ints(concurrency_, kConcurrency, tr("Concurrency"), [](S& s, int v) { s.concurrency = v; });
  ints(maxSeqs_, kMaxSeqs, tr("Max sequences"), [](S& s, int v) { s.scheduler.max_num_seqs = v; });
  ints(maxTokens_, kMaxTokens, tr("Max batched tokens"),
       [](S& s, int v) { s.scheduler.max_num_batched_tokens = v; });
  ints(blockSize_, kBlockSize, tr("KV block size"),
       [](S& s, int v) { s.scheduler.block_size = v; });
  ints(maxModelLen_, kMaxModelLen, tr("Max model length"),
       [](S& s, int v) { s.scheduler.max_model_len = v; });
  const auto doubles = [this](QDoubleSpinBox* w, Field f, const QString& name, auto set) {
    connect(w, &QDoubleSpinBox::valueChanged, this,
            [this, f, name, set](double v) { commit(f, name, [&](S& s) { set(s, v); }); });
  };
  doubles(rate_, kRate, tr("Rate"), [](S& s, double v) { s.rate_per_s = v; });
  doubles(cv_, kCv, tr("Gamma CV"), [](S& s, double v) { s.cv = v; });
  doubles(timeScale_, kTimeScale, tr("Time scale"), [](S& s, double v) { s.time_scale = v; });
  doubles(kvFraction_, kKvFraction, tr("KV fraction"),
          [](S& s, double v) { s.scheduler.kv_cache_fraction = v; });
  doubles(sloTtft_, kSloTtft, tr("SLO TTFT"), [](S& s, double v) { s.slo.ttft_s = v; });
  doubles(sloTpot_, kSloTpot, tr("SLO TPOT"), [](S& s, double v) { s.slo.tpot_s = v / 1e3; });
  connect(trace_, &QLineEdit::textChanged, this, [this](const QString& t) {
    const std::string file = t.trimmed().toStdString();
    commit(kTrace, tr("Trace file"), [&](S& s) { s.trace = file; });
  });
  connect(input_, &QLineEdit::textChanged, this,
          [this] { lengthEdited(kInput, input_, tr("input length")); });
  connect(output_, &QLineEdit::textChanged, this,
          [this] { lengthEdited(kOutput, output_, tr("output length")); });
  connect(groups_, &QLineEdit::textChanged, this, &ServingForm::groupsEdited);
  connect(browse_, &QPushButton::clicked, this, &ServingForm::browseTrace);
}

void ServingForm::setDocument(ConfigDocument* doc) {
  if (doc_ == doc) return;
  if (doc_) disconnect(doc_, nullptr, this, nullptr);
  doc_ = doc;
  pending_.clear();
  connect(doc_, &ConfigDocument::changed, this, [this] {
    // Own edits are shown already; a design edit leaves the settings (and any text being typed)
    // alone.
    if (committing_ || doc_->serving() == shown_) return;
    refresh();
    Q_EMIT edited();
  });
  refresh();
  Q_EMIT edited();
}

void ServingForm::setDesignDp(int dp) {
  instances_->setSpecialValueText(tr("dp (%1)").arg(dp));  // 0: the design's replicas
}

void ServingForm::setWafer(bool wafer) {
  const QString off = wafer ? tr("auto") : tr("off");
  prefill_->setSpecialValueText(off);
  decode_->setSpecialValueText(off);
  const QString tip =
      wafer ? tr("0 (auto): the central scheduler picks the prefill/decode split, each pool's "
                 "plan and the placement on the die mesh for goodput")
            : QString();
  prefill_->setToolTip(tip);
  decode_->setToolTip(tip);
  if (wafer) instances_->setSpecialValueText(tr("n/a (wafer)"));
}

void ServingForm::setDesignPlan(int tp, int pp, int ep, int cp) {
  const int degrees[4] = {tp, pp, ep, cp};
  for (auto& pool : pool_)
    for (int k = 0; k < 4; ++k)
      pool[k]->setSpecialValueText(
          QStringLiteral("%1 (%2)").arg(QString::fromLatin1(kPoolKeys[k])).arg(degrees[k]));
}

void ServingForm::setLengthTexts(const QString& input, const QString& output) {
  input_->setText(input);
  output_->setText(output);
}

QString ServingForm::pendingError() const {
  return pending_.empty() ? QString() : pending_.begin()->second;
}

void ServingForm::commit(Field field, const QString& name,
                         const std::function<void(serving::ServingSpec&)>& change) {
  serving::ServingSpec next = doc_->serving();
  change(next);
  if (!(next == doc_->serving())) {
    committing_ = true;
    doc_->editServing(next, tr("Edit %1").arg(name), field);
    committing_ = false;
    shown_ = next;
  }
  updateEnabled();
  Q_EMIT edited();
}

void ServingForm::lengthEdited(Field field, QLineEdit* edit, const QString& name) {
  try {
    const auto d =
        serving::parse_length_dist(edit->text().trimmed().toStdString(), name.toStdString());
    pending_.erase(field);
    commit(field, name,
           [&](serving::ServingSpec& s) { (field == kInput ? s.input : s.output) = d; });
  } catch (const ConfigError& e) {
    // Not recorded: the spec keeps its last valid value until the text parses again.
    pending_[field] = e.issues().empty() ? QString::fromLocal8Bit(e.what())
                                         : qs(format_issue(e.issues().front()));
    Q_EMIT edited();
  }
}

void ServingForm::groupsEdited() {
  const std::string text = groups_->text().trimmed().toStdString();
  try {
    const auto groups = text.empty() ? std::vector<serving::InstanceGroup>{}
                                     : serving::parse_instance_groups(text, "instance groups");
    pending_.erase(kInstanceGroups);
    // Groups give the instance counts (validate() holds instances to 0 beside them).
    commit(kInstanceGroups, tr("instance groups"), [&](serving::ServingSpec& s) {
      s.instance_groups = groups;
      if (!groups.empty()) s.instances = 0;
    });
  } catch (const ConfigError& e) {
    pending_[kInstanceGroups] = e.issues().empty() ? QString::fromLocal8Bit(e.what())
                                                   : qs(format_issue(e.issues().front()));
    Q_EMIT edited();
  }
}

void ServingForm::refresh() {
  const serving::ServingSpec& s = doc_->serving();
  shown_ = s;
  setData(source_, static_cast<int>(s.source));
  setIfDifferent(requests_, static_cast<int>(std::min<std::size_t>(s.requests, kRequestLimit)));
  setIfDifferent(rate_, s.rate_per_s);
  setData(arrivals_, static_cast<int>(s.arrivals));
  setIfDifferent(cv_, s.cv);
  setIfDifferent(seed_, static_cast<int>(std::min<std::uint64_t>(s.seed, 2'147'483'647)));
  if (trace_->text().trimmed().toStdString() != s.trace) {
    const QSignalBlocker b(trace_);
    trace_->setText(qs(s.trace));
  }
  setIfDifferent(timeScale_, s.time_scale);
  // A length text is rewritten only when it does not already say the spec's value (so
  // "lognormal:512:0.80" stays as typed).
  for (auto [field, edit, d] :
       {std::tuple{kInput, input_, &s.input}, std::tuple{kOutput, output_, &s.output}}) {
    bool same = false;
    try {
      same = sameLength(serving::parse_length_dist(edit->text().toStdString(), "length"), *d);
    } catch (const ConfigError&) {
    }
    if (!same) {
      const QSignalBlocker b(edit);
      edit->setText(qs(serving::length_dist_text(*d)));
      edit->setCursorPosition(0);  // the kind first ("lognormal:..."), if the field is narrow
    }
    pending_.erase(field);
  }
  setIfDifferent(instances_, s.instances);
  {
    // Rewritten only when it does not already say the spec's groups ("2:tp=2" stays as typed
    // beside an equal "2:tp=2,max-seqs=0").
    bool same = false;
    try {
      const std::string text = groups_->text().trimmed().toStdString();
      same = (text.empty()
                  ? std::vector<serving::InstanceGroup>{}
                  : serving::parse_instance_groups(text, "instance groups")) == s.instance_groups;
    } catch (const ConfigError&) {
    }
    if (!same) {
      const QSignalBlocker b(groups_);
      groups_->setText(qs(serving::instance_groups_text(s.instance_groups)));
    }
    pending_.erase(kInstanceGroups);
  }
  setIfDifferent(prefill_, s.disaggregate.prefill);
  setIfDifferent(decode_, s.disaggregate.decode);
  setData(router_, static_cast<int>(s.router));
  setData(split_, static_cast<int>(s.partitioning));
  setData(sizing_, static_cast<int>(s.sizing));
  setIfDifferent(concurrency_, s.concurrency);
  setIfDifferent(maxSeqs_, s.scheduler.max_num_seqs);
  setIfDifferent(maxTokens_, s.scheduler.max_num_batched_tokens);
  setIfDifferent(blockSize_, s.scheduler.block_size);
  setIfDifferent(maxModelLen_, s.scheduler.max_model_len);
  if (chunked_->isChecked() != s.scheduler.chunked_prefill) {
    const QSignalBlocker b(chunked_);
    chunked_->setChecked(s.scheduler.chunked_prefill);
  }
  setData(kvPolicy_, static_cast<int>(s.scheduler.kv_policy));
  setIfDifferent(kvFraction_, s.scheduler.kv_cache_fraction);
  setIfDifferent(sloTtft_, s.slo.ttft_s);
  setIfDifferent(sloTpot_, s.slo.tpot_s * 1e3);
  for (int p = 0; p < 2; ++p) {
    serving::PoolConfig c = p == 0 ? s.disaggregate.prefill_pool : s.disaggregate.decode_pool;
    for (int k = 0; k < 6; ++k) setIfDifferent(pool_[p][k], poolField(c, k));
    pool_[p][4]->setSpecialValueText(
        QStringLiteral("(%1)").arg(QLocale().toString(s.scheduler.max_num_seqs)));
    pool_[p][5]->setSpecialValueText(
        QStringLiteral("(%1)").arg(QLocale().toString(s.scheduler.max_num_batched_tokens)));
  }
  updateEnabled();
}

void ServingForm::updateEnabled() {
  const serving::ServingSpec& s = doc_->serving();
  const bool trace = s.source == serving::SourceKind::trace;
  const bool generated = s.source == serving::SourceKind::generated;
  requests_->setEnabled(!trace);
  for (QWidget* w : {static_cast<QWidget*>(rate_), static_cast<QWidget*>(arrivals_),
                     static_cast<QWidget*>(seed_)})
    w->setEnabled(generated);
  cv_->setEnabled(generated && s.arrivals == serving::ArrivalProcess::Kind::gamma);
  for (QWidget* w : {static_cast<QWidget*>(trace_), static_cast<QWidget*>(browse_),
                     static_cast<QWidget*>(timeScale_)})
    w->setEnabled(trace);
  input_->setEnabled(!trace);
  output_->setEnabled(!trace);
  // The groups stay editable beside disaggregation, so a spec holding both (validate()'s
  // error, marked on the field) can be mended here.
  instances_->setEnabled(!s.disaggregate.enabled() && s.instance_groups.empty());
  for (auto& pool : pool_)
    for (auto* w : pool) w->setEnabled(s.disaggregate.enabled());
  // Under trtllm-bench's sizing rule the scheduler's own limits are not used.
  const bool given = s.sizing == serving::SchedulerSizing::as_given;
  for (QWidget* w : {static_cast<QWidget*>(maxSeqs_), static_cast<QWidget*>(maxTokens_),
                     static_cast<QWidget*>(blockSize_), static_cast<QWidget*>(chunked_),
                     static_cast<QWidget*>(kvPolicy_), static_cast<QWidget*>(kvFraction_)})
    w->setEnabled(given);
}

void ServingForm::showIssues(const std::vector<Issue>& issues) {
  std::map<QWidget*, QStringList> marks;
  for (const auto& i : issues) {
    // The field of the path, or of its nearest parent that has one.
    QString path = qs(i.path);
    auto it = byPath_.find(path);
    while (it == byPath_.end() && path.lastIndexOf(QLatin1Char('/')) > 0) {
      path.truncate(path.lastIndexOf(QLatin1Char('/')));
      it = byPath_.find(path);
    }
    if (it != byPath_.end()) marks[it->second] << qs(format_issue(i));
  }
  for (const auto& [field, text] : pending_)
    marks[field == kInput    ? static_cast<QWidget*>(input_)
          : field == kOutput ? static_cast<QWidget*>(output_)
                             : static_cast<QWidget*>(groups_)]
        << text;
  for (const auto& [path, w] : byPath_) {
    const auto it = marks.find(w);
    theme::markField(w, it != marks.end() ? it->second : QStringList());
  }
}

void ServingForm::browseTrace() {
  const QString start = trace_->text().isEmpty() ? QString() : QFileInfo(trace_->text()).path();
  const QString f = QFileDialog::getOpenFileName(this, tr("Request trace"), start,
                                                 tr("CSV traces (*.csv *.csv.gz);;All files (*)"));
  if (!f.isEmpty()) trace_->setText(f);
}

}  // namespace stackscope::ui
