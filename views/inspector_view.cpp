#include "views/inspector_view.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "ir/node_cost.h"
#include "ir/op_registry.h"
#include "views/number_format.h"
#include "views/weight_histogram.h"

namespace lathe::views {
namespace {

constexpr int kHistogramBins = 64;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString realNumber(double v) {
  return QString::number(v, 'g', 6);
}

QString bytes(qint64 n) {
  return siNumber(static_cast<double>(n), QStringLiteral("B"));
}

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& key, const QString& value,
                        const QString& toolTip = {}) {
  auto* item = new QTreeWidgetItem(parent, {key, value});
  item->setToolTip(1, toolTip.isEmpty() ? value : toolTip);
  return item;
}

QTreeWidgetItem* addSection(QTreeWidget* tree, const QString& title) {
  auto* section = new QTreeWidgetItem(tree, {title});
  QFont bold = tree->font();
  bold.setBold(true);
  section->setFont(0, bold);
  section->setFirstColumnSpanned(true);
  return section;
}

// The key column as wide as its longest key, but never more than 45 % of the
// tree: long value names should not push every value out of a narrow dock.
void fitKeyColumn(QTreeWidget* tree) {
  tree->resizeColumnToContents(0);
  const int cap = tree->viewport()->width() * 45 / 100;
  if (cap > 60 && tree->columnWidth(0) > cap) tree->setColumnWidth(0, cap);
}

QTreeWidget* twoColumnTree(const QString& objectName) {
  auto* tree = new QTreeWidget;
  tree->setObjectName(objectName);
  tree->setColumnCount(2);
  tree->setHeaderHidden(true);
  tree->setRootIsDecorated(false);
  tree->setUniformRowHeights(true);
  tree->setSelectionMode(QAbstractItemView::ContiguousSelection);
  tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  tree->header()->setStretchLastSection(true);
  return tree;
}

// Where a node input comes from, as the inspector words it.
QString origin(const Graph& graph, ValueId id) {
  const Value& value = graph.value(id);
  if (value.is_constant())
    return value.type.numel() > 1 ? QObject::tr("weight") : QObject::tr("constant");
  if (value.producer < 0) return QObject::tr("graph input");
  return QObject::tr("from %1").arg(
      qs(describe_node(graph.nodes[static_cast<size_t>(value.producer)])));
}

int64_t typeBytes(const TensorType& type) {
  return type.numel() * static_cast<int64_t>(dtype_size(type.dtype));
}

}  // namespace

InspectorView::InspectorView(QWidget* parent) : QWidget(parent) {
  title_ = new QLabel;
  title_->setObjectName(QStringLiteral("inspectorTitle"));
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  title_->setWordWrap(true);

  properties_ = twoColumnTree(QStringLiteral("inspectorProperties"));
  properties_->setRootIsDecorated(true);

  weightCombo_ = new QComboBox;
  weightCombo_->setObjectName(QStringLiteral("weightCombo"));
  weightCombo_->setToolTip(tr("The node's constant inputs"));
  connect(weightCombo_, &QComboBox::currentIndexChanged, this, &InspectorView::showWeight);
  statistics_ = twoColumnTree(QStringLiteral("weightStatistics"));
  // Ten rows of statistics; the rest of the pane goes to the histogram.
  statistics_->setMaximumHeight(statistics_->fontMetrics().height() * 12);
  histogram_ = new WeightHistogram;

  weightPane_ = new QWidget;
  auto* weightLayout = new QVBoxLayout(weightPane_);
  weightLayout->setContentsMargins(0, 0, 0, 0);
  weightLayout->addWidget(weightCombo_);
  weightLayout->addWidget(statistics_, 1);
  weightLayout->addWidget(histogram_, 1);

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setChildrenCollapsible(false);
  splitter->addWidget(properties_);
  splitter->addWidget(weightPane_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(title_);
  layout->addWidget(splitter, 1);
  clear();
}

InspectorView::~InspectorView() = default;

QString InspectorView::nodeName() const {
  if (!graph_ || node_ < 0) return {};
  return qs(graph_->nodes[static_cast<size_t>(node_)].name);
}

void InspectorView::clear() {
  graph_.reset();
  node_ = -1;
  statisticsJobs_.drop();
  title_->setText(tr("Select a node in the graph or the node table."));
  properties_->clear();
  {
    const QSignalBlocker blocker(weightCombo_);
    weightCombo_->clear();
  }
  statistics_->clear();
  histogram_->clearStatistics();
  weightPane_->hide();
}

void InspectorView::showNode(std::shared_ptr<const Graph> graph, int nodeIndex,
                             const QString& where, const QString& group) {
  if (!graph || nodeIndex < 0 || nodeIndex >= static_cast<int>(graph->nodes.size())) {
    clear();
    return;
  }
  graph_ = std::move(graph);
  node_ = nodeIndex;
  const Graph& g = *graph_;
  const Node& node = g.nodes[static_cast<size_t>(nodeIndex)];
  title_->setText(QStringLiteral("<b>%1</b> · %2").arg(qs(node.name).toHtmlEscaped(), qs(node.op)));

  properties_->clear();
  QTreeWidgetItem* section = addSection(properties_, tr("Node"));
  addRow(section, tr("Name"), qs(node.name));
  addRow(section, tr("Op"), qs(node.op));
  if (const OpDef* op = OpRegistry::global().find(node.op))
    addRow(section, tr("Fusion kind"), qs(std::string(fusion_kind_name(op->kind))));
  addRow(section, tr("Position"),
         tr("%1 of %2 in the %3 graph").arg(nodeIndex + 1).arg(g.nodes.size()).arg(where));
  if (!group.isEmpty()) addRow(section, tr("Fused group"), group);

  section = addSection(properties_, tr("Attributes (%1)").arg(node.attrs.all().size()));
  for (const auto& [name, value] : node.attrs.all())
    addRow(section, qs(name), qs(attribute_to_string(value)));

  section = addSection(properties_, tr("Inputs (%1)").arg(node.inputs.size()));
  int64_t bytesRead = 0, weightElements = 0, weightBytes = 0;
  std::vector<ValueId> weights;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ValueId id = node.inputs[i];
    if (id == kNoValue) {
      addRow(section, QStringLiteral("#%1").arg(i), tr("(omitted)"));
      continue;
    }
    const Value& value = g.value(id);
    addRow(section, QStringLiteral("#%1 %%2").arg(i).arg(qs(value.name)),
           QStringLiteral("%1 · %2").arg(qs(value.type.to_string()), origin(g, id)));
    bytesRead += typeBytes(value.type);
    if (value.is_constant()) {
      weightElements += value.type.numel();
      weightBytes += typeBytes(value.type);
      if (value.type.numel() > 1) weights.push_back(id);
    }
  }

  // Readers of each output, and whether the graph returns it.
  section = addSection(properties_, tr("Outputs (%1)").arg(node.outputs.size()));
  int64_t bytesWritten = 0;
  for (ValueId id : node.outputs) {
    if (id == kNoValue) continue;
    int readers = 0;
    for (const Node& other : g.nodes)
      for (ValueId in : other.inputs) readers += in == id ? 1 : 0;
    const bool graphOutput = std::find(g.outputs.begin(), g.outputs.end(), id) != g.outputs.end();
    QString use = tr("read by %n node(s)", nullptr, readers);
    if (graphOutput) use = readers ? use + tr(", graph output") : tr("graph output");
    const Value& value = g.value(id);
    addRow(section, QStringLiteral("%%1").arg(qs(value.name)),
           QStringLiteral("%1 · %2").arg(qs(value.type.to_string()), use));
    bytesWritten += typeBytes(value.type);
  }

  const NodeCost cost = node_cost(g, node);
  section = addSection(properties_, tr("Cost"));
  if (cost.macs > 0) addRow(section, tr("MACs"), groupedNumber(cost.macs));
  addRow(section, tr("FLOPs"), siNumber(static_cast<double>(cost.flops), QStringLiteral("FLOP")),
         groupedNumber(cost.flops));
  if (weightElements > 0)
    addRow(section, tr("Weights"),
           tr("%1 elements, %2").arg(groupedNumber(weightElements), bytes(weightBytes)));
  addRow(section, tr("Bytes read"), bytes(bytesRead), groupedNumber(bytesRead));
  addRow(section, tr("Bytes written"), bytes(bytesWritten), groupedNumber(bytesWritten));
  if (bytesRead + bytesWritten > 0)
    addRow(section, tr("Arithmetic intensity"),
           tr("%1 FLOP/byte")
               .arg(static_cast<double>(cost.flops) / static_cast<double>(bytesRead + bytesWritten),
                    0, 'f', 2),
           tr("FLOPs over the bytes of every input and output, each moved once"));
  properties_->expandAll();
  fitKeyColumn(properties_);

  const QSignalBlocker blocker(weightCombo_);
  weightCombo_->clear();
  for (ValueId id : weights)
    weightCombo_->addItem(
        QStringLiteral("%%1  %2").arg(qs(g.value(id).name), qs(g.value(id).type.to_string())), id);
  weightPane_->setVisible(!weights.empty());
  statistics_->clear();
  histogram_->clearStatistics();
  statisticsJobs_.drop();
  if (!weights.empty()) showWeight(0);
}

void InspectorView::showWeight(int comboIndex) {
  statisticsJobs_.drop();
  if (!graph_ || comboIndex < 0) return;
  const ValueId id = weightCombo_->itemData(comboIndex).toInt();
  const Value& value = graph_->value(id);
  const QString name = qs(value.name);
  statistics_->clear();
  addRow(statistics_->invisibleRootItem(), tr("Statistics"), tr("computing…"));

  // The tensor shares its buffer, and graph_ keeps it alive; the copy keeps
  // it alive too should another node be shown before the job ends.
  statisticsJobs_.start(
      [tensor = value.constant] { return driver::tensor_statistics(tensor, kHistogramBins); },
      [this, name](const driver::TensorStatistics& statistics) {
        fillStatistics(name, statistics);
      });
}

void InspectorView::fillStatistics(const QString& valueName, const driver::TensorStatistics& s) {
  statistics_->clear();
  QTreeWidgetItem* root = statistics_->invisibleRootItem();
  addRow(root, tr("Elements"), groupedNumber(s.count));
  addRow(root, tr("Min"), realNumber(s.min));
  addRow(root, tr("Max"), realNumber(s.max));
  addRow(root, tr("Mean"), realNumber(s.mean));
  addRow(root, tr("Std dev"), realNumber(s.stddev));
  addRow(root, tr("Mean |x|"), realNumber(s.mean_abs));
  addRow(root, tr("L2 norm"), realNumber(s.l2_norm));
  const double share =
      s.count ? 100.0 * static_cast<double>(s.zeros) / static_cast<double>(s.count) : 0;
  addRow(root, tr("Zeros"), tr("%1 (%2 %)").arg(groupedNumber(s.zeros)).arg(share, 0, 'f', 2));
  QTreeWidgetItem* bad =
      addRow(root, tr("NaN / ±Inf"),
             QStringLiteral("%1 / %2").arg(groupedNumber(s.nans), groupedNumber(s.infinities)));
  if (s.nans + s.infinities > 0) bad->setForeground(1, QColor(200, 40, 40));
  fitKeyColumn(statistics_);
  histogram_->setStatistics(valueName, s);
  emit weightStatisticsShown(valueName);
}

}  // namespace lathe::views
