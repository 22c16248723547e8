// The package tables' rows, read straight from mod.json's arrays.
#include "views/package_models.h"

#include <QStringList>
#include <algorithm>
#include <functional>

#include "driver/executor.h"
#include "views/number_format.h"

namespace lathe::views {

namespace {

QString qstr(const std::string& s) {
  return QString::fromStdString(s);
}

QString shapeText(const std::vector<int64_t>& shape) {
  return qstr(driver::shape_to_string(shape));
}

// "node" or "node:1" for a node's second output, as TVM's debug executor names entries.
QString entryName(const driver::PackageContents& contents, const runtime::GraphEntryRef& ref) {
  const QString node = qstr(contents.graph.nodes[ref.node_id].name);
  return ref.index == 0 ? node : QStringLiteral("%1:%2").arg(node).arg(ref.index);
}

// The entries of node `n`: one per output.
QStringList joinEntries(const driver::PackageContents& contents, uint32_t n,
                        const std::function<QString(uint32_t entry)>& text) {
  QStringList parts;
  for (uint32_t e = contents.graph.node_row_ptr[n]; e < contents.graph.node_row_ptr[n + 1]; ++e)
    parts << text(e);
  return parts;
}

}  // namespace

void PackageTableModel::setContents(std::shared_ptr<const driver::PackageContents> contents) {
  beginResetModel();
  contents_ = std::move(contents);
  endResetModel();
}

int PackageTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(headers().size());
}

QVariant PackageTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  const QStringList names = headers();
  return section >= 0 && section < names.size() ? QVariant(names[section]) : QVariant();
}

int PackageNodeModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !contents() ? 0 : static_cast<int>(contents()->graph.nodes.size());
}

QStringList PackageNodeModel::headers() const {
  return {tr("#"),      tr("Node"),  tr("Kind"),  tr("Function"),
          tr("Inputs"), tr("Shape"), tr("DType"), tr("Storage")};
}

QVariant PackageNodeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !contents() ||
      (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole))
    return {};
  const driver::PackageContents& c = *contents();
  const auto n = static_cast<uint32_t>(index.row());
  const runtime::GraphNode& node = c.graph.nodes[n];
  const auto entries = [&](const std::function<QString(uint32_t)>& text) {
    return joinEntries(c, n, text).join(QStringLiteral("; "));
  };
  switch (index.column()) {
    case IndexColumn:
      return role == SortRole ? QVariant(index.row()) : QVariant(QString::number(index.row()));
    case NameColumn:
      return qstr(node.name);
    case KindColumn: {
      if (node.is_op()) return tr("kernel");
      const bool param =
          std::any_of(c.params.begin(), c.params.end(),
                      [&](const driver::PackageParam& p) { return p.name == node.name; });
      return param ? tr("parameter") : tr("input");
    }
    case FunctionColumn:
      return qstr(node.func_name);
    case InputsColumn: {
      QStringList inputs;
      for (const runtime::GraphEntryRef& ref : node.inputs) inputs << entryName(c, ref);
      return inputs.join(QStringLiteral(", "));
    }
    case ShapeColumn:
      return entries([&](uint32_t e) { return shapeText(c.graph.shape[e]); });
    case DTypeColumn:
      return entries([&](uint32_t e) { return qstr(c.graph.dltype[e]); });
    case StorageColumn:
      if (role == SortRole) return c.graph.storage_id[c.graph.node_row_ptr[n]];
      return entries([&](uint32_t e) { return QString::number(c.graph.storage_id[e]); });
    default:
      return {};
  }
}

int PackageParamModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !contents() ? 0 : static_cast<int>(contents()->params.size());
}

QStringList PackageParamModel::headers() const {
  return {tr("Parameter"), tr("Shape"), tr("DType"), tr("Bytes")};
}

QVariant PackageParamModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !contents() || (role != Qt::DisplayRole && role != SortRole)) return {};
  const driver::PackageParam& p = contents()->params[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case NameColumn:
      return qstr(p.name);
    case ShapeColumn:
      return shapeText(p.shape);
    case DTypeColumn:
      return qstr(p.dtype);
    case BytesColumn:
      return role == SortRole ? QVariant(static_cast<qulonglong>(p.bytes))
                              : QVariant(groupedNumber(static_cast<qint64>(p.bytes)));
    default:
      return {};
  }
}

int PackageStorageModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !contents() ? 0 : static_cast<int>(contents()->storage.size());
}

QStringList PackageStorageModel::headers() const {
  return {tr("Storage"), tr("Bytes"), tr("Entries"), tr("Holds")};
}

QVariant PackageStorageModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !contents() || (role != Qt::DisplayRole && role != SortRole)) return {};
  const driver::PackageContents& c = *contents();
  const driver::PackageStorage& s = c.storage[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case IdColumn:
      return role == SortRole ? QVariant(s.id) : QVariant(QString::number(s.id));
    case BytesColumn:
      return role == SortRole ? QVariant(static_cast<qulonglong>(s.bytes))
                              : QVariant(groupedNumber(static_cast<qint64>(s.bytes)));
    case EntryCountColumn:
      return role == SortRole ? QVariant(static_cast<int>(s.entries.size()))
                              : QVariant(QString::number(s.entries.size()));
    case EntriesColumn: {
      QStringList names;
      for (uint32_t e : s.entries) {
        const auto [node, output] = c.entry_owner(e);
        names << entryName(c, {node, output, 0});
      }
      return names.join(QStringLiteral(", "));
    }
    default:
      return {};
  }
}

}  // namespace lathe::views
