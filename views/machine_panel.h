// The Benchmark view's "Machine" box: the machine the roofline is drawn for
// (CPU, threads, FMA peak, each memory level's read and read+write
// bandwidth), when that was measured, and a button asking for it to be
// measured again. It shows what it is given; the measuring runs elsewhere.
#pragma once

#include <QGroupBox>

#include "driver/machine_roof.h"

class QLabel;
class QPushButton;

namespace lathe::views {

class MachinePanel : public QGroupBox {
  Q_OBJECT

 public:
  explicit MachinePanel(QWidget* parent = nullptr);

  void setMachine(const driver::MachineRoof& machine);
  // Nothing measured on this machine yet, or why it could not be.
  void setUnmeasured(const QString& why);
  // While a measurement runs the button waits, and the box says so.
  void setMeasuring(bool measuring);
  // The button is also held while a benchmark runs: measuring would slow it.
  void setMeasureEnabled(bool enabled);

  QPushButton* measureButton() const { return measureButton_; }
  QLabel* summary() const { return summary_; }

 signals:
  void measureRequested();

 private:
  void updateButton();

  QLabel* summary_ = nullptr;
  QLabel* measuredAt_ = nullptr;
  QPushButton* measureButton_ = nullptr;
  bool measuring_ = false;
  bool enabled_ = true;
};

}  // namespace lathe::views
