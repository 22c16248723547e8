// The Benchmark view's per-kernel breakdown, from the profiling executor:
// one row per compiled kernel with how often a run calls it, its time per
// run in every build side by side, its share of the baseline's time and each
// other build's speed-up on it. Rows come slowest first in the baseline.
// Columns follow the builds: Kernel, Calls, one time column per build, Share,
// then one speed-up column per build other than the baseline.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

#include "views/build_benchmark.h"

namespace lathe::views {

class KernelProfileModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  static constexpr int KernelColumn = 0;
  static constexpr int CallsColumn = 1;
  // Numbers for sorting and tests, where the display role has units.
  static constexpr int ValueRole = Qt::UserRole + 1;

  explicit KernelProfileModel(QObject* parent = nullptr);

  void setBuilds(const QList<BuildBenchmark>& builds);
  void clear() { setBuilds({}); }

  int timeColumn(int build) const { return 2 + build; }
  int shareColumn() const { return 2 + static_cast<int>(builds_.size()); }
  // -1 for the baseline, which has no speed-up over itself.
  int speedUpColumn(int build) const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct KernelRow {
    QString kernel;                    // the compiled function
    QStringList nodes;                 // the graph nodes (fused groups) calling it
    std::vector<double> microseconds;  // per run, by build; negative: not in that build
  };
  // The build whose column `column` is a speed-up column of; -1 otherwise.
  int speedUpBuild(int column) const;
  QVariant value(const KernelRow& row, int column) const;

  QList<BuildBenchmark> builds_;
  int baseline_ = -1;
  double baselineTotal_ = 0;  // µs per run
  std::vector<KernelRow> rows_;
};

}  // namespace lathe::views
