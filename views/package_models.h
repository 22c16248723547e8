// Item models of a compiled package (driver::PackageContents), as TVM's
// debug executor and Netron list one: the executor graph's nodes with their
// kernel functions, the parameters, and the memory plan's storage pools.
// Each model shares the contents it shows; SortRole gives numbers for sorting.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "driver/package_contents.h"

namespace lathe::views {

// Shared by the three models: the contents, reset all at once.
class PackageTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  static constexpr int SortRole = Qt::UserRole + 1;

  using QAbstractTableModel::QAbstractTableModel;
  void setContents(std::shared_ptr<const driver::PackageContents> contents);
  void clear() { setContents(nullptr); }
  const driver::PackageContents* contents() const { return contents_.get(); }

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 protected:
  virtual QStringList headers() const = 0;

 private:
  std::shared_ptr<const driver::PackageContents> contents_;
};

// One row per node of mod.json, in execution order: graph inputs and
// parameters ("null" nodes) and kernel calls ("tvm_op").
class PackageNodeModel : public PackageTableModel {
  Q_OBJECT

 public:
  enum Column {
    IndexColumn,
    NameColumn,
    KindColumn,      // input, parameter or kernel
    FunctionColumn,  // the kernel's symbol in mod.so
    InputsColumn,    // the names of the nodes it reads
    ShapeColumn,     // of each output
    DTypeColumn,
    StorageColumn,  // storage id of each output
    ColumnCount
  };
  using PackageTableModel::PackageTableModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  QStringList headers() const override;
};

// One row per array of mod.params.
class PackageParamModel : public PackageTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, ShapeColumn, DTypeColumn, BytesColumn, ColumnCount };
  using PackageTableModel::PackageTableModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  QStringList headers() const override;
};

// One row per storage pool of the memory plan: its size and the node
// outputs that share it.
class PackageStorageModel : public PackageTableModel {
  Q_OBJECT

 public:
  enum Column { IdColumn, BytesColumn, EntryCountColumn, EntriesColumn, ColumnCount };
  using PackageTableModel::PackageTableModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  QStringList headers() const override;
};

}  // namespace lathe::views
