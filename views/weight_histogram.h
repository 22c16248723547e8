// The inspector's histogram of a weight's values (QCustomPlot bars over the
// bins of driver::TensorStatistics), with the mean marked.
#pragma once

#include <qcustomplot.h>

#include "driver/tensor_statistics.h"

namespace lathe::views {

class WeightHistogram : public QCustomPlot {
  Q_OBJECT

 public:
  explicit WeightHistogram(QWidget* parent = nullptr);

  void setStatistics(const QString& valueName, const driver::TensorStatistics& statistics);
  void clearStatistics();
  // Bars drawn: one per non-empty bin.
  int barCount() const;

  QSize sizeHint() const override { return {320, 180}; }

 private:
  QCPBars* bars_ = nullptr;
  QCPItemStraightLine* meanLine_ = nullptr;
};

}  // namespace lathe::views
