// The fused groups of the shown model, one row each: the kernel it compiles
// to, its ops, output, FLOPs and the tuning task running it. Behind the
// studio's "Fused Groups" dock; a plain item model, tested without a window.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "driver/kernel_tasks.h"
#include "driver/optimized_graph.h"
#include "ir/graph.h"

namespace lathe::views {

class FusedGroupModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    GroupColumn,
    KernelColumn,
    OpsColumn,
    OutputColumn,
    FlopsColumn,
    TaskColumn,
    ColumnCount
  };
  // The group's anchor node name (what the graph views select).
  static constexpr int AnchorRole = Qt::UserRole + 1;
  // The id of the task running the group, -1 before tasks are known.
  static constexpr int TaskRole = Qt::UserRole + 2;
  // Numbers for the group, FLOPs and task columns, the text otherwise.
  static constexpr int SortRole = Qt::UserRole + 3;

  explicit FusedGroupModel(QObject* parent = nullptr);

  void setGroups(const Graph& graph, const std::vector<driver::FusedGroup>& groups);
  // Fills the task column; `tasks` must come from the same groups.
  void setTasks(const std::vector<driver::KernelTask>& tasks);
  void clear();
  // The row of the group containing node `name`, or -1.
  int rowOfNode(const QString& name) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    int id = 0;
    QString kernel;
    QString ops;  // "Conv2dNCHWc → Add → Relu"
    QString output;
    QString anchor;
    QStringList nodes;
    qint64 flops = 0;
    int task = -1;
  };
  QVariant displayData(const Row& row, int column) const;

  std::vector<Row> rows_;
};

}  // namespace lathe::views
