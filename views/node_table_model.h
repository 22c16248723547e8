// The studio's node table: one row per graph node with its op, fusion kind,
// tensor types and multiply-accumulates. A plain item model without widgets,
// so tests check it with QAbstractItemModelTester and no window.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "driver/model_info.h"
#include "ir/graph.h"

namespace lathe::views {

class NodeTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // Inputs come last: a node may read many tensors (BatchNormalization reads
  // five), and the last column is the one that stretches and elides.
  enum Column {
    IndexColumn,
    NameColumn,
    OpColumn,
    FusionColumn,
    OutputsColumn,
    MacsColumn,
    InputsColumn,
    ColumnCount
  };
  // The value a column sorts by: numbers for the index and MACs (so 9 < 10),
  // the displayed text for the rest.
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit NodeTableModel(QObject* parent = nullptr);

  // Replaces every row. `info` must be driver::inspect_graph(graph): the
  // loader computes it off the GUI thread, so the model does not redo it.
  void setGraph(const Graph& graph, const driver::ModelInfo& info);
  void setGraph(const Graph& graph);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  // Texts are built once per model load rather than on every paint.
  struct Row {
    int index = 0;
    QString name;
    QString op;
    QString fusionKind;
    QString inputs;         // types only: "float32[1,16,32,32], float32[16]"
    QString inputsToolTip;  // one line per input with its value name
    QString outputs;
    qint64 macs = 0;
  };

  QVariant displayData(const Row& row, int column) const;
  QVariant sortData(const Row& row, int column) const;

  std::vector<Row> rows_;
};

}  // namespace lathe::views
