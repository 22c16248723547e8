// The per-kernel table: profile rows (one per kernel call) summed by kernel.
#include "views/kernel_profile_model.h"

#include <QLocale>
#include <algorithm>
#include <map>

namespace lathe::views {

KernelProfileModel::KernelProfileModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelProfileModel::setBuilds(const QList<BuildBenchmark>& builds) {
  beginResetModel();
  builds_ = builds;
  baseline_ = baselineIndex(builds_);
  baselineTotal_ = 0;
  rows_.clear();
  // Every build compiles the same tasks under the same names; a kernel
  // missing from a build (a failed compile of one) shows as "—" there.
  std::map<QString, size_t> rowOf;
  for (int b = 0; b < builds_.size(); ++b) {
    for (const driver::KernelProfile& call : builds_[b].kernels) {
      const QString kernel = QString::fromStdString(call.func_name);
      auto [it, added] = rowOf.try_emplace(kernel, rows_.size());
      if (added)
        rows_.push_back({kernel, {}, std::vector<double>(static_cast<size_t>(builds_.size()), -1)});
      KernelRow& row = rows_[it->second];
      double& us = row.microseconds[static_cast<size_t>(b)];
      us = std::max(us, 0.0) + call.time_us;
      if (b == baseline_) {
        row.nodes << QString::fromStdString(call.node_name);
        baselineTotal_ += call.time_us;
      }
    }
  }
  if (baseline_ >= 0) {
    const size_t base = static_cast<size_t>(baseline_);
    std::stable_sort(rows_.begin(), rows_.end(), [base](const KernelRow& a, const KernelRow& b) {
      return a.microseconds[base] > b.microseconds[base];
    });
  }
  endResetModel();
}

int KernelProfileModel::speedUpColumn(int build) const {
  if (build == baseline_ || build < 0 || build >= builds_.size()) return -1;
  return shareColumn() + 1 + (build < baseline_ ? build : build - 1);
}

int KernelProfileModel::speedUpBuild(int column) const {
  for (int b = 0; b < builds_.size(); ++b)
    if (speedUpColumn(b) == column) return b;
  return -1;
}

int KernelProfileModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelProfileModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || builds_.isEmpty()) return 0;
  return shareColumn() + static_cast<int>(builds_.size());  // the baseline has no speed-up
}

QVariant KernelProfileModel::value(const KernelRow& row, int column) const {
  if (column == KernelColumn) return row.kernel;
  if (column == CallsColumn) return static_cast<int>(row.nodes.size());
  if (column >= timeColumn(0) && column < shareColumn()) {
    const double us = row.microseconds[static_cast<size_t>(column - timeColumn(0))];
    return us < 0 ? QVariant() : QVariant(us);
  }
  const double base = baseline_ >= 0 ? row.microseconds[static_cast<size_t>(baseline_)] : -1;
  if (column == shareColumn())
    return base < 0 || baselineTotal_ <= 0 ? QVariant() : QVariant(100.0 * base / baselineTotal_);
  const int build = speedUpBuild(column);
  if (build < 0) return {};
  const double us = row.microseconds[static_cast<size_t>(build)];
  return base < 0 || us <= 0 ? QVariant() : QVariant(base / us);
}

QVariant KernelProfileModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const KernelRow& row = rows_[static_cast<size_t>(index.row())];
  const int column = index.column();
  if (role == ValueRole) return value(row, column);
  if (role == Qt::DisplayRole) {
    const QVariant v = value(row, column);
    if (column == KernelColumn || column == CallsColumn) return v;
    if (!v.isValid()) return QStringLiteral("—");
    const QLocale locale;
    if (column == shareColumn()) return tr("%1 %").arg(locale.toString(v.toDouble(), 'f', 1));
    if (column > shareColumn()) return tr("%1×").arg(locale.toString(v.toDouble(), 'f', 2));
    return locale.toString(v.toDouble(), 'f', 1);
  }
  if (role == Qt::TextAlignmentRole && column != KernelColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && (column == KernelColumn || column == CallsColumn))
    return tr("Called by %1").arg(row.nodes.join(QStringLiteral(", ")));
  return {};
}

QVariant KernelProfileModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || builds_.isEmpty()) return {};
  const QString baselineName = builds_[baseline_].name;
  if (role == Qt::ToolTipRole) {
    if (section == CallsColumn) return tr("Calls in one run of the model");
    if (section >= timeColumn(0) && section < shareColumn())
      return tr("Time per run of the model, all calls together, mean of the profiled runs");
    if (section == shareColumn())
      return tr("Share of the %1 build's kernel time").arg(baselineName);
    if (const int build = speedUpBuild(section); build >= 0)
      return tr("%1 time over %2 time").arg(baselineName, builds_[build].name);
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  if (section == KernelColumn) return tr("Kernel");
  if (section == CallsColumn) return tr("Calls");
  if (section >= timeColumn(0) && section < shareColumn())
    return tr("%1 (µs)").arg(builds_[section - timeColumn(0)].name);
  if (section == shareColumn()) return tr("Share");
  if (const int build = speedUpBuild(section); build >= 0)
    return tr("%1 speed-up").arg(builds_[build].name);
  return {};
}

}  // namespace lathe::views
