// The plugins a user can load (driver::available_plugins): one row each with
// its name and version, its file, what it adds (once loaded: its ops and
// external codegens; before: its own description) and its state (loaded, not
// loaded, or why it cannot load). Rows that can still be loaded are
// checkable; checkedNames() gives the picked ones. An item model without
// widgets, for the studio's Plugins dialog.
#pragma once

#include <QAbstractTableModel>
#include <QMap>
#include <QString>
#include <QStringList>
#include <vector>

#include "driver/plugins.h"

namespace lathe::views {

class PluginTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, FileColumn, AddsColumn, StateColumn, ColumnCount };

  explicit PluginTableModel(QObject* parent = nullptr);

  // The plugins as found now; `failures` (by name) are loads that failed in
  // this session, shown as the row's state. Checks of rows still loadable
  // are kept by name.
  void setPlugins(std::vector<driver::AvailablePlugin> plugins,
                  const QMap<QString, QString>& failures = {});
  const std::vector<driver::AvailablePlugin>& plugins() const { return plugins_; }
  // The names checked, in row order.
  QStringList checkedNames() const;
  // Whether row `row` can be loaded: found, a plugin, not loaded, no failed load.
  bool isLoadable(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QString adds(const driver::AvailablePlugin& plugin) const;
  QString state(int row) const;

  std::vector<driver::AvailablePlugin> plugins_;
  QMap<QString, QString> failures_;
  QStringList checked_;
};

}  // namespace lathe::views
