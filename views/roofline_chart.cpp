// Draws the roofline from a build's kernel rows and the machine's roofs.
#include "views/roofline_chart.h"

#include <QLocale>
#include <QStringList>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

#include "views/csv.h"

namespace lathe::views {

namespace {

// The largest disc, for the kernel with the largest share; the others' areas
// follow their shares, down to a floor that keeps the smallest visible and
// clickable (those are drawn larger than their share).
constexpr double kMaxDiameter = 34;
constexpr double kMinDiameter = 5;

const QColor kRoofColor(0x4d, 0x4d, 0x4d);

// By bound, apart for readers with a red-green deficiency: blue for compute,
// then warmer the farther from the core.
QColor boundColor(const std::string& bound) {
  static const std::map<std::string, QColor> colors = {{"compute", QColor(0x1f, 0x77, 0xb4)},
                                                       {"L1", QColor(0x9a, 0x4f, 0xc2)},
                                                       {"L2", QColor(0x17, 0xbe, 0xcf)},
                                                       {"L3", QColor(0xff, 0x7f, 0x0e)},
                                                       {"DRAM", QColor(0xc0, 0x39, 0x2b)}};
  const auto it = colors.find(bound);
  return it != colors.end() ? it->second : QColor(0x8c, 0x8c, 0x8c);
}

QString number(double value, int digits) {
  return std::isfinite(value) ? QLocale().toString(value, 'f', digits) : QStringLiteral("∞");
}

double decadeBelow(double v) {
  return std::pow(10.0, std::floor(std::log10(v)));
}
double decadeAbove(double v) {
  return std::pow(10.0, std::ceil(std::log10(v)));
}

bool drawable(const driver::KernelRoofline& row) {
  const double intensity = row.intensity();
  return row.flops > 0 && row.profile.time_us > 0 && row.achieved_gflops > 0 &&
         std::isfinite(intensity) && intensity > 0;
}

}  // namespace

RooflineChart::RooflineChart(QWidget* parent) : QCustomPlot(parent) {
  setObjectName(QStringLiteral("rooflineChart"));
  setMouseTracking(true);
  plotLayout()->insertRow(0);
  QFont titleFont = font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
  titleFont.setBold(true);
  title_ = new QCPTextElement(this, tr("Roofline"), titleFont);
  plotLayout()->addElement(0, 0, title_);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  footnote_ = new QCPTextElement(this, QString(), small);
  footnote_->setTextColor(QColor(0x55, 0x55, 0x55));
  plotLayout()->addElement(2, 0, footnote_);

  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("g"));
    axis->grid()->setSubGridVisible(true);
    QPen subGrid = axis->grid()->subGridPen();
    subGrid.setColor(QColor(0xee, 0xee, 0xee));
    axis->grid()->setSubGridPen(subGrid);
  }
  xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte at the kernel's bounding level)"));
  yAxis->setLabel(tr("Achieved GFLOPS"));
  legend->setVisible(true);
  legend->setFont(small);
  axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  connect(this, &QCustomPlot::afterLayout, this, &RooflineChart::alignRoofLabels);
  clear();
}

void RooflineChart::setModelName(const QString& name) {
  modelName_ = name;
  updateTitle();
  replot();
}

double RooflineChart::totalMicroseconds() const {
  double total = 0;
  for (const driver::KernelRoofline& r : rows_) total += r.profile.time_us;
  return total;
}

void RooflineChart::setRoofline(const QString& build,
                                std::shared_ptr<const driver::MachineRoof> machine,
                                std::vector<driver::KernelRoofline> rows) {
  build_ = build;
  machine_ = std::move(machine);
  rows_ = machine_ ? std::move(rows) : std::vector<driver::KernelRoofline>{};
  points_.clear();
  roofs_.clear();
  roofLabels_.clear();
  clearPlottables();
  clearItems();
  footnote_->setText(QString());
  updateTitle();
  if (!machine_ || !(machine_->peak_gflops > 0)) {
    xAxis->setRange(0.01, 100);
    yAxis->setRange(0.1, 1000);
    replot();
    return;
  }

  const double total = totalMicroseconds();
  double maxShare = 0, undrawnShare = 0;
  int undrawn = 0;
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const driver::KernelRoofline& r = rows_[static_cast<size_t>(i)];
    const double share = total > 0 ? r.profile.time_us / total : 0;
    if (!drawable(r)) {
      ++undrawn;
      undrawnShare += share;
      continue;
    }
    maxShare = std::max(maxShare, share);
    points_.push_back({i, r.intensity(), r.achieved_gflops, 0});
  }

  // The ranges hold every kernel, the ridge points and the peak, in whole decades.
  const double peak = machine_->peak_gflops;
  double xLow = INFINITY, xHigh = 0, yLow = peak, yHigh = peak;
  for (const BandwidthLevel& l : machine_->bandwidth.levels) {
    if (!(l.read_gbps > 0)) continue;
    xLow = std::min(xLow, peak / l.read_gbps);
    xHigh = std::max(xHigh, peak / l.read_gbps);
  }
  for (Point& p : points_) {
    xLow = std::min(xLow, p.intensity);
    xHigh = std::max(xHigh, p.intensity);
    yLow = std::min(yLow, p.gflops);
    // A kernel can beat a peak measured while the machine was busy.
    yHigh = std::max(yHigh, p.gflops);
    const double share = rows_[static_cast<size_t>(p.row)].profile.time_us / total;
    p.diameter = std::max(kMinDiameter, kMaxDiameter * std::sqrt(share / maxShare));
  }
  if (!std::isfinite(xLow)) xLow = xHigh = 1;
  xLow = decadeBelow(xLow / 2);
  xHigh = decadeAbove(xHigh * 2);
  yLow = decadeBelow(yLow / 2);
  yHigh = decadeAbove(yHigh * 2);
  xAxis->setRange(xLow, xHigh);
  yAxis->setRange(yLow, yHigh);
  drawRoofs(xLow, xHigh);

  // One legend entry per bound present, then one graph per disc (its own
  // size), left out of the legend.
  std::map<std::string, bool> bounds;
  for (const Point& p : points_) bounds[rows_[static_cast<size_t>(p.row)].roof.bound] = true;
  for (const char* bound : {"compute", "L1", "L2", "L3", "DRAM"}) {
    if (!bounds.count(bound)) continue;
    auto* entry = new QCPGraph(xAxis, yAxis);
    entry->setName(bound == std::string("compute") ? tr("compute-bound")
                                                   : tr("%1-bound").arg(QLatin1String(bound)));
    entry->setLineStyle(QCPGraph::lsNone);
    QColor fill = boundColor(bound);
    fill.setAlpha(170);
    entry->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, fill.darker(130), fill, kMinDiameter * 2));
  }
  for (const Point& p : points_) {
    const driver::KernelRoofline& r = rows_[static_cast<size_t>(p.row)];
    auto* disc = new QCPGraph(xAxis, yAxis);
    disc->setName(QString::fromStdString(r.profile.node_name));
    disc->removeFromLegend();
    disc->setLineStyle(QCPGraph::lsNone);
    QColor fill = boundColor(r.roof.bound);
    fill.setAlpha(150);
    disc->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(fill.darker(140), 1), fill, p.diameter));
    disc->addData(p.intensity, p.gflops);
  }

  const QLocale locale;
  // Two short lines: an exported chart says what it measured on.
  QString note = tr("Disc area ∝ share of %1 ms").arg(locale.toString(total / 1e3, 'f', 2));
  if (undrawn > 0)
    note += tr(" · %n run(s) without FLOPs (%1 %) in the CSV only", nullptr, undrawn)
                .arg(locale.toString(undrawnShare * 100, 'f', 1));
  note += QLatin1Char('\n') +
          tr("%1, %n thread(s) · roofs at read bandwidth", nullptr, machine_->machine.threads)
              .arg(QString::fromStdString(machine_->machine.cpu));
  footnote_->setText(note);
  replot();
}

void RooflineChart::drawRoofs(double xLow, double xHigh) {
  const double peak = machine_->peak_gflops;
  const QLocale locale;
  QFont labelFont = font();
  labelFont.setPointSizeF(labelFont.pointSizeF() * 0.9);
  auto roofLine = [this](const QString& name, QVector<double> x, QVector<double> y) {
    auto* graph = new QCPGraph(xAxis, yAxis);
    graph->setName(name);
    graph->removeFromLegend();
    graph->setPen(QPen(kRoofColor, 1.6));
    graph->setData(x, y, true);
    roofs_.push_back(graph);
  };
  auto label = [this, &labelFont](const QString& text, double x, double y,
                                  Qt::Alignment align) -> QCPItemText* {
    auto* item = new QCPItemText(this);
    item->position->setType(QCPItemPosition::ptPlotCoords);
    item->position->setCoords(x, y);
    item->setPositionAlignment(align);
    item->setFont(labelFont);
    item->setColor(kRoofColor);
    // Over the discs, on a veil that keeps it readable where one lies below.
    item->setLayer(QStringLiteral("axes"));
    item->setBrush(QColor(255, 255, 255, 190));
    item->setText(text);
    return item;
  };

  // Levels of about the same bandwidth share a label: theirs would overlap.
  constexpr double kSameBandwidth = 2.0;
  std::vector<std::pair<double, QCPItemText*>>& labels = roofLabels_;

  // The peak from the innermost level's ridge on; each level up to its own.
  double firstRidge = xHigh;
  for (const BandwidthLevel& l : machine_->bandwidth.levels) {
    if (!(l.read_gbps > 0)) continue;
    const double ridge = peak / l.read_gbps;
    firstRidge = std::min(firstRidge, ridge);
    if (ridge <= xLow) continue;
    roofLine(tr("%1 roof").arg(QString::fromStdString(l.name)), {xLow, ridge},
             {l.read_gbps * xLow, peak});
    const QString text =
        tr("%1 %2 GB/s").arg(QString::fromStdString(l.name), locale.toString(l.read_gbps, 'f', 0));
    const auto near = std::find_if(labels.begin(), labels.end(), [&](const auto& other) {
      return std::max(other.first, l.read_gbps) <
             kSameBandwidth * std::min(other.first, l.read_gbps);
    });
    if (near != labels.end()) {
      near->second->setText(near->second->text() + QStringLiteral(" · ") + text);
      continue;
    }
    // Near the left, where the line enters the plot, on it (turned along
    // it once the layout is known: alignRoofLabels).
    const double yLow = yAxis->range().lower;
    const double x = std::max(xLow, yLow / l.read_gbps) * 1.5;
    labels.emplace_back(l.read_gbps,
                        label(text, x, l.read_gbps * x, Qt::AlignLeft | Qt::AlignBottom));
  }
  const double peakFrom = std::max(firstRidge, xLow);
  roofLine(tr("peak"), {peakFrom, xHigh}, {peak, peak});
  // Above its right end: the memory roofs' labels meet it at the left.
  label(tr("peak %1 GFLOPS").arg(locale.toString(peak, 'f', 0)), xHigh / 1.15, peak * 1.08,
        Qt::AlignRight | Qt::AlignBottom);
}

void RooflineChart::alignRoofLabels() {
  // The slope of a roof in pixels depends on the axes' decades and size.
  for (const auto& [gbps, item] : roofLabels_) {
    const double x = item->position->coords().x();
    const double dx = xAxis->coordToPixel(x * 10) - xAxis->coordToPixel(x);
    const double dy = yAxis->coordToPixel(gbps * x * 10) - yAxis->coordToPixel(gbps * x);
    item->setRotation(qRadiansToDegrees(std::atan2(dy, dx)));
  }
}

void RooflineChart::updateTitle() {
  QString title = build_.isEmpty() ? tr("Roofline") : tr("Roofline of the %1 build").arg(build_);
  if (!modelName_.isEmpty()) title = modelName_ + QStringLiteral(": ") + title;
  title_->setText(title);
}

QPointF RooflineChart::pointCoords(int point) const {
  const Point& p = points_[static_cast<size_t>(point)];
  return {p.intensity, p.gflops};
}

int RooflineChart::rowAt(const QPointF& pixel) const {
  int best = -1;
  double bestFit = INFINITY;
  for (const Point& p : points_) {
    const double dx = xAxis->coordToPixel(p.intensity) - pixel.x();
    const double dy = yAxis->coordToPixel(p.gflops) - pixel.y();
    // The fraction of its radius the pixel is off: the smaller disc wins
    // where two overlap and the pixel is nearer its centre.
    const double fit = std::hypot(dx, dy) / std::max(p.diameter / 2, 4.0);
    if (fit <= 1 && fit < bestFit) {
      bestFit = fit;
      best = p.row;
    }
  }
  return best;
}

QString RooflineChart::toolTipFor(int row) const {
  if (row < 0 || row >= static_cast<int>(rows_.size())) return {};
  const driver::KernelRoofline& r = rows_[static_cast<size_t>(row)];
  const double total = totalMicroseconds();
  const QLocale locale;
  QStringList lines;
  lines << QStringLiteral("<b>%1</b>")
               .arg(QString::fromStdString(r.profile.node_name).toHtmlEscaped())
        << tr("kernel %1").arg(QString::fromStdString(r.profile.func_name).toHtmlEscaped())
        << tr("time: %1 µs a run, %2 % of the model")
               .arg(locale.toString(r.profile.time_us, 'f', 1),
                    locale.toString(total > 0 ? r.profile.time_us / total * 100 : 0, 'f', 1))
        << tr("achieved: %1 GFLOPS").arg(number(r.achieved_gflops, 1));
  const std::string& bound = r.roof.bound;
  if (!bound.empty()) {
    const std::string level =
        bound == "compute" ? (r.roof.levels.empty() ? "" : r.roof.levels.back().name) : bound;
    lines
        << tr("intensity: %1 FLOP/byte at %2")
               .arg(number(r.intensity(), 2), QString::fromStdString(level))
        << tr("roof: %1 GFLOPS; %2 % of roof")
               .arg(number(r.roof.roof_gflops, 1), number(r.percent_of_roof, 1))
        << tr("bound: %1").arg(bound == "compute" ? tr("compute") : QString::fromStdString(bound));
  }
  for (const driver::WhatIfHint& hint : r.hints)
    lines << tr("<i>What if</i>: %1").arg(QString::fromStdString(hint.text).toHtmlEscaped());
  return QStringLiteral("<p style='white-space:pre-wrap; max-width:480px'>%1</p>")
      .arg(lines.join(QStringLiteral("<br>")));
}

QString RooflineChart::toCsv() const {
  QStringList lines;
  lines << QStringLiteral(
      "group,kernel,task,time_us,share_percent,gflops,dram_gbps,intensity,intensity_level,"
      "roof_gflops,percent_of_roof,bound,what_if");
  const double total = totalMicroseconds();
  for (const driver::KernelRoofline& r : rows_) {
    const bool modelled = !r.roof.bound.empty();
    const std::string level = r.roof.bound == "compute"
                                  ? (r.roof.levels.empty() ? "" : r.roof.levels.back().name)
                                  : r.roof.bound;
    QStringList hints;
    for (const driver::WhatIfHint& hint : r.hints) hints << QString::fromStdString(hint.text);
    const double intensity = r.intensity();
    lines << QStringList{csvField(QString::fromStdString(r.profile.node_name)),
                         csvField(QString::fromStdString(r.profile.func_name)),
                         QString::number(r.task),
                         csvNumber(r.profile.time_us),
                         csvNumber(total > 0 ? r.profile.time_us / total * 100 : 0),
                         csvNumber(r.achieved_gflops),
                         csvNumber(r.dram_gbps),
                         modelled && std::isfinite(intensity) ? csvNumber(intensity) : QString(),
                         modelled ? QString::fromStdString(level) : QString(),
                         modelled ? csvNumber(r.roof.roof_gflops) : QString(),
                         modelled ? csvNumber(r.percent_of_roof) : QString(),
                         QString::fromStdString(r.roof.bound),
                         csvField(hints.join(QStringLiteral(" | ")))}
                 .join(QLatin1Char(','));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void RooflineChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) return;
  const int row = rowAt(event->position());
  if (row >= 0) {
    setCursor(Qt::PointingHandCursor);
    QToolTip::showText(event->globalPosition().toPoint(), toolTipFor(row), this);
  } else {
    unsetCursor();
    QToolTip::hideText();
  }
}

void RooflineChart::mousePressEvent(QMouseEvent* event) {
  QCustomPlot::mousePressEvent(event);
  if (event->button() != Qt::LeftButton) return;
  const int row = rowAt(event->position());
  if (row < 0) return;
  const driver::KernelRoofline& r = rows_[static_cast<size_t>(row)];
  emit kernelClicked(QString::fromStdString(r.profile.node_name),
                     QString::fromStdString(r.workload));
}

}  // namespace lathe::views
