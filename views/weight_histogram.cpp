#include "views/weight_histogram.h"

#include <algorithm>
#include <cmath>

namespace lathe::views {

WeightHistogram::WeightHistogram(QWidget* parent) : QCustomPlot(parent) {
  setObjectName(QStringLiteral("weightHistogram"));
  bars_ = new QCPBars(xAxis, yAxis);
  bars_->setPen(Qt::NoPen);
  bars_->setBrush(QColor(70, 120, 190));
  xAxis->setLabel(tr("value"));
  yAxis->setLabel(tr("elements"));
  // Tick labels of values like 1e-5 stay short.
  xAxis->setNumberFormat(QStringLiteral("gb"));
  // A dock is narrow: few ticks, so labels like -0.025 do not run together.
  xAxis->ticker()->setTickCount(4);
  yAxis->ticker()->setTickCount(4);

  meanLine_ = new QCPItemStraightLine(this);
  meanLine_->setPen(QPen(QColor(200, 80, 40), 1, Qt::DashLine));
  meanLine_->setVisible(false);
}

void WeightHistogram::setStatistics(const QString& valueName,
                                    const driver::TensorStatistics& statistics) {
  QVector<double> keys, values;
  for (size_t i = 0; i < statistics.bin_counts.size(); ++i) {
    if (statistics.bin_counts[i] == 0) continue;
    keys << statistics.bin_start(i) + statistics.bin_width() / 2;
    values << static_cast<double>(statistics.bin_counts[i]);
  }
  // One bin (a constant weight): a bar a tenth of its value wide, centred on it.
  const bool single = statistics.bin_counts.size() == 1;
  const double width =
      single ? std::max(std::abs(statistics.min) * 0.1, 1e-6) : statistics.bin_width();
  if (single) keys = {statistics.min};
  bars_->setWidth(width);
  bars_->setData(keys, values, true);
  setToolTip(tr("Values of %1 in %n bin(s); the dashed line is the mean", nullptr,
                static_cast<int>(statistics.bin_counts.size()))
                 .arg(valueName));

  // No finite value: nothing to draw, and no range left from the previous weight.
  const double span = statistics.finite == 0 ? 1.0
                      : single               ? width * 4
                                             : statistics.max - statistics.min;
  const double left = single ? statistics.min - span / 2 : statistics.min;
  xAxis->setRange(left - span * 0.02, left + span * 1.02);
  double highest = 0;
  for (double v : values) highest = std::max(highest, v);
  yAxis->setRange(0, highest > 0 ? highest * 1.08 : 1);
  meanLine_->point1->setCoords(statistics.mean, 0);
  meanLine_->point2->setCoords(statistics.mean, 1);
  meanLine_->setVisible(statistics.finite > 0);
  replot(QCustomPlot::rpQueuedReplot);
}

void WeightHistogram::clearStatistics() {
  bars_->data()->clear();
  setToolTip(QString());
  meanLine_->setVisible(false);
  replot(QCustomPlot::rpQueuedReplot);
}

int WeightHistogram::barCount() const {
  return bars_->dataCount();
}

}  // namespace lathe::views
