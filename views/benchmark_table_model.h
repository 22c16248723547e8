// The Benchmark view's table: one row per build measured, with how many of
// its kernels a record scheduled, its run-time summary, GFLOPS and its
// speed-up over the baseline build. An item model without widgets; it also
// writes itself as CSV.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QString>

#include "views/build_benchmark.h"

namespace lathe::views {

class BenchmarkTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    BuildColumn,
    TunedColumn,
    MinColumn,
    MedianColumn,
    MaxColumn,
    MeanColumn,
    StdColumn,
    GflopsColumn,
    SpeedUpColumn,
    ColumnCount
  };
  // Numbers for sorting and tests, where the display role has units.
  static constexpr int ValueRole = Qt::UserRole + 1;

  explicit BenchmarkTableModel(QObject* parent = nullptr);

  void addBuild(const BuildBenchmark& build);
  void clear();
  const QList<BuildBenchmark>& builds() const { return builds_; }

  // A header line and one line per build, numbers unformatted (ms, GFLOPS),
  // for a spreadsheet or a script.
  QString toCsv() const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant value(const BuildBenchmark& build, int column) const;
  QString tunedText(const BuildBenchmark& build) const;

  QList<BuildBenchmark> builds_;
};

}  // namespace lathe::views
