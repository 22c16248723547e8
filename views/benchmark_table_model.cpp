// The benchmark table's cells and its CSV form.
#include "views/benchmark_table_model.h"

#include <QLocale>
#include <QStringList>

#include "views/csv.h"

namespace lathe::views {

BenchmarkTableModel::BenchmarkTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void BenchmarkTableModel::addBuild(const BuildBenchmark& build) {
  const int row = static_cast<int>(builds_.size());
  beginInsertRows(QModelIndex(), row, row);
  builds_.append(build);
  endInsertRows();
  // A new baseline changes every speed-up.
  if (row > 0) emit dataChanged(index(0, SpeedUpColumn), index(row - 1, SpeedUpColumn));
}

void BenchmarkTableModel::clear() {
  beginResetModel();
  builds_.clear();
  endResetModel();
}

QString BenchmarkTableModel::toCsv() const {
  QStringList lines;
  lines << QStringLiteral(
      "build,records,tuned_kernels,total_kernels,min_ms,median_ms,max_ms,mean_ms,std_ms,gflops,"
      "speedup,repeat,number");
  const int baseline = baselineIndex(builds_);
  for (const BuildBenchmark& b : builds_) {
    const QStringList fields = {csvField(b.name),
                                csvField(b.recordsPath),
                                QString::number(b.tunedKernels),
                                QString::number(b.totalKernels),
                                csvNumber(b.times.min),
                                csvNumber(b.times.median),
                                csvNumber(b.times.max),
                                csvNumber(b.times.mean),
                                csvNumber(b.times.std),
                                csvNumber(b.gflops()),
                                csvNumber(baseline < 0 ? 0 : speedUp(builds_[baseline], b)),
                                QString::number(b.repeat),
                                QString::number(b.number)};
    lines << fields.join(QLatin1Char(','));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

int BenchmarkTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(builds_.size());
}

int BenchmarkTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant BenchmarkTableModel::value(const BuildBenchmark& b, int column) const {
  switch (column) {
    case BuildColumn:
      return b.name;
    case TunedColumn:
      return b.tunedKernels;
    case MinColumn:
      return b.times.min;
    case MedianColumn:
      return b.times.median;
    case MaxColumn:
      return b.times.max;
    case MeanColumn:
      return b.times.mean;
    case StdColumn:
      return b.times.std;
    case GflopsColumn:
      return b.gflops();
    case SpeedUpColumn: {
      const int baseline = baselineIndex(builds_);
      return baseline < 0 ? 0.0 : speedUp(builds_[baseline], b);
    }
  }
  return {};
}

QString BenchmarkTableModel::tunedText(const BuildBenchmark& b) const {
  if (b.isExternal()) return tr("reference (%1)").arg(b.externalEngine);
  if (!b.externalCodegens.isEmpty())
    return tr("default schedules, %n call(s) to %1", nullptr, b.externalCalls)
        .arg(b.externalCodegens.join(QStringLiteral(", ")));
  if (!b.usesRecords()) return tr("default schedules");
  const QString count = tr("%1 / %2").arg(b.tunedKernels).arg(b.totalKernels);
  // The build still ran; the row says that it equals the default one.
  return b.tunedKernels == 0 ? tr("%1 (no record applies)").arg(count) : count;
}

QVariant BenchmarkTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= builds_.size()) return {};
  const BuildBenchmark& b = builds_[index.row()];
  const QLocale locale;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case BuildColumn:
        return b.name;
      case TunedColumn:
        return tunedText(b);
      case GflopsColumn:
        return locale.toString(b.gflops(), 'f', 2);
      case SpeedUpColumn:
        return index.row() == baselineIndex(builds_)
                   ? tr("baseline")
                   : tr("%1×").arg(locale.toString(value(b, SpeedUpColumn).toDouble(), 'f', 2));
      default:
        return locale.toString(value(b, index.column()).toDouble(), 'f', 3);
    }
  } else if (role == ValueRole) {
    return value(b, index.column());
  } else if (role == Qt::TextAlignmentRole) {
    if (index.column() != BuildColumn && index.column() != TunedColumn)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  } else if (role == Qt::ToolTipRole) {
    QStringList lines;
    if (b.isExternal())
      lines << tr("%1 on the same inputs and threads, in the same run").arg(b.externalEngine);
    else
      lines << (b.usesRecords() ? tr("Records: %1").arg(b.recordsPath)
                                : tr("Every kernel on its default schedule"));
    if (!b.externalCodegens.isEmpty())
      lines << tr("The groups %1 claims run as its calls, the rest as Lathe's kernels")
                   .arg(b.externalCodegens.join(QStringLiteral(", ")));
    if (!b.recordsNote.isEmpty()) lines << b.recordsNote;
    lines << tr("%1 sample(s), each the mean of %n run(s)", nullptr, b.number).arg(b.repeat);
    lines << b.inputs;
    return lines.join(QLatin1Char('\n'));
  }
  return {};
}

QVariant BenchmarkTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case TunedColumn:
        return tr("Distinct kernels compiled with a record's schedule, of all the model's kernels");
      case GflopsColumn:
        return tr("Floating-point operations of one run over the median time");
      case SpeedUpColumn:
        return tr("Median time of the baseline (the build on default schedules) over this one's");
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case BuildColumn:
      return tr("Build");
    case TunedColumn:
      return tr("Tuned kernels");
    case MinColumn:
      return tr("Min (ms)");
    case MedianColumn:
      return tr("Median (ms)");
    case MaxColumn:
      return tr("Max (ms)");
    case MeanColumn:
      return tr("Mean (ms)");
    case StdColumn:
      return tr("Std (ms)");
    case GflopsColumn:
      return tr("GFLOPS");
    case SpeedUpColumn:
      return tr("Speed-up");
  }
  return {};
}

}  // namespace lathe::views
