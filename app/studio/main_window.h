// The studio's main window: Graph, Nodes, Schedule, Tuning and Benchmark tabs in the middle;
// the model summary, fused groups, inspector and log in docks; File, View, Plugins and Help menus,
// a toolbar, drag and drop of .onnx files and packages. It only wires views to the driver;
// model loads run in ModelLoadTracker, packages open in the Package tab (PackagePage).
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "driver/model_loader.h"
#include "ir/tensor.h"

class QComboBox;
class QDockWidget;
class QLabel;
class QLayout;
class QLineEdit;
class QMenu;
class QMessageBox;
class QMimeData;
class QProgressBar;
class QSortFilterProxyModel;
class QTableView;
class QToolBar;
class QTimer;
class QToolButton;
class QTabWidget;
class QTemporaryDir;

namespace lathe::views {
class FusedGroupModel;
class GraphView;
class InspectorView;
struct GraphLayout;
class LogView;
class ModelSummaryView;
class NodeFilterProxyModel;
class NodeTableModel;
class TargetPicker;
}  // namespace lathe::views

namespace lathe::studio {

class BenchmarkPage;
struct GraphSnapshots;
class GraphSnapshotTracker;
class InputShapesDialog;
struct LoadedModel;
class ModelLoadTracker;
class PackagePage;
class ScheduleEditorPage;
class TuningPage;
class StudioSettings;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads in the background; the newest request wins. A model that fails to
  // load is reported in the log and the previous model stays shown. A model
  // that leaves input dimensions symbolic with nothing to give them a value
  // (no NAME.io.npz array, not a batch dimension, which is 1) opens once the
  // input shapes dialog has them; Cancel there keeps the previous model. A
  // compiled package (driver::is_package_path) opens in the Package tab.
  void openModel(const QString& path);
  // The small CNN bundled in the resources (copied to a temporary file first,
  // since the importer reads from a path).
  void openSampleModel();

  bool isLoading() const;
  // Empty until a model has been shown.
  QString currentModelPath() const { return currentPath_; }

  views::NodeTableModel* nodeTableModel() const { return nodeModel_; }
  views::NodeFilterProxyModel* nodeProxyModel() const { return nodeProxy_; }
  ModelLoadTracker* loadTracker() const { return loadTracker_; }
  StudioSettings* settings() const { return settings_; }

  // The Graph tab: the original graph on the left, the snapshot chosen in
  // the combo ("Original", one entry per pass, "Fused" last) on the right.
  views::GraphView* originalGraphView() const { return originalView_; }
  views::GraphView* snapshotGraphView() const { return snapshotView_; }
  QComboBox* snapshotCombo() const { return snapshotCombo_; }
  GraphSnapshotTracker* graphTracker() const { return graphTracker_; }
  // Null until the passes of the shown model have run.
  std::shared_ptr<const GraphSnapshots> graphSnapshots() const { return snapshots_; }

  // The Schedule tab: a kernel of the shown model in the schedule editor.
  ScheduleEditorPage* schedulePage() const { return schedulePage_; }
  // The Tuning tab: tuning sessions over the shown model's kernels.
  TuningPage* tuningPage() const { return tuningPage_; }
  // The Benchmark tab: the shown model's untuned, tuned and hand-edited builds timed.
  BenchmarkPage* benchmarkPage() const { return benchmarkPage_; }
  // The Package tab, shown only while a compiled package is open; the tabs
  // that need the ONNX model are disabled meanwhile.
  PackagePage* packagePage() const { return packagePage_; }
  QTabWidget* centralTabs() const { return centralTabs_; }

  // The node last selected in a graph view, the node table or the fused groups.
  views::InspectorView* inspector() const { return inspector_; }
  // The fused groups of the shown model; double-clicking one opens its
  // kernel in the Schedule tab.
  views::FusedGroupModel* fusedGroupModel() const { return groupModel_; }
  QTableView* fusedGroupTable() const { return groupTable_; }
  QToolBar* mainToolBar() const { return toolBar_; }
  // The compile target (toolbar): choosing another runs the model's passes
  // again for it, and the Schedule tab edits the kernels it compiles.
  views::TargetPicker* targetPicker() const { return targetPicker_; }
  // Docks, toolbar and their sizes as on first start (View › Restore Default Layout).
  void restoreDefaultLayout();
  // Stops waiting for the model being loaded; the shown model stays.
  void cancelLoading();
  // The dialog asking for the input shapes of the model being opened; null
  // when none is asked for.
  InputShapesDialog* inputShapesDialog() const;

  // The .onnx file or package (.tar) a drag carries, or an empty string.
  static QString modelPathFromMimeData(const QMimeData* mime);

 signals:
  void modelShown(const QString& path);
  // The Package tab shows the compiled package at `path`.
  void packageShown(const QString& path);
  void loadFailed(const QString& path);
  // The model at `path` needs input shapes: inputShapesDialog() asks for them.
  void inputShapesAsked(const QString& path);
  // The input shapes dialog was cancelled: the model at `path` is not opened.
  void openingCancelled(const QString& path);
  // The current model's passes ran: the fused groups, the Schedule and the
  // Tuning tabs show it, while its graphs are still being laid out.
  void snapshotsComputed(const QString& path);
  // Both graph views show the current model (original and fused, laid out).
  void graphsShown(const QString& path);
  // The current model's passes or one of its layouts failed (also in the log).
  void graphsFailed(const QString& path, const QString& message);
  // The right view shows the snapshot chosen in the combo.
  void snapshotShown(int comboIndex);

 protected:
  void showEvent(QShowEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createCentralWidget();
  QWidget* createGraphPage();
  QLayout* createGraphToolbar();
  QWidget* createGraphPanes();
  void connectGraphSelections();
  void connectGraphTracker();
  void connectLayoutProgress();
  QWidget* createNodePage();
  QWidget* createSchedulePage();
  QWidget* createTuningPage();
  QWidget* createBenchmarkPage();
  QWidget* createPackagePage();
  void createDocks();
  void applyDefaultDockSizes();
  void createToolBar();
  void createMenus();
  void createStatusBar();

  void chooseModelFile();
  void rebuildRecentFilesMenu();
  void showExportDialog();
  void showAbout();
  // Plugins › Load Plugins…
  void showPluginDialog();
  // Why no plugin may load now (a tuning session compiles in its thread), or empty.
  QString pluginLoadBlocker() const;
  // Stops the background work that reads the registries and waits for it.
  void quiesceForPluginLoad();
  // The Benchmark tab's codegen rows, and the model compiled again.
  void afterPluginsLoaded(const QStringList& names);

  // Loads the ONNX model at `path` with `inputShapes` for its open dimensions.
  void loadModel(const QString& path, const std::map<std::string, Shape>& inputShapes);
  void askInputShapes(const QString& path, const std::vector<driver::DeclaredInput>& open,
                      const QStringList& problems);
  // Closes the input shapes dialog unanswered: a newer request replaces its model.
  void dropInputShapesDialog();
  void showModel(const std::shared_ptr<const LoadedModel>& model);
  void openPackage(const QString& path);
  void showPackage(const QString& path);
  // Model tabs enabled and the Package tab hidden, or the other way round.
  void showModelTabs(bool modelShown);
  // The model's passes and kernels again, for the target now chosen.
  void changeTarget();
  // Tuning, Benchmark and Export need to run or package CPU kernels: off, with
  // the reason in their tool tips, for a target whose kernels cannot run here.
  void applyTargetLimits();
  void showLoadFailure(const QString& path, const QString& summary, const QStringList& problems);
  void setLoadingIndicator(bool loading);
  void updateWindowTitle();

  void showGraphSnapshots(const std::shared_ptr<const GraphSnapshots>& snapshots);
  void showSnapshot(int comboIndex);
  void showSnapshotLayout(int comboIndex, std::shared_ptr<const views::GraphLayout> layout);
  void showOriginalLayout(const std::shared_ptr<const GraphSnapshots>& snapshots,
                          std::shared_ptr<const views::GraphLayout> layout);
  // Emits graphsShown once both panes of the current snapshots are drawn.
  void announceGraphs();
  // The graph tab's status: the right pane's layout time and effort.
  void showLayoutStatus(const views::GraphLayout& shown);
  void searchGraph();

  // The inspector shows node `name` of the original graph, or of the
  // snapshot shown on the right.
  void inspectOriginalNode(const QString& name);
  void inspectSnapshotNode(const QString& name);
  void inspectGroup(const QModelIndex& proxyIndex);
  void editGroupSchedule(const QModelIndex& proxyIndex);
  // Opens the kernel of fused group `group` (task `workload`) in the Schedule tab.
  void openKernel(const QString& group, const QString& workload);

  StudioSettings* settings_ = nullptr;
  ModelLoadTracker* loadTracker_ = nullptr;
  views::NodeTableModel* nodeModel_ = nullptr;
  views::NodeFilterProxyModel* nodeProxy_ = nullptr;
  QLineEdit* filterEdit_ = nullptr;
  QTableView* nodeTable_ = nullptr;
  views::ModelSummaryView* summaryView_ = nullptr;
  views::LogView* logView_ = nullptr;
  QMenu* recentFilesMenu_ = nullptr;
  QProgressBar* busyIndicator_ = nullptr;
  QLabel* modelStatus_ = nullptr;
  QToolButton* cancelLoad_ = nullptr;
  QPointer<QMessageBox> errorBox_;
  QToolBar* toolBar_ = nullptr;
  views::TargetPicker* targetPicker_ = nullptr;
  bool modelTabsShown_ = false;
  QAction* openAction_ = nullptr;
  QAction* sampleAction_ = nullptr;
  QAction* exportAction_ = nullptr;
  QAction* fitAction_ = nullptr;
  QDockWidget* summaryDock_ = nullptr;
  QDockWidget* groupsDock_ = nullptr;
  QDockWidget* inspectorDock_ = nullptr;
  QDockWidget* logDock_ = nullptr;
  // saveState() right after the docks and toolbar were made.
  QByteArray defaultLayout_;
  bool sizeDocksOnShow_ = false;

  views::InspectorView* inspector_ = nullptr;
  views::FusedGroupModel* groupModel_ = nullptr;
  QSortFilterProxyModel* groupProxy_ = nullptr;
  QTableView* groupTable_ = nullptr;
  // Set while the node table follows a graph selection, so its row change
  // does not send the inspector back to the original graph.
  bool followingGraph_ = false;
  // The combo index of the snapshot the right-hand view shows.
  int shownSnapshot_ = -1;

  QTabWidget* centralTabs_ = nullptr;
  GraphSnapshotTracker* graphTracker_ = nullptr;
  views::GraphView* originalView_ = nullptr;
  views::GraphView* snapshotView_ = nullptr;
  QComboBox* snapshotCombo_ = nullptr;
  QLineEdit* graphSearch_ = nullptr;
  QLabel* originalTitle_ = nullptr;
  QLabel* snapshotTitle_ = nullptr;
  QLabel* graphStatus_ = nullptr;
  // While the graph panes are laid out: elapsed seconds, and a Cancel button
  // that kills the layout workers.
  QToolButton* cancelLayout_ = nullptr;
  QTimer* layoutClock_ = nullptr;
  QElapsedTimer layoutElapsed_;
  std::shared_ptr<const GraphSnapshots> snapshots_;
  // Layouts of the snapshots already shown, by snapshot index.
  std::vector<std::shared_ptr<const views::GraphLayout>> snapshotLayouts_;
  std::shared_ptr<const views::GraphLayout> originalLayout_;
  bool graphsAnnounced_ = false;

  ScheduleEditorPage* schedulePage_ = nullptr;
  TuningPage* tuningPage_ = nullptr;
  BenchmarkPage* benchmarkPage_ = nullptr;
  PackagePage* packagePage_ = nullptr;
  // The model shown: what Export Package compiles. Null until one loaded.
  std::shared_ptr<const LoadedModel> shownModel_;

  QString currentPath_;
  // The ONNX model last asked for, shown or not: what loading a plugin
  // opens again (it may import now).
  QString lastModelRequest_;
  // The input shapes given for it in the dialog, passed again when it reopens.
  std::map<std::string, Shape> lastModelShapes_;
  QPointer<InputShapesDialog> shapesDialog_;
  // Holds the copy of the bundled sample while the window lives.
  std::unique_ptr<QTemporaryDir> sampleDir_;
  QString samplePath_;
};

}  // namespace lathe::studio
