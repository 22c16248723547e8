// The model summary tree; numbers formatted as `lathe inspect` prints them.
#include "views/model_summary_view.h"

#include <QHeaderView>

#include "views/number_format.h"

namespace lathe::views {

namespace {

QString qstr(const std::string& s) {
  return QString::fromStdString(s);
}

QTreeWidgetItem* addItem(QTreeWidgetItem* parent, const QString& key, const QString& value) {
  auto* item = new QTreeWidgetItem(parent, {key, value});
  item->setToolTip(1, value);
  return item;
}

}  // namespace

ModelSummaryView::ModelSummaryView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
  setHeaderLabels({tr("Property"), tr("Value")});
  setRootIsDecorated(true);
  setUniformRowHeights(true);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setStretchLastSection(true);
}

void ModelSummaryView::clearModelInfo() {
  clear();
}

void ModelSummaryView::setModelInfo(const QString& fileName, const driver::ModelInfo& info) {
  clear();
  QTreeWidgetItem* root = invisibleRootItem();
  addItem(root, tr("File"), fileName);

  QTreeWidgetItem* inputs = addItem(root, tr("Inputs"), QString::number(info.inputs.size()));
  for (const auto& [name, type] : info.inputs) addItem(inputs, qstr(name), qstr(type.to_string()));
  QTreeWidgetItem* outputs = addItem(root, tr("Outputs"), QString::number(info.outputs.size()));
  for (const auto& [name, type] : info.outputs)
    addItem(outputs, qstr(name), qstr(type.to_string()));

  addItem(root, tr("Nodes"), QString::number(info.nodes.size()));
  addItem(
      root, tr("Parameters"),
      tr("%1 (%2)").arg(groupedNumber(info.parameter_count),
                        siNumber(static_cast<double>(info.parameter_bytes), QStringLiteral("B"))));
  addItem(root, tr("MACs"),
          tr("%1 (%2)").arg(groupedNumber(info.total_macs),
                            siNumber(static_cast<double>(info.total_macs), QStringLiteral("MAC"))));

  QTreeWidgetItem* ops = addItem(root, tr("Operators"), QString::number(info.op_histogram.size()));
  for (const auto& [op, count] : info.op_histogram) addItem(ops, qstr(op), QString::number(count));

  expandAll();
}

}  // namespace lathe::views
