// The node table model: rows built from the graph and its driver::ModelInfo.
#include "views/node_table_model.h"

#include <QStringList>
#include <algorithm>

#include "views/number_format.h"

namespace lathe::views {

namespace {

QString qstr(const std::string& s) {
  return QString::fromStdString(s);
}

QString joinTypes(const std::vector<TensorType>& types) {
  QStringList parts;
  for (const TensorType& t : types) parts << qstr(t.to_string());
  return parts.join(QStringLiteral(", "));
}

}  // namespace

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void NodeTableModel::setGraph(const Graph& graph, const driver::ModelInfo& info) {
  beginResetModel();
  rows_.clear();
  // inspect_graph yields one NodeInfo per node in graph order; a mismatch
  // would be a caller's bug, and showing fewer rows beats reading past the end.
  const size_t count = std::min(graph.nodes.size(), info.nodes.size());
  rows_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const Node& node = graph.nodes[i];
    const driver::NodeInfo& ni = info.nodes[i];
    Row row;
    row.index = static_cast<int>(i);
    row.name = qstr(ni.name);
    row.op = qstr(ni.op);
    row.fusionKind = qstr(ni.fusion_kind);
    row.outputs = joinTypes(ni.output_types);
    row.macs = ni.macs;
    QStringList types, lines;
    for (ValueId in : node.inputs) {
      if (in == kNoValue) {
        types << QStringLiteral("none");
        lines << QStringLiteral("(omitted)");
        continue;
      }
      const Value& v = graph.value(in);
      const QString type = qstr(v.type.to_string());
      types << type;
      lines << QStringLiteral("%%1 : %2%3")
                   .arg(qstr(v.name), type,
                        v.is_constant() ? QStringLiteral("  (constant)") : QString());
    }
    row.inputs = types.join(QStringLiteral(", "));
    row.inputsToolTip = lines.join(QLatin1Char('\n'));
    rows_.push_back(std::move(row));
  }
  endResetModel();
}

void NodeTableModel::setGraph(const Graph& graph) {
  setGraph(graph, driver::inspect_graph(graph));
}

void NodeTableModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
  // A table: only the invisible root has children.
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeTableModel::displayData(const Row& row, int column) const {
  switch (column) {
    case IndexColumn:
      return row.index;
    case NameColumn:
      return row.name;
    case OpColumn:
      return row.op;
    case FusionColumn:
      return row.fusionKind;
    case OutputsColumn:
      return row.outputs;
    case MacsColumn:
      return groupedNumber(row.macs);
    case InputsColumn:
      return row.inputs;
  }
  return {};
}

QVariant NodeTableModel::sortData(const Row& row, int column) const {
  if (column == MacsColumn) return row.macs;
  return displayData(row, column);
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return displayData(row, column);
    case SortRole:
      return sortData(row, column);
    case Qt::ToolTipRole:
      if (column == InputsColumn) return row.inputsToolTip;
      if (column == MacsColumn)
        return siNumber(static_cast<double>(row.macs), QStringLiteral("MAC"));
      if (column == OutputsColumn || column == NameColumn) return displayData(row, column);
      return {};
    case Qt::TextAlignmentRole:
      if (column == IndexColumn || column == MacsColumn)
        // An int, as Qt 6.4's item delegates read it with toInt().
        return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
      return {};
  }
  return {};
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case IndexColumn:
        return tr("#");
      case NameColumn:
        return tr("Node");
      case OpColumn:
        return tr("Op");
      case FusionColumn:
        return tr("Fusion kind");
      case OutputsColumn:
        return tr("Output");
      case MacsColumn:
        return tr("MACs");
      case InputsColumn:
        return tr("Inputs");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case FusionColumn:
        return tr("TVM's operator pattern kind, which decides what fuses with what");
      case MacsColumn:
        return tr("Multiply-accumulates of one run of the node");
      case InputsColumn:
        return tr("Types of the tensors the node reads; hover a cell for their names");
    }
  }
  return {};
}

}  // namespace lathe::views
