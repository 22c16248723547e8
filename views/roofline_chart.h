// The Benchmark view's roofline (QCustomPlot, log-log): arithmetic intensity
// in FLOP/byte across, GFLOPS up; the machine's roofs as lines (the FMA peak
// level, and one sloped line per memory level at its read bandwidth); one
// disc per kernel run of a build, at the kernel's intensity (at its bounding
// level) and achieved GFLOPS, its area in proportion to its share of the
// model's time and its colour its bound. Hovering a disc tells the numbers
// and the what-if hints; clicking one asks to open its kernel. Saves itself
// as PNG or PDF; its kernels as CSV.
#pragma once

#include <qcustomplot.h>
#include <QString>
#include <memory>
#include <vector>

#include "driver/kernel_roofline.h"

namespace lathe::views {

class RooflineChart : public QCustomPlot {
  Q_OBJECT

 public:
  explicit RooflineChart(QWidget* parent = nullptr);

  // Named in the title, so an exported chart says what it shows.
  void setModelName(const QString& name);
  // The kernels of build `build` under `machine`'s roofs; no machine clears the chart.
  void setRoofline(const QString& build, std::shared_ptr<const driver::MachineRoof> machine,
                   std::vector<driver::KernelRoofline> rows);
  void clear() { setRoofline({}, nullptr, {}); }

  const std::vector<driver::KernelRoofline>& rows() const { return rows_; }
  // Discs drawn: kernel runs with FLOPs and a time (a copy has no intensity
  // to place it at, and stays in the CSV only).
  int pointCount() const { return static_cast<int>(points_.size()); }
  // Lines drawn for the roofs: the peak and one per memory level.
  int roofCount() const { return static_cast<int>(roofs_.size()); }
  QCPGraph* roofGraph(int index) const { return roofs_[static_cast<size_t>(index)]; }
  // Where disc `point` is, in plot coordinates (intensity, GFLOPS), and which row it draws.
  QPointF pointCoords(int point) const;
  int pointRow(int point) const { return points_[static_cast<size_t>(point)].row; }
  // The row of the disc under `pixel` (the nearest whose disc holds it), or -1.
  int rowAt(const QPointF& pixel) const;
  // What hovering row `row`'s disc shows.
  QString toolTipFor(int row) const;

  // One line per kernel run, as the profile table: group, kernel, time,
  // share, GFLOPS, DRAM GB/s, intensity, roof, % of roof, bound, hints.
  QString toCsv() const;

  QSize sizeHint() const override { return {560, 380}; }

 signals:
  // A kernel's disc was clicked: its fused group (the profile's node name)
  // and the workload id of the task running it.
  void kernelClicked(const QString& group, const QString& workload);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  struct Point {
    int row = 0;
    double intensity = 0, gflops = 0;
    double diameter = 0;  // pixels
  };
  void drawRoofs(double xLow, double xHigh);
  void alignRoofLabels();
  void updateTitle();
  double totalMicroseconds() const;

  QString build_;
  QString modelName_;
  std::shared_ptr<const driver::MachineRoof> machine_;
  std::vector<driver::KernelRoofline> rows_;
  std::vector<Point> points_;
  std::vector<QCPGraph*> roofs_;
  std::vector<std::pair<double, QCPItemText*>> roofLabels_;  // by read bandwidth
  QCPTextElement* title_ = nullptr;
  QCPTextElement* footnote_ = nullptr;
};

}  // namespace lathe::views
