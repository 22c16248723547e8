#include "views/fused_group_model.h"

#include "views/number_format.h"

namespace lathe::views {

FusedGroupModel::FusedGroupModel(QObject* parent) : QAbstractTableModel(parent) {}

void FusedGroupModel::setGroups(const Graph& graph, const std::vector<driver::FusedGroup>& groups) {
  beginResetModel();
  rows_.clear();
  rows_.reserve(groups.size());
  for (const driver::FusedGroup& group : groups) {
    Row row;
    row.id = group.id;
    row.kernel = QString::fromStdString(group.name);
    QStringList ops;
    for (int n : group.nodes) {
      const Node& node = graph.nodes[static_cast<size_t>(n)];
      ops << QString::fromStdString(node.op);
      row.nodes << QString::fromStdString(node.name);
    }
    row.flops = driver::group_flops(graph, group);
    row.ops = ops.join(QStringLiteral(" → "));
    if (group.anchor >= 0)
      row.anchor = QString::fromStdString(graph.nodes[static_cast<size_t>(group.anchor)].name);
    QStringList outputs;
    for (ValueId v : group.outputs) outputs << QString::fromStdString(graph.type(v).to_string());
    row.output = outputs.join(QStringLiteral(", "));
    rows_.push_back(std::move(row));
  }
  endResetModel();
}

void FusedGroupModel::setTasks(const std::vector<driver::KernelTask>& tasks) {
  for (Row& row : rows_) row.task = -1;
  for (const driver::KernelTask& task : tasks)
    for (int group : task.groups)
      if (group >= 0 && group < static_cast<int>(rows_.size()))
        rows_[static_cast<size_t>(group)].task = task.id;
  if (!rows_.empty()) emit dataChanged(index(0, TaskColumn), index(rowCount() - 1, TaskColumn));
}

void FusedGroupModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int FusedGroupModel::rowOfNode(const QString& name) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].nodes.contains(name)) return static_cast<int>(i);
  return -1;
}

int FusedGroupModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FusedGroupModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant FusedGroupModel::displayData(const Row& row, int column) const {
  switch (column) {
    case GroupColumn:
      return row.id;
    case KernelColumn:
      return row.kernel;
    case OpsColumn:
      return row.ops;
    case OutputColumn:
      return row.output;
    case FlopsColumn:
      return siNumber(static_cast<double>(row.flops), QStringLiteral("FLOP"));
    case TaskColumn:
      return row.task < 0 ? QStringLiteral("—") : QString::number(row.task);
    default:
      return {};
  }
}

QVariant FusedGroupModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return displayData(row, index.column());
    case Qt::ToolTipRole:
      return tr("%1\nnodes: %2\nDouble-click to edit its schedule")
          .arg(row.kernel, row.nodes.join(QStringLiteral(", ")));
    case Qt::TextAlignmentRole:
      return index.column() == FlopsColumn || index.column() == GroupColumn ||
                     index.column() == TaskColumn
                 ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                 : QVariant();
    case AnchorRole:
      return row.anchor;
    case TaskRole:
      return row.task;
    case SortRole:
      switch (index.column()) {
        case GroupColumn:
          return row.id;
        case FlopsColumn:
          return row.flops;
        case TaskColumn:
          return row.task;
        default:
          return displayData(row, index.column());
      }
    default:
      return {};
  }
}

QVariant FusedGroupModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case GroupColumn:
      return tr("#");
    case KernelColumn:
      return tr("Kernel");
    case OpsColumn:
      return tr("Ops");
    case OutputColumn:
      return tr("Output");
    case FlopsColumn:
      return tr("FLOPs");
    case TaskColumn:
      return tr("Task");
    default:
      return {};
  }
}

}  // namespace lathe::views
