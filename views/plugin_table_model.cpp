#include "views/plugin_table_model.h"

#include <QFileInfo>

namespace lathe::views {

namespace {

QString joined(const std::vector<std::string>& names) {
  QStringList list;
  for (const std::string& name : names) list << QString::fromStdString(name);
  return list.join(QStringLiteral(", "));
}

}  // namespace

PluginTableModel::PluginTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void PluginTableModel::setPlugins(std::vector<driver::AvailablePlugin> plugins,
                                  const QMap<QString, QString>& failures) {
  beginResetModel();
  plugins_ = std::move(plugins);
  failures_ = failures;
  QStringList kept;
  for (int row = 0; row < static_cast<int>(plugins_.size()); ++row) {
    const QString name = QString::fromStdString(plugins_[static_cast<size_t>(row)].name);
    if (isLoadable(row) && checked_.contains(name)) kept << name;
  }
  checked_ = kept;
  endResetModel();
}

QStringList PluginTableModel::checkedNames() const {
  QStringList names;
  for (const driver::AvailablePlugin& plugin : plugins_)
    if (checked_.contains(QString::fromStdString(plugin.name)))
      names << QString::fromStdString(plugin.name);
  return names;
}

bool PluginTableModel::isLoadable(int row) const {
  if (row < 0 || row >= static_cast<int>(plugins_.size())) return false;
  const driver::AvailablePlugin& plugin = plugins_[static_cast<size_t>(row)];
  return !plugin.loaded && plugin.error.empty() &&
         !failures_.contains(QString::fromStdString(plugin.name));
}

int PluginTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(plugins_.size());
}

int PluginTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString PluginTableModel::adds(const driver::AvailablePlugin& plugin) const {
  if (!plugin.loaded) return QString::fromStdString(plugin.description);
  QStringList parts;
  if (!plugin.loaded->ops.empty()) parts << tr("ops: %1").arg(joined(plugin.loaded->ops));
  if (!plugin.loaded->codegens.empty())
    parts << tr("external codegens: %1").arg(joined(plugin.loaded->codegens));
  return parts.isEmpty() ? tr("nothing") : parts.join(QStringLiteral("; "));
}

QString PluginTableModel::state(int row) const {
  const driver::AvailablePlugin& plugin = plugins_[static_cast<size_t>(row)];
  if (plugin.loaded) return tr("loaded");
  if (!plugin.error.empty()) return tr("cannot load: %1").arg(QString::fromStdString(plugin.error));
  if (const auto it = failures_.find(QString::fromStdString(plugin.name)); it != failures_.end())
    return tr("failed to load: %1").arg(*it);
  return tr("not loaded");
}

QVariant PluginTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(plugins_.size())) return {};
  const driver::AvailablePlugin& plugin = plugins_[static_cast<size_t>(index.row())];
  const QString name = QString::fromStdString(plugin.name);
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case NameColumn:
          return plugin.version.empty()
                     ? name
                     : tr("%1 %2").arg(name, QString::fromStdString(plugin.version));
        case FileColumn:
          return QFileInfo(QString::fromStdString(plugin.path)).fileName();
        case AddsColumn:
          return adds(plugin);
        case StateColumn:
          return state(index.row());
      }
      return {};
    case Qt::ToolTipRole:
      if (index.column() == FileColumn) return QString::fromStdString(plugin.path);
      if (index.column() == AddsColumn) return QString::fromStdString(plugin.description);
      if (index.column() == StateColumn) return state(index.row());
      return {};
    case Qt::CheckStateRole:
      if (index.column() != NameColumn) return {};
      if (plugin.loaded) return Qt::Checked;
      return checked_.contains(name) ? Qt::Checked : Qt::Unchecked;
  }
  return {};
}

bool PluginTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::CheckStateRole || index.column() != NameColumn || !isLoadable(index.row()))
    return false;
  const QString name = QString::fromStdString(plugins_[static_cast<size_t>(index.row())].name);
  checked_.removeAll(name);
  if (value.value<Qt::CheckState>() == Qt::Checked) checked_ << name;
  emit dataChanged(index, index, {Qt::CheckStateRole});
  return true;
}

Qt::ItemFlags PluginTableModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags flags = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
  // A loaded plugin stays loaded: its row shows checked, and cannot be unchecked.
  if (index.column() == NameColumn && isLoadable(index.row())) flags |= Qt::ItemIsUserCheckable;
  return flags;
}

QVariant PluginTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn:
      return tr("Plugin");
    case FileColumn:
      return tr("File");
    case AddsColumn:
      return tr("Adds");
    case StateColumn:
      return tr("State");
  }
  return {};
}

}  // namespace lathe::views
