// The inspector and the fused-groups dock: tensor statistics and node costs
// from the core, the inspector view on a node with weights (statistics,
// histogram, the newest choice winning), the fused group model, and the main
// window wiring them to the graph views, the node table and the Schedule tab;
// then the window's layout reset and load cancelling.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>

#include "driver/model_loader.h"
#include "driver/tensor_statistics.h"
#include "ir/node_cost.h"
#include "isolated_settings.h"
#include "passes/pipeline.h"
#include "studio/main_window.h"
#include "studio/model_load_tracker.h"
#include "studio/schedule_editor_page.h"
#include "tune/kernel_task.h"
#include "views/fused_group_model.h"
#include "views/graph_view.h"
#include "views/inspector_view.h"
#include "views/weight_histogram.h"

using namespace lathe;
using lathe::studio::MainWindow;
using lathe::views::FusedGroupModel;
using lathe::views::InspectorView;

namespace {

constexpr int kTimeoutMs = 60000;

QString samplePath() {
  return qEnvironmentVariable("LATHE_SOURCE_DIR") + QStringLiteral("/resources/sample_cnn.onnx");
}

// The value shown beside `key` in a two-column tree, searching every level.
QString treeValue(const QTreeWidget* tree, const QString& key) {
  const auto items = tree->findItems(key, Qt::MatchExactly | Qt::MatchRecursive, 0);
  return items.isEmpty() ? QString() : items.front()->text(1);
}

// The first node of `graph` running `op` with a weight of more than one element.
int nodeWithWeight(const Graph& graph, const std::string& op) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != op) continue;
    for (ValueId in : node.inputs)
      if (in != kNoValue && graph.value(in).is_constant() && graph.type(in).numel() > 1)
        return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

class TestInspector : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir settingsDir_;
  std::shared_ptr<Graph> sample_;

 private slots:
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(settingsDir_.path(), QStringLiteral("tst_inspector"));
    sample_ = std::make_shared<Graph>(driver::load_model(samplePath().toStdString()));
  }

  void statisticsOfKnownValues() {
    const Tensor t = Tensor::from_vector<float>({1, 2, 3, 4, NAN, INFINITY, 0, -INFINITY}, {2, 4});
    const driver::TensorStatistics s = driver::tensor_statistics(t, 4);
    QCOMPARE(s.count, 8);
    QCOMPARE(s.finite, 5);
    QCOMPARE(s.nans, 1);
    QCOMPARE(s.infinities, 2);
    QCOMPARE(s.zeros, 1);
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.max, 4.0);
    QCOMPARE(s.mean, 2.0);
    QVERIFY(std::abs(s.stddev - std::sqrt(2.0)) < 1e-12);
    QCOMPARE(s.mean_abs, 2.0);
    QVERIFY(std::abs(s.l2_norm - std::sqrt(30.0)) < 1e-12);
    // Bins of width 1 over [0, 4]; the maximum falls in the last one.
    QCOMPARE(s.bin_width(), 1.0);
    QCOMPARE(s.bin_counts, (std::vector<int64_t>{1, 1, 1, 2}));
    QCOMPARE(s.bin_start(2), 2.0);
  }

  void statisticsOfConstantAndIntegerTensors() {
    const driver::TensorStatistics flat =
        driver::tensor_statistics(Tensor::from_vector<float>({0.5f, 0.5f, 0.5f}, {3}), 16);
    QCOMPARE(flat.bin_counts, (std::vector<int64_t>{3}));
    QCOMPARE(flat.stddev, 0.0);
    const driver::TensorStatistics ints =
        driver::tensor_statistics(Tensor::from_vector<int64_t>({-3, 5, 0, 2}, {4}), 2);
    QCOMPARE(ints.min, -3.0);
    QCOMPARE(ints.max, 5.0);
    QCOMPARE(ints.zeros, 1);
    QCOMPARE(ints.bin_counts, (std::vector<int64_t>{2, 2}));
    QVERIFY_THROWS_EXCEPTION(std::exception, driver::tensor_statistics(Tensor(), 0));
    QCOMPARE(driver::tensor_statistics(Tensor(), 8).count, 0);
  }

  void nodeCostCountsMultiplyAccumulates() {
    const int conv = nodeWithWeight(*sample_, "Conv");
    QVERIFY(conv >= 0);
    const Node& node = sample_->nodes[static_cast<size_t>(conv)];
    const TensorType& out = sample_->type(node.outputs[0]);
    const TensorType& weight = sample_->type(node.inputs[1]);
    // Each output element reads C_in/group x KH x KW weights.
    const int64_t perOutput = weight.numel() / weight.shape[0];
    const NodeCost cost = node_cost(*sample_, node);
    QCOMPARE(cost.macs, out.numel() * perOutput);
    QCOMPARE(cost.flops, 2 * cost.macs);
    for (const Node& other : sample_->nodes)
      if (other.op == "Relu")
        QCOMPARE(node_cost(*sample_, other).flops, sample_->type(other.outputs[0]).numel());
  }

  void inspectorShowsNodeAndWeightStatistics() {
    InspectorView view;
    view.resize(360, 700);
    view.show();
    const int conv = nodeWithWeight(*sample_, "Conv");
    const Node& node = sample_->nodes[static_cast<size_t>(conv)];
    QSignalSpy shown(&view, &InspectorView::weightStatisticsShown);
    view.showNode(sample_, conv, QStringLiteral("original"), QStringLiteral("#3 fused_conv"));
    QCOMPARE(view.nodeName(), QString::fromStdString(node.name));
    QCOMPARE(treeValue(view.properties(), QStringLiteral("Op")), QStringLiteral("Conv"));
    QCOMPARE(treeValue(view.properties(), QStringLiteral("Fused group")),
             QStringLiteral("#3 fused_conv"));
    QVERIFY(!node.attrs.empty());
    for (const auto& [name, value] : node.attrs.all())
      QCOMPARE(treeValue(view.properties(), QString::fromStdString(name)),
               QString::fromStdString(attribute_to_string(value)));
    const QString input =
        QStringLiteral("#0 %%1").arg(QString::fromStdString(sample_->value(node.inputs[0]).name));
    QVERIFY(treeValue(view.properties(), input)
                .startsWith(QString::fromStdString(sample_->type(node.inputs[0]).to_string())));
    QVERIFY(!treeValue(view.properties(), QStringLiteral("MACs")).isEmpty());
    QVERIFY(treeValue(view.properties(), QStringLiteral("FLOPs")).contains(QStringLiteral("FLOP")));

    // The weight (and the bias, when it has one) are offered; the first is computed.
    QVERIFY(view.weightCombo()->count() >= 1);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);
    const Tensor& weight = sample_->value(node.inputs[1]).constant;
    const driver::TensorStatistics expected = driver::tensor_statistics(weight, 64);
    QCOMPARE(shown.front().front().toString(),
             QString::fromStdString(sample_->value(node.inputs[1]).name));
    QCOMPARE(treeValue(view.weightStatistics(), QStringLiteral("Min")),
             QString::number(expected.min, 'g', 6));
    QCOMPARE(treeValue(view.weightStatistics(), QStringLiteral("Std dev")),
             QString::number(expected.stddev, 'g', 6));
    int nonEmptyBins = 0;
    for (int64_t c : expected.bin_counts) nonEmptyBins += c > 0;
    QCOMPARE(view.histogram()->barCount(), nonEmptyBins);
    QVERIFY(nonEmptyBins > 1);
  }

  void newestNodeWins() {
    InspectorView view;
    const int first = nodeWithWeight(*sample_, "Conv");
    int second = -1;
    for (size_t i = static_cast<size_t>(first) + 1; i < sample_->nodes.size() && second < 0; ++i)
      for (ValueId in : sample_->nodes[i].inputs)
        if (in != kNoValue && sample_->value(in).is_constant() && sample_->type(in).numel() > 1)
          second = static_cast<int>(i);
    QVERIFY(second > first);
    QSignalSpy shown(&view, &InspectorView::weightStatisticsShown);
    view.showNode(sample_, first, QStringLiteral("original"));
    view.showNode(sample_, second, QStringLiteral("original"));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);
    QTest::qWait(100);  // the first node's job is done too by now; it must not show
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.front().front().toString(),
             view.weightCombo()->itemText(0).section(' ', 0, 0).mid(1));

    // A node without weights hides the weight pane; an invalid index clears.
    for (size_t i = 0; i < sample_->nodes.size(); ++i)
      if (sample_->nodes[i].op == "Relu") {
        view.showNode(sample_, static_cast<int>(i), QStringLiteral("original"));
        QCOMPARE(view.weightCombo()->count(), 0);
        break;
      }
    view.showNode(sample_, 100000, QStringLiteral("original"));
    QVERIFY(view.nodeName().isEmpty());
  }

  void fusedGroupModelListsGroupsAndTasks() {
    const passes::OptimizedGraph optimized = passes::optimize_graph(*sample_);
    FusedGroupModel model;
    QAbstractItemModelTester tester(&model);
    model.setGroups(optimized.graph, optimized.groups);
    QCOMPARE(model.rowCount(), static_cast<int>(optimized.groups.size()));
    QCOMPARE(model.index(0, FusedGroupModel::TaskColumn).data(FusedGroupModel::TaskRole).toInt(),
             -1);
    const auto tasks = tune::extract_tasks(optimized.graph, optimized.groups);
    model.setTasks(tasks);
    for (const tune::KernelTask& task : tasks)
      for (int group : task.groups)
        QCOMPARE(model.index(group, 0).data(FusedGroupModel::TaskRole).toInt(), task.id);
    const passes::FusedGroup& last = optimized.groups.back();
    const QString anchor =
        QString::fromStdString(optimized.graph.nodes[static_cast<size_t>(last.anchor)].name);
    QCOMPARE(model.index(model.rowCount() - 1, 0).data(FusedGroupModel::AnchorRole).toString(),
             anchor);
    QCOMPARE(model.rowOfNode(anchor), model.rowCount() - 1);
    QCOMPARE(model.rowOfNode(QStringLiteral("no such node")), -1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void windowInspectsSelections() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QSignalSpy graphs(&window, &MainWindow::graphsShown);
    window.openModel(samplePath());
    QTRY_VERIFY_WITH_TIMEOUT(!graphs.isEmpty(), kTimeoutMs);
    InspectorView* inspector = window.inspector();
    QVERIFY(inspector);

    // A node found in the graphs is inspected in the graph it was found in.
    const Node& conv = sample_->nodes[static_cast<size_t>(nodeWithWeight(*sample_, "Conv"))];
    QVERIFY(window.originalGraphView()->findNode(QString::fromStdString(conv.name)));
    QTRY_COMPARE_WITH_TIMEOUT(inspector->nodeName(), QString::fromStdString(conv.name), kTimeoutMs);
    // The node table followed; filtering its current row away is no new choice.
    auto* nodeTable = window.findChild<QTableView*>(QStringLiteral("nodeTable"));
    QCOMPARE(nodeTable->currentIndex().siblingAtColumn(1).data().toString(),
             QString::fromStdString(conv.name));
    window.findChild<QLineEdit*>(QStringLiteral("nodeFilter"))->setText(QStringLiteral("Relu"));
    QCOMPARE(inspector->nodeName(), QString::fromStdString(conv.name));
    QCOMPARE(window.originalGraphView()->selectedNodeName(), QString::fromStdString(conv.name));

    // A fused group: its anchor, with the group named.
    FusedGroupModel* groups = window.fusedGroupModel();
    QVERIFY(groups->rowCount() > 0);
    QTableView* table = window.fusedGroupTable();
    const QModelIndex row = table->model()->index(0, 0);
    table->setCurrentIndex(row);
    const QString anchor = row.data(FusedGroupModel::AnchorRole).toString();
    QCOMPARE(inspector->nodeName(), anchor);
    QVERIFY(treeValue(inspector->properties(), QStringLiteral("Fused group"))
                .contains(row.siblingAtColumn(FusedGroupModel::KernelColumn).data().toString()));
    QVERIFY(treeValue(inspector->properties(), QStringLiteral("Position"))
                .contains(QStringLiteral("fuse_ops")));

    // Double-clicking a group opens its kernel in the Schedule tab once tasks are listed.
    studio::ScheduleEditorPage* page = window.schedulePage();
    QTRY_VERIFY_WITH_TIMEOUT(row.data(FusedGroupModel::TaskRole).toInt() >= 0, kTimeoutMs);
    const int task = row.data(FusedGroupModel::TaskRole).toInt();
    QSignalSpy opened(page, &studio::ScheduleEditorPage::taskOpened);
    emit table->doubleClicked(row);
    QCOMPARE(window.centralTabs()->currentWidget(), page);
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), kTimeoutMs);
    QCOMPARE(opened.back().front().toInt(), task);
  }

  void restoreDefaultLayoutBringsDocksBack() {
    MainWindow window;
    window.show();
    auto* inspectorDock = window.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
    auto* logDock = window.findChild<QDockWidget*>(QStringLiteral("logDock"));
    auto* groupsDock = window.findChild<QDockWidget*>(QStringLiteral("groupsDock"));
    QVERIFY(inspectorDock && logDock && groupsDock);
    QCOMPARE(window.dockWidgetArea(inspectorDock), Qt::RightDockWidgetArea);
    inspectorDock->hide();
    logDock->setFloating(true);
    window.addDockWidget(Qt::RightDockWidgetArea, groupsDock);
    window.mainToolBar()->hide();

    window.restoreDefaultLayout();
    QVERIFY(inspectorDock->isVisible());
    QVERIFY(!logDock->isFloating());
    QCOMPARE(window.dockWidgetArea(logDock), Qt::BottomDockWidgetArea);
    QCOMPARE(window.dockWidgetArea(groupsDock), Qt::LeftDockWidgetArea);
    QVERIFY(window.mainToolBar()->isVisible());
  }

  void cancelledLoadKeepsShownModel() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QSignalSpy discarded(window.loadTracker(), &studio::ModelLoadTracker::discarded);
    window.openModel(samplePath());
    QVERIFY(window.isLoading());
    window.cancelLoading();
    QVERIFY(!window.isLoading());
    QTRY_COMPARE_WITH_TIMEOUT(discarded.count(), 1, kTimeoutMs);
    QCOMPARE(shown.count(), 0);
    QVERIFY(window.currentModelPath().isEmpty());
  }
};

QTEST_MAIN(TestInspector)
#include "tst_inspector.moc"
