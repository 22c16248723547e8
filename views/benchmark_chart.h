// The Benchmark view's chart: one box per build over its run-time samples —
// whiskers at min and max, the box between the quartiles, a line at the
// median — with every sample as a dot beside it and the build's speed-up
// over the baseline written above. Saves itself as PNG or PDF (QCustomPlot).
#pragma once

#include <qcustomplot.h>
#include <QList>

#include "views/build_benchmark.h"

namespace lathe::views {

class BenchmarkChart : public QCustomPlot {
  Q_OBJECT

 public:
  explicit BenchmarkChart(QWidget* parent = nullptr);

  // Named in the title, so an exported chart says what it measured.
  void setModelName(const QString& name);
  void setBuilds(const QList<BuildBenchmark>& builds);
  const QList<BuildBenchmark>& builds() const { return builds_; }
  // Boxes drawn: one per build with samples.
  int boxCount() const;

  QSize sizeHint() const override { return {560, 380}; }

 private:
  void styleAxes();

  void updateTitle();

  QList<BuildBenchmark> builds_;
  QString modelName_;
  QCPTextElement* title_ = nullptr;
};

}  // namespace lathe::views
