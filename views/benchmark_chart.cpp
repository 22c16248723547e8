// Draws the benchmark chart from the builds' samples.
#include "views/benchmark_chart.h"

#include <QLocale>
#include <algorithm>
#include <iterator>
#include <vector>

namespace lathe::views {

namespace {

// The baseline grey, then colours that stay apart for readers with a
// red-green deficiency.
const QColor kBaselineColor(0x8c, 0x8c, 0x8c);
const QColor kBuildColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                               QColor(0x9a, 0x4f, 0xc2)};

// NumPy's default percentile: linear between the two nearest ranks.
double percentile(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0;
  const double rank = fraction * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(rank);
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (rank - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

QString milliseconds(double ms) {
  const QLocale locale;
  // Three significant digits at least: 0.0123 ms and 123 ms both read well.
  return ms >= 10 ? locale.toString(ms, 'f', 1) : locale.toString(ms, 'f', ms >= 1 ? 2 : 4);
}

}  // namespace

BenchmarkChart::BenchmarkChart(QWidget* parent) : QCustomPlot(parent) {
  setObjectName(QStringLiteral("benchmarkChart"));
  plotLayout()->insertRow(0);
  QFont titleFont = font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
  titleFont.setBold(true);
  title_ = new QCPTextElement(this, tr("Run time per build"), titleFont);
  plotLayout()->addElement(0, 0, title_);
  styleAxes();
  setBuilds({});
}

void BenchmarkChart::styleAxes() {
  QFont labelFont = font();
  xAxis->setLabelFont(labelFont);
  yAxis->setLabelFont(labelFont);
  xAxis->setTickLabelFont(labelFont);
  yAxis->setTickLabelFont(labelFont);
  yAxis->setLabel(tr("Time per run of the model (ms)"));
  xAxis->grid()->setVisible(false);
  xAxis->setSubTicks(false);
  xAxis->setTickLength(0, 4);
  yAxis->grid()->setSubGridVisible(true);
  QPen subGrid = yAxis->grid()->subGridPen();
  subGrid.setColor(QColor(0xe6, 0xe6, 0xe6));
  yAxis->grid()->setSubGridPen(subGrid);
}

int BenchmarkChart::boxCount() const {
  // Plottables are the plot's QObject children (and plottable(i) is not const).
  int count = 0;
  for (const QCPStatisticalBox* box : findChildren<QCPStatisticalBox*>())
    if (!box->data()->isEmpty()) ++count;
  return count;
}

void BenchmarkChart::setBuilds(const QList<BuildBenchmark>& builds) {
  builds_ = builds;
  clearPlottables();
  clearItems();

  const int baseline = baselineIndex(builds_);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  double highest = 0;
  int colorIndex = 0;
  for (int i = 0; i < builds_.size(); ++i) {
    const BuildBenchmark& build = builds_[i];
    const double key = i;
    ticker->addTick(key, build.name);
    std::vector<double> samples = build.times.results;
    if (samples.empty()) continue;
    std::sort(samples.begin(), samples.end());
    highest = std::max(highest, samples.back());

    const QColor color =
        i == baseline ? kBaselineColor
                      : kBuildColors[static_cast<size_t>(colorIndex++) % std::size(kBuildColors)];
    // A pale bar up to the median gives the builds' heights at a glance; the
    // box and whiskers over it show the spread.
    auto* bar = new QCPBars(xAxis, yAxis);
    bar->setName(tr("%1 median").arg(build.name));
    bar->setWidth(0.45);
    QColor barFill = color;
    barFill.setAlpha(35);
    bar->setBrush(barFill);
    bar->setPen(Qt::NoPen);
    bar->addData(key, build.times.median);

    auto* box = new QCPStatisticalBox(xAxis, yAxis);
    box->setName(build.name);
    box->setWidth(0.45);
    box->setWhiskerWidth(0.2);
    QColor fill = color;
    fill.setAlpha(70);
    box->setBrush(fill);
    box->setPen(QPen(color.darker(130), 1.2));
    box->setWhiskerPen(QPen(color.darker(130), 1.2, Qt::SolidLine));
    box->setWhiskerBarPen(QPen(color.darker(130), 1.5));
    box->setMedianPen(QPen(color.darker(160), 2.5));
    box->addData(key, samples.front(), percentile(samples, 0.25), percentile(samples, 0.5),
                 percentile(samples, 0.75), samples.back());

    // Every sample beside the box, so a bimodal or noisy run shows.
    auto* dots = new QCPGraph(xAxis, yAxis);
    dots->setName(tr("%1 samples").arg(build.name));
    dots->setLineStyle(QCPGraph::lsNone);
    QColor dotColor = color.darker(140);
    dotColor.setAlpha(150);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dotColor, 4));
    for (double sample : samples) dots->addData(key + 0.32, sample);

    auto* label = new QCPItemText(this);
    label->setClipToAxisRect(false);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(key, samples.back());
    label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
    label->setPadding(QMargins(0, 0, 0, 6));
    const QString median = tr("median %1 ms").arg(milliseconds(build.times.median));
    if (i == baseline) {
      label->setText(tr("baseline\n%1").arg(median));
    } else if (baseline < 0) {
      label->setText(median);
    } else {
      const double factor = speedUp(builds_[baseline], build);
      const QLocale locale;
      label->setText(factor >= 1 || factor <= 0
                         ? tr("%1× faster\n%2").arg(locale.toString(factor, 'f', 2), median)
                         : tr("%1× slower\n%2").arg(locale.toString(1 / factor, 'f', 2), median));
      QFont bold = font();
      bold.setBold(true);
      label->setFont(bold);
    }
    label->setColor(color.darker(150));
  }
  xAxis->setTicker(ticker);
  xAxis->setRange(-0.6, std::max(1, static_cast<int>(builds_.size())) - 0.4);
  // From zero, so the heights compare as the speed-ups do; headroom for the labels.
  yAxis->setRange(0, highest > 0 ? highest * 1.3 : 1);

  updateTitle();
  replot();
}

void BenchmarkChart::setModelName(const QString& name) {
  modelName_ = name;
  updateTitle();
  replot();
}

void BenchmarkChart::updateTitle() {
  title_->setText(modelName_.isEmpty() ? tr("Run time per build")
                                       : tr("%1: run time per build").arg(modelName_));
  // How the samples were taken, under the build names.
  if (builds_.isEmpty()) {
    xAxis->setLabel(tr("Build"));
  } else {
    const BuildBenchmark& first = builds_.front();
    xAxis->setLabel(first.number == 1 ? tr("Build: %1 samples of one run").arg(first.repeat)
                                      : tr("Build: %1 samples, each the mean of %2 runs")
                                            .arg(first.repeat)
                                            .arg(first.number));
  }
}

}  // namespace lathe::views
