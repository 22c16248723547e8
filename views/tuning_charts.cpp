// The tuning charts: plot setup, curves per task, legend and ranges.
#include "views/tuning_charts.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QSplitter>
#include <algorithm>
#include <iterator>

namespace lathe::views {

namespace {

// The legend names the selected task and the heaviest others; the task table
// shows every task's color, so a model with forty kernels keeps a legend that fits.
constexpr int kLegendTasks = 4;
constexpr int kLegendNameLength = 26;
const QColor kTunedColor(0x1f, 0x6f, 0xb2);
const QColor kDefaultColor(0x7f, 0x7f, 0x7f);
const QString kSelectedLayer = QStringLiteral("selected");

// A plot laid out top to bottom: title, a line on how to read it, the axes,
// and the legend in `legendColumns` columns under them, where it covers no curve.
QCustomPlot* makePlot(const QString& title, const QString& subtitle, const QString& xLabel,
                      const QString& yLabel, int legendColumns) {
  auto* plot = new QCustomPlot;
  plot->setAutoAddPlottableToLegend(false);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->setNoAntialiasingOnDrag(true);
  plot->setMinimumSize(300, 220);
  QCPLayoutGrid* layout = plot->plotLayout();
  layout->insertRow(0);
  layout->insertRow(0);
  QFont titleFont = plot->font();
  titleFont.setBold(true);
  layout->addElement(0, 0, new QCPTextElement(plot, title, titleFont));
  QFont small = plot->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  auto* note = new QCPTextElement(plot, subtitle, small);
  note->setTextColor(QColor(0x5f, 0x5f, 0x5f));
  layout->addElement(1, 0, note);
  plot->axisRect()->insetLayout()->take(plot->legend);
  layout->addElement(3, 0, plot->legend);
  // Only the axes grow; the text rows and the legend keep their natural height.
  for (int row : {0, 1, 3}) layout->setRowStretchFactor(row, 0.001);
  layout->setRowSpacing(0);

  plot->legend->setFont(small);
  plot->legend->setBrush(Qt::NoBrush);
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, false);
  plot->legend->setWrap(legendColumns);
  plot->legend->setColumnSpacing(14);
  plot->legend->setRowSpacing(0);
  plot->legend->setMargins(QMargins(6, 0, 6, 4));
  plot->legend->setVisible(true);

  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(yLabel);
  // Charts of values that grow from nothing: both axes start at zero.
  plot->xAxis->setRange(0, 1);
  plot->yAxis->setRange(0, 1);
  plot->addLayer(kSelectedLayer, plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
  return plot;
}

QString legendName(const driver::TaskStatus& task) {
  // Every task's kernel is a fused group: the prefix tells the legend's reader nothing.
  QString name = QString::fromStdString(task.name);
  if (name.startsWith(QLatin1String("fused_"))) name = name.mid(6);
  if (name.size() > kLegendNameLength) name = name.left(kLegendNameLength - 1) + QChar(0x2026);
  return QStringLiteral("#%1 %2").arg(task.id).arg(name);
}

}  // namespace

TuningCharts::TuningCharts(QWidget* parent) : QWidget(parent) {
  gflopsPlot_ = makePlot(tr("Best GFLOPS per task"),
                         tr("colors as in the task table · bold: the selected task · dots: its "
                            "measured candidates"),
                         tr("trials of the task"), tr("best GFLOPS"), 2);
  gflopsPlot_->setObjectName(QStringLiteral("tuningGflopsPlot"));
  // Trial numbers are whole.
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  gflopsPlot_->xAxis->setTicker(ticker);

  latencyPlot_ = makePlot(tr("Estimated end-to-end latency"),
                          tr("Σ weight × latency over the tasks measured so far"),
                          tr("elapsed time (s)"), tr("estimated latency (ms)"), 2);
  latencyPlot_->setObjectName(QStringLiteral("tuningLatencyPlot"));

  defaultLatency_ = latencyPlot_->addGraph();
  defaultLatency_->setName(tr("default schedules"));
  QPen dashed(kDefaultColor, 1.6, Qt::DashLine);
  defaultLatency_->setPen(dashed);
  defaultLatency_->setLineStyle(QCPGraph::lsStepLeft);
  defaultLatency_->addToLegend();
  tunedLatency_ = latencyPlot_->addGraph();
  tunedLatency_->setName(tr("best schedules found"));
  tunedLatency_->setPen(QPen(kTunedColor, 2.2));
  tunedLatency_->setLineStyle(QCPGraph::lsStepLeft);
  tunedLatency_->addToLegend();

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setChildrenCollapsible(false);
  splitter->addWidget(gflopsPlot_);
  splitter->addWidget(latencyPlot_);
  // Equal halves: a plot's size hint is its legend's width, not what it needs.
  splitter->setSizes({1000, 1000});
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  connect(gflopsPlot_, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable* plottable, int, QMouseEvent*) {
            if (plottable == candidates_ && selected_ >= 0) emit taskClicked(selected_);
            for (size_t i = 0; i < tasks_.size(); ++i)
              if (tasks_[i].graph == plottable) emit taskClicked(static_cast<int>(i));
          });
  // Zooming or dragging holds the ranges still; a double click fits the data again.
  auto holdRanges = [](QCustomPlot* plot, bool& follow) {
    QObject::connect(plot, &QCustomPlot::mouseWheel, plot, [&follow] { follow = false; });
    QObject::connect(plot, &QCustomPlot::mouseMove, plot, [&follow](QMouseEvent* event) {
      if (event->buttons() != Qt::NoButton) follow = false;
    });
  };
  holdRanges(gflopsPlot_, followGflops_);
  holdRanges(latencyPlot_, followLatency_);
  connect(gflopsPlot_, &QCustomPlot::mouseDoubleClick, this, [this] {
    followGflops_ = true;
    refitGflops();
    gflopsPlot_->replot(QCustomPlot::rpQueuedReplot);
  });
  connect(latencyPlot_, &QCustomPlot::mouseDoubleClick, this, [this] {
    followLatency_ = true;
    refitLatency();
    latencyPlot_->replot(QCustomPlot::rpQueuedReplot);
  });
  gflopsPlot_->setToolTip(
      tr("Click a curve to select its task; wheel zooms, drag pans, double "
         "click fits the data"));
  latencyPlot_->setToolTip(
      tr("Sum over the tasks measured so far of weight × latency: with the best schedule found "
         "(solid) and with the default schedules (dashed)"));

  setTasks({});
}

QColor TuningCharts::taskColor(int index) {
  // Tableau 10, its grey swapped for navy (grey is the default-schedule line);
  // later rounds darken, then lighten, so forty tasks stay told apart.
  static const QColor kPalette[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                                    QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2),
                                    QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48),
                                    QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
                                    QColor(0x9c, 0x75, 0x5f), QColor(0x2f, 0x4b, 0x7c)};
  constexpr int kColors = static_cast<int>(std::size(kPalette));
  const QColor base = kPalette[index % kColors];
  switch ((index / kColors) % 3) {
    case 1:
      return base.darker(150);
    case 2:
      return base.lighter(140);
  }
  return base;
}

QList<QColor> TuningCharts::taskColors() const {
  QList<QColor> colors;
  for (size_t i = 0; i < tasks_.size(); ++i) colors << taskColor(static_cast<int>(i));
  return colors;
}

QCPGraph* TuningCharts::taskGraph(int index) const {
  return index >= 0 && index < static_cast<int>(tasks_.size())
             ? tasks_[static_cast<size_t>(index)].graph
             : nullptr;
}

void TuningCharts::setTasks(const std::vector<driver::TaskStatus>& tasks) {
  gflopsPlot_->clearGraphs();
  tasks_.clear();
  selected_ = -1;
  maxTrial_ = maxGflops_ = maxElapsedS_ = maxLatencyMs_ = 0;
  followGflops_ = followLatency_ = true;

  // First, so every curve draws over the dots.
  candidates_ = gflopsPlot_->addGraph();
  candidates_->setLineStyle(QCPGraph::lsNone);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const driver::TaskStatus& t = tasks[i];
    TaskSeries series;
    series.graph = gflopsPlot_->addGraph();
    series.graph->setName(legendName(t));
    series.graph->setLineStyle(QCPGraph::lsStepLeft);
    series.work = static_cast<double>(t.flops) * t.weight;
    // A task resumed from records starts where its records left it.
    if (t.best_gflops > 0) {
      series.graph->addData(t.trials, t.best_gflops);
      maxTrial_ = std::max(maxTrial_, static_cast<double>(t.trials));
      maxGflops_ = std::max(maxGflops_, t.best_gflops);
    }
    tasks_.push_back(std::move(series));
  }
  for (size_t i = 0; i < tasks_.size(); ++i) styleTaskGraph(static_cast<int>(i));
  tunedLatency_->data()->clear();
  defaultLatency_->data()->clear();
  updateLegend();
  refitGflops();
  refitLatency();
  gflopsPlot_->replot(QCustomPlot::rpQueuedReplot);
  latencyPlot_->replot(QCustomPlot::rpQueuedReplot);
}

void TuningCharts::styleTaskGraph(int index) {
  QCPGraph* graph = tasks_[static_cast<size_t>(index)].graph;
  QColor color = taskColor(index);
  const bool selected = index == selected_;
  // With a task selected the others step back, so its curve reads at a glance.
  if (selected_ >= 0 && !selected) color.setAlpha(150);
  graph->setPen(QPen(color, selected ? 2.8 : 1.5));
  graph->setLayer(selected ? kSelectedLayer : QStringLiteral("main"));
}

void TuningCharts::setSelectedTask(int index) {
  if (index < -1 || index >= static_cast<int>(tasks_.size())) index = -1;
  if (index == selected_) return;
  selected_ = index;
  for (size_t i = 0; i < tasks_.size(); ++i) styleTaskGraph(static_cast<int>(i));
  candidates_->data()->clear();
  if (selected_ >= 0) {
    const TaskSeries& s = tasks_[static_cast<size_t>(selected_)];
    candidates_->setData(s.trials, s.gflops);
    QColor dot = taskColor(selected_);
    dot.setAlpha(150);
    candidates_->setPen(QPen(dot));
    candidates_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, dot, 5));
  }
  updateLegend();
  gflopsPlot_->replot(QCustomPlot::rpQueuedReplot);
}

void TuningCharts::updateLegend() {
  gflopsPlot_->legend->clearItems();
  std::vector<int> order(tasks_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    return tasks_[static_cast<size_t>(a)].work > tasks_[static_cast<size_t>(b)].work;
  });
  std::vector<int> named;
  if (selected_ >= 0) named.push_back(selected_);
  for (int i : order)
    if (static_cast<int>(named.size()) < kLegendTasks && i != selected_) named.push_back(i);
  std::sort(named.begin(), named.end());
  for (int i : named) tasks_[static_cast<size_t>(i)].graph->addToLegend();
}

void TuningCharts::addTrial(const driver::TrialEvent& trial,
                            const driver::TuningProgress& progress) {
  const size_t i = static_cast<size_t>(trial.task_index);
  if (trial.task_index < 0 || i >= tasks_.size() || i >= progress.tasks.size()) return;
  TaskSeries& s = tasks_[i];
  if (trial.error_kind == "none" && trial.gflops > 0) {
    s.trials.append(trial.trial);
    s.gflops.append(trial.gflops);
    if (trial.task_index == selected_) candidates_->addData(trial.trial, trial.gflops);
  }
  const double best = progress.tasks[i].best_gflops;
  if (best > 0) {
    s.graph->addData(trial.trial, best);
    maxGflops_ = std::max(maxGflops_, best);
  }
  maxTrial_ = std::max(maxTrial_, static_cast<double>(trial.trial));
  refitGflops();
  gflopsPlot_->replot(QCustomPlot::rpQueuedReplot);
  addEstimate(progress);
}

void TuningCharts::addEstimate(const driver::TuningProgress& progress) {
  const double t = progress.elapsed_s;
  if (progress.estimated_latency_ms > 0) {
    tunedLatency_->addData(t, progress.estimated_latency_ms);
    maxLatencyMs_ = std::max(maxLatencyMs_, progress.estimated_latency_ms);
  }
  if (progress.estimated_default_ms > 0) {
    defaultLatency_->addData(t, progress.estimated_default_ms);
    maxLatencyMs_ = std::max(maxLatencyMs_, progress.estimated_default_ms);
  }
  maxElapsedS_ = std::max(maxElapsedS_, t);
  refitLatency();
  latencyPlot_->replot(QCustomPlot::rpQueuedReplot);
}

void TuningCharts::refitGflops() {
  if (!followGflops_) return;
  gflopsPlot_->xAxis->setRange(0, std::max(maxTrial_, 1.0) * 1.04 + 0.5);
  gflopsPlot_->yAxis->setRange(0, maxGflops_ > 0 ? maxGflops_ * 1.12 : 1.0);
}

void TuningCharts::refitLatency() {
  if (!followLatency_) return;
  latencyPlot_->xAxis->setRange(0, std::max(maxElapsedS_, 1.0) * 1.04);
  latencyPlot_->yAxis->setRange(0, maxLatencyMs_ > 0 ? maxLatencyMs_ * 1.15 : 1.0);
}

}  // namespace lathe::views
