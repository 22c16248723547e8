// The package page's summary and tables; sorting by the models' SortRole.
#include "views/package_view.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QStringList>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <set>

#include "driver/executor.h"
#include "driver/package_contents.h"
#include "views/number_format.h"
#include "views/package_models.h"

namespace lathe::views {

namespace {

// Long kernel names and input lists should not push the other columns away.
constexpr int kMaxColumnWidth = 360;

QString bytesText(size_t bytes) {
  return siNumber(static_cast<double>(bytes), QStringLiteral("B"));
}

QTableView* sortedTable(PackageTableModel* model, const QString& name, QObject* parent) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(PackageTableModel::SortRole);
  auto* table = new QTableView;
  table->setObjectName(name);
  table->setModel(proxy);
  table->setSortingEnabled(true);
  table->sortByColumn(0, Qt::AscendingOrder);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setAlternatingRowColors(true);
  table->setWordWrap(false);
  table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
  table->horizontalHeader()->setStretchLastSection(true);
  return table;
}

// "x float32 (1, 784)" for each of the graph's inputs or heads.
QString describeEntries(const driver::PackageContents& c, const std::vector<uint32_t>& entries,
                        const std::vector<QString>& names) {
  QStringList parts;
  for (size_t i = 0; i < entries.size(); ++i)
    parts << QStringLiteral("%1 %2 %3")
                 .arg(names[i], QString::fromStdString(c.graph.dltype[entries[i]]),
                      QString::fromStdString(driver::shape_to_string(c.graph.shape[entries[i]])));
  return parts.join(QStringLiteral(", "));
}

QString summaryText(const driver::PackageContents& c, const QString& target) {
  std::set<std::string> params, functions;
  for (const driver::PackageParam& p : c.params) params.insert(p.name);
  size_t kernels = 0;
  for (const runtime::GraphNode& node : c.graph.nodes)
    if (node.is_op()) {
      ++kernels;
      functions.insert(node.func_name);
    }
  std::vector<uint32_t> inputEntries, outputEntries;
  std::vector<QString> inputNames, outputNames;
  for (uint32_t n : c.graph.arg_nodes)
    if (!params.count(c.graph.nodes[n].name)) {
      inputEntries.push_back(c.graph.entry_id(n, 0));
      inputNames.push_back(QString::fromStdString(c.graph.nodes[n].name));
    }
  // TVM's graph JSON names no outputs; `lathe run` calls them output_0, output_1 …
  for (size_t i = 0; i < c.graph.heads.size(); ++i) {
    outputEntries.push_back(c.graph.entry_id(c.graph.heads[i]));
    outputNames.push_back(QStringLiteral("output_%1").arg(i));
  }
  QStringList lines;
  lines << QObject::tr("<b>%1</b> — built for %2")
               .arg(QFileInfo(QString::fromStdString(c.path)).fileName().toHtmlEscaped(),
                    target.isEmpty() ? QObject::tr("an unknown target (mod.so did not load here)")
                                     : target.toHtmlEscaped());
  lines << QObject::tr("Inputs: %1")
               .arg(describeEntries(c, inputEntries, inputNames).toHtmlEscaped());
  lines << QObject::tr("Outputs: %1")
               .arg(describeEntries(c, outputEntries, outputNames).toHtmlEscaped());
  lines << QObject::tr(
               "%1 nodes: %2 kernel calls of %3 functions · %4 parameters, %5 · "
               "memory plan: %6 storages, %7 · mod.so %8")
               .arg(c.graph.nodes.size())
               .arg(kernels)
               .arg(functions.size())
               .arg(c.params.size())
               .arg(bytesText(c.param_bytes))
               .arg(c.storage.size())
               .arg(bytesText(c.storage_bytes), bytesText(c.library_bytes));
  return lines.join(QStringLiteral("<br>"));
}

}  // namespace

PackageView::PackageView(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("packageSummary"));
  summary_->setTextFormat(Qt::RichText);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setWordWrap(true);

  nodeModel_ = new PackageNodeModel(this);
  paramModel_ = new PackageParamModel(this);
  storageModel_ = new PackageStorageModel(this);
  nodeTable_ = sortedTable(nodeModel_, QStringLiteral("packageNodeTable"), this);
  paramTable_ = sortedTable(paramModel_, QStringLiteral("packageParamTable"), this);
  storageTable_ = sortedTable(storageModel_, QStringLiteral("packageStorageTable"), this);

  tables_ = new QTabWidget;
  tables_->setObjectName(QStringLiteral("packageTables"));
  tables_->addTab(nodeTable_, tr("Executor Graph"));
  tables_->addTab(paramTable_, tr("Parameters"));
  tables_->addTab(storageTable_, tr("Memory Plan"));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(summary_);
  layout->addWidget(tables_, 1);
}

void PackageView::setContents(std::shared_ptr<const driver::PackageContents> contents,
                              const QString& target) {
  summary_->setText(contents ? summaryText(*contents, target) : QString());
  nodeModel_->setContents(contents);
  paramModel_->setContents(contents);
  storageModel_->setContents(std::move(contents));
  for (QTableView* table : {nodeTable_, paramTable_, storageTable_})
    for (int column = 0; column < table->model()->columnCount(); ++column) {
      table->resizeColumnToContents(column);
      if (table->columnWidth(column) > kMaxColumnWidth)
        table->setColumnWidth(column, kMaxColumnWidth);
    }
}

void PackageView::clear() {
  setContents(nullptr, {});
}

}  // namespace lathe::views
