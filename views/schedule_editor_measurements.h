// The schedule editor's measurements, one row per press of Measure: median
// and best time, GFLOPS, the fraction of the machine's peak and the check of
// the outputs against the reference kernels. An item model without widgets.
#pragma once

#include <QAbstractTableModel>
#include <QDateTime>
#include <QList>
#include <QString>

namespace lathe::views {

struct ScheduleMeasurement {
  QDateTime when;
  double median_ms = 0;
  double best_ms = 0;
  double gflops = 0;
  double peak_gflops = 0;  // the machine's FMA peak on all threads; 0 when unknown
  double max_error = 0;    // normalized, against the reference
  bool correct = false;    // max_error within the tolerance
  int runs = 0;
  QString schedule;  // the text measured, shown as the row's tooltip

  double percentOfPeak() const { return peak_gflops > 0 ? 100.0 * gflops / peak_gflops : 0; }
};

class MeasurementTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    TimeColumn,
    MedianColumn,
    BestColumn,
    GflopsColumn,
    PeakColumn,
    ErrorColumn,
    CheckColumn,
    ColumnCount
  };
  // Numbers for sorting and tests, where the display role has units.
  static constexpr int ValueRole = Qt::UserRole + 1;

  explicit MeasurementTableModel(QObject* parent = nullptr);

  void addMeasurement(const ScheduleMeasurement& measurement);
  void clear();
  const QList<ScheduleMeasurement>& measurements() const { return rows_; }

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QList<ScheduleMeasurement> rows_;
};

}  // namespace lathe::views
