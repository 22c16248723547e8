// The main window's layout, menus and the wiring between the load tracker and
// the views.
#include "studio/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScopedValueRollback>
#include <QShowEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include "driver/kernel_tasks.h"
#include "driver/package_contents.h"
#include "driver/plugins.h"
#include "driver/target_device.h"
#include "studio/benchmark_page.h"
#include "studio/export_dialog.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/input_shapes_dialog.h"
#include "studio/model_load_tracker.h"
#include "studio/package_page.h"
#include "studio/plugin_dialog.h"
#include "studio/schedule_editor_page.h"
#include "studio/studio_settings.h"
#include "studio/tuning_page.h"
#include "views/fused_group_model.h"
#include "views/graph_view.h"
#include "views/inspector_view.h"
#include "views/log_view.h"
#include "views/model_summary_view.h"
#include "views/node_filter_proxy_model.h"
#include "views/node_table_model.h"
#include "views/number_format.h"
#include "views/target_picker.h"

// Q_INIT_RESOURCE declares a function in the enclosing namespace, so it must
// be called from the global one. The .qrc lives in a static library, whose
// registration would otherwise be dropped by the linker.
static void initLatheResources() {
  Q_INIT_RESOURCE(lathe);
}

namespace lathe::studio {

namespace {

const QString kSampleResource = QStringLiteral(":/lathe/sample_cnn.onnx");
const QString kApplicationTitle = QStringLiteral("Lathe Studio");
// Long node names (transformer exports) should not push the other columns away.
constexpr int kMaxNodeColumnWidth = 360;

// A graph view under its bold title, both named after `name` for tests and styles.
QWidget* titledGraphPane(QLabel*& title, views::GraphView*& view, const QString& name) {
  auto* widget = new QWidget;
  auto* layout = new QVBoxLayout(widget);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  title = new QLabel;
  title->setObjectName(name + QStringLiteral("Title"));
  QFont bold = title->font();
  bold.setBold(true);
  title->setFont(bold);
  view = new views::GraphView;
  view->setObjectName(name);
  layout->addWidget(title);
  layout->addWidget(view, 1);
  return widget;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      settings_(new StudioSettings(this)),
      loadTracker_(new ModelLoadTracker(this)) {
  initLatheResources();
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);

  createCentralWidget();
  createDocks();
  createToolBar();
  createMenus();
  createStatusBar();
  // Before any saved layout is restored: what Restore Default Layout returns to.
  defaultLayout_ = saveState();

  connect(loadTracker_, &ModelLoadTracker::loaded, this, &MainWindow::showModel);
  connect(loadTracker_, &ModelLoadTracker::failed, this, &MainWindow::showLoadFailure);
  connect(loadTracker_, &ModelLoadTracker::inputShapesNeeded, this, &MainWindow::askInputShapes);
  connect(loadTracker_, &ModelLoadTracker::loadingChanged, this, &MainWindow::setLoadingIndicator);
  connect(loadTracker_, &ModelLoadTracker::discarded, this, [this](const QString& path) {
    logView_->info(
        tr("Ignored the result for %1: it was cancelled or a newer request replaced it").arg(path));
  });

  updateWindowTitle();
  if (!restoreGeometry(settings_->windowGeometry())) resize(1280, 800);
  // Dock sizes only take once the window is laid out: on the first show.
  sizeDocksOnShow_ = !restoreState(settings_->windowState());
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentralWidget() {
  centralTabs_ = new QTabWidget;
  centralTabs_->setObjectName(QStringLiteral("centralTabs"));
  centralTabs_->setDocumentMode(true);
  centralTabs_->addTab(createGraphPage(), tr("&Graph"));
  centralTabs_->addTab(createNodePage(), tr("&Nodes"));
  centralTabs_->addTab(createSchedulePage(), tr("&Schedule"));
  centralTabs_->addTab(createTuningPage(), tr("T&uning"));
  centralTabs_->addTab(createBenchmarkPage(), tr("&Benchmark"));
  centralTabs_->addTab(createPackagePage(), tr("&Package"));
  showModelTabs(true);
  setCentralWidget(centralTabs_);
}

// The Graph tab: the original graph and the snapshot chosen in the toolbar's
// combo side by side, laid out in the background by graphTracker_.
QWidget* MainWindow::createGraphPage() {
  graphTracker_ = new GraphSnapshotTracker(this);
  QWidget* panes = createGraphPanes();  // first: the toolbar's Export acts on the right pane
  QLayout* toolbar = createGraphToolbar();
  connectGraphSelections();
  connectGraphTracker();
  connectLayoutProgress();

  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addLayout(toolbar);
  layout->addWidget(panes, 1);
  return page;
}

// The snapshot combo, node search, export, and the layout's status with its Cancel.
QLayout* MainWindow::createGraphToolbar() {
  snapshotCombo_ = new QComboBox;
  snapshotCombo_->setObjectName(QStringLiteral("snapshotCombo"));
  snapshotCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  snapshotCombo_->setToolTip(tr("The graph after each pass, shown on the right"));
  snapshotCombo_->setEnabled(false);
  connect(snapshotCombo_, &QComboBox::currentIndexChanged, this, &MainWindow::showSnapshot);

  graphSearch_ = new QLineEdit;
  graphSearch_->setObjectName(QStringLiteral("graphSearch"));
  graphSearch_->setPlaceholderText(tr("Find node or op (Enter: next)"));
  graphSearch_->setClearButtonEnabled(true);
  connect(graphSearch_, &QLineEdit::returnPressed, this, &MainWindow::searchGraph);

  auto* exportButton = new QToolButton;
  exportButton->setText(tr("Export…"));
  exportButton->setToolTip(tr("Export the right-hand graph as SVG, PNG or DOT"));

  graphStatus_ = new QLabel;
  graphStatus_->setObjectName(QStringLiteral("graphStatus"));
  cancelLayout_ = new QToolButton;
  cancelLayout_->setObjectName(QStringLiteral("cancelLayout"));
  cancelLayout_->setText(tr("Cancel"));
  cancelLayout_->setToolTip(tr("Stop laying out the graphs (the model and its kernels stay open)"));
  cancelLayout_->hide();
  layoutClock_ = new QTimer(this);
  layoutClock_->setInterval(500);

  auto* toolbar = new QHBoxLayout;
  toolbar->addWidget(new QLabel(tr("Snapshot:")));
  toolbar->addWidget(snapshotCombo_);
  toolbar->addWidget(graphSearch_, 1);
  toolbar->addWidget(exportButton);
  toolbar->addWidget(graphStatus_);
  toolbar->addWidget(cancelLayout_);
  connect(exportButton, &QToolButton::clicked, snapshotView_, &views::GraphView::chooseExportFile);
  return toolbar;
}

// The original graph on the left, the chosen snapshot on the right.
QWidget* MainWindow::createGraphPanes() {
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("graphSplitter"));
  splitter->addWidget(
      titledGraphPane(originalTitle_, originalView_, QStringLiteral("originalGraphView")));
  splitter->addWidget(
      titledGraphPane(snapshotTitle_, snapshotView_, QStringLiteral("snapshotGraphView")));
  splitter->setChildrenCollapsible(false);
  originalTitle_->setText(tr("Original"));
  snapshotTitle_->setText(tr("Snapshot"));
  return splitter;
}

// A node chosen in one graph is chosen in the other, in the node table and the inspector.
void MainWindow::connectGraphSelections() {
  // Selections follow each other by node name; selectNode does not echo.
  connect(originalView_, &views::GraphView::nodeSelected, snapshotView_,
          &views::GraphView::selectNode);
  connect(snapshotView_, &views::GraphView::nodeSelected, originalView_,
          &views::GraphView::selectNode);
  // The node table's current row follows the graphs (it lists the original graph's nodes).
  auto followInTable = [this](const QString& name) {
    const QModelIndexList hits =
        nodeModel_->match(nodeModel_->index(0, views::NodeTableModel::NameColumn), Qt::DisplayRole,
                          name, 1, Qt::MatchExactly);
    const QModelIndex row =
        hits.isEmpty() ? QModelIndex() : nodeProxy_->mapFromSource(hits.front());
    if (row.isValid()) {
      const QScopedValueRollback following(followingGraph_, true);
      nodeTable_->setCurrentIndex(row);
      nodeTable_->scrollTo(row);
    }
  };
  connect(originalView_, &views::GraphView::nodeSelected, this, followInTable);
  connect(snapshotView_, &views::GraphView::nodeSelected, this, followInTable);
  connect(originalView_, &views::GraphView::nodeSelected, this, &MainWindow::inspectOriginalNode);
  connect(snapshotView_, &views::GraphView::nodeSelected, this, &MainWindow::inspectSnapshotNode);
}

// The passes' outcome and each pane's layout reach the views.
void MainWindow::connectGraphTracker() {
  connect(graphTracker_, &GraphSnapshotTracker::computed, this, &MainWindow::showGraphSnapshots);
  connect(graphTracker_, &GraphSnapshotTracker::originalLaidOut, this,
          &MainWindow::showOriginalLayout);
  connect(graphTracker_, &GraphSnapshotTracker::laidOut, this,
          [this](const std::shared_ptr<const GraphSnapshots>& snapshots, int index,
                 std::shared_ptr<const views::GraphLayout> layout) {
            if (snapshots != snapshots_) return;
            snapshotLayouts_[static_cast<size_t>(index)] = layout;
            if (snapshotCombo_->currentIndex() == index + 1) showSnapshotLayout(index + 1, layout);
            announceGraphs();
          });
  connect(
      graphTracker_, &GraphSnapshotTracker::failed, this,
      [this](const QString& path, const QString& message) {
        logView_->error(tr("error: graph passes or layout failed for %1\n  %2").arg(path, message));
        graphStatus_->setText(tr("failed; see the log"));
        emit graphsFailed(path, message);
      });
}

// The toolbar's status follows the passes and layouts; a slow layout shows its time and Cancel.
void MainWindow::connectLayoutProgress() {
  connect(graphTracker_, &GraphSnapshotTracker::busyChanged, this, [this](bool busy) {
    if (busy && !graphTracker_->isLayingOut()) graphStatus_->setText(tr("running the passes…"));
  });
  // A layout taking longer than a moment shows its time and can be stopped.
  connect(graphTracker_, &GraphSnapshotTracker::layingOutChanged, this, [this](bool layingOut) {
    if (layingOut) {
      layoutElapsed_.start();
      graphStatus_->setText(tr("laying out…"));
      layoutClock_->start();
    } else {
      layoutClock_->stop();
      cancelLayout_->hide();
      if (const views::GraphLayout* shown = snapshotView_->graphLayout()) showLayoutStatus(*shown);
    }
  });
  connect(layoutClock_, &QTimer::timeout, this, [this] {
    graphStatus_->setText(tr("laying out… %1 s").arg(layoutElapsed_.elapsed() / 1000));
    cancelLayout_->show();
  });
  connect(cancelLayout_, &QToolButton::clicked, graphTracker_,
          &GraphSnapshotTracker::cancelLayouts);
  connect(graphTracker_, &GraphSnapshotTracker::layoutCancelled, this, [this] {
    graphStatus_->setText(tr("layout cancelled"));
    if (!originalLayout_) originalTitle_->setText(tr("Original — layout cancelled"));
    if (snapshotView_->graphLayout() == nullptr)
      snapshotTitle_->setText(tr("%1 — layout cancelled").arg(snapshotCombo_->currentText()));
    logView_->info(tr("Graph layout cancelled; choose a snapshot to lay it out again"));
  });
}

QWidget* MainWindow::createNodePage() {
  nodeModel_ = new views::NodeTableModel(this);
  nodeProxy_ = new views::NodeFilterProxyModel(this);
  nodeProxy_->setSourceModel(nodeModel_);

  filterEdit_ = new QLineEdit;
  filterEdit_->setObjectName(QStringLiteral("nodeFilter"));
  filterEdit_->setPlaceholderText(
      tr("Filter by node or op name (a capital letter makes it case-sensitive)"));
  filterEdit_->setClearButtonEnabled(true);
  // Filtering moves the table's current row when it hides it: that is no
  // choice of the user's, so the graphs and the inspector stay where they are.
  connect(filterEdit_, &QLineEdit::textChanged, this, [this](const QString& text) {
    const QScopedValueRollback following(followingGraph_, true);
    nodeProxy_->setFilterText(text);
  });

  auto* nodeCount = new QLabel;
  nodeCount->setObjectName(QStringLiteral("nodeCount"));
  auto updateCount = [this, nodeCount] {
    const int shown = nodeProxy_->rowCount();
    const int total = nodeModel_->rowCount();
    nodeCount->setText(shown == total ? tr("%n node(s)", nullptr, total)
                                      : tr("%1 of %n node(s)", nullptr, total).arg(shown));
  };
  connect(nodeProxy_, &QAbstractItemModel::modelReset, this, updateCount);
  connect(nodeProxy_, &QAbstractItemModel::rowsInserted, this, updateCount);
  connect(nodeProxy_, &QAbstractItemModel::rowsRemoved, this, updateCount);
  connect(nodeProxy_, &QAbstractItemModel::layoutChanged, this, updateCount);
  updateCount();

  nodeTable_ = new QTableView;
  nodeTable_->setObjectName(QStringLiteral("nodeTable"));
  nodeTable_->setModel(nodeProxy_);
  nodeTable_->setSortingEnabled(true);
  nodeTable_->sortByColumn(views::NodeTableModel::IndexColumn, Qt::AscendingOrder);
  nodeTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  nodeTable_->setAlternatingRowColors(true);
  nodeTable_->setWordWrap(false);
  nodeTable_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  nodeTable_->verticalHeader()->hide();
  nodeTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  nodeTable_->horizontalHeader()->setStretchLastSection(true);
  nodeTable_->horizontalHeader()->setHighlightSections(false);
  // Choosing a row selects the node in both graphs and inspects it.
  connect(nodeTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (followingGraph_ || !current.isValid()) return;
            const QString name =
                current.siblingAtColumn(views::NodeTableModel::NameColumn).data().toString();
            originalView_->selectNode(name);
            snapshotView_->selectNode(name);
            inspectOriginalNode(name);
          });

  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(filterEdit_, 1);
  filterRow->addWidget(nodeCount);

  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addLayout(filterRow);
  layout->addWidget(nodeTable_, 1);
  return central;
}

QWidget* MainWindow::createSchedulePage() {
  schedulePage_ = new ScheduleEditorPage(EditJournal::defaultPath());
  schedulePage_->setRecordsPath(TuningPage::defaultRecordsPath());
  schedulePage_->setObjectName(QStringLiteral("schedulePage"));
  // The fused groups dock names the task running each group.
  connect(schedulePage_, &ScheduleEditorPage::tasksListed, this,
          [this] { groupModel_->setTasks(schedulePage_->tasks()); });
  connect(schedulePage_, &ScheduleEditorPage::logMessage, this,
          [this](const QString& message, bool error) {
            if (error)
              logView_->error(message);
            else
              logView_->info(message);
          });
  return schedulePage_;
}

QWidget* MainWindow::createTuningPage() {
  tuningPage_ = new TuningPage;
  tuningPage_->setObjectName(QStringLiteral("tuningPage"));
  connect(tuningPage_, &TuningPage::logMessage, this, [this](const QString& message, bool error) {
    if (error)
      logView_->error(message);
    else
      logView_->info(message);
  });
  return tuningPage_;
}

QWidget* MainWindow::createBenchmarkPage() {
  // The tuned build reads what the Tuning tab writes; the hand-edited one the
  // Schedule tab's journal.
  benchmarkPage_ = new BenchmarkPage(TuningPage::defaultRecordsPath(), EditJournal::defaultPath());
  benchmarkPage_->setObjectName(QStringLiteral("benchmarkPage"));
  connect(benchmarkPage_, &BenchmarkPage::logMessage, this,
          [this](const QString& message, bool error) {
            if (error)
              logView_->error(message);
            else
              logView_->info(message);
          });
  connect(benchmarkPage_, &BenchmarkPage::kernelOpenRequested, this, &MainWindow::openKernel);
  return benchmarkPage_;
}

// The Package tab: a compiled package's graph, parameters, memory plan and benchmark.
QWidget* MainWindow::createPackagePage() {
  packagePage_ = new PackagePage;
  packagePage_->setObjectName(QStringLiteral("packagePage"));
  connect(packagePage_, &PackagePage::opened, this, &MainWindow::showPackage);
  connect(packagePage_, &PackagePage::failed, this, &MainWindow::showLoadFailure);
  connect(packagePage_, &PackagePage::logMessage, this, [this](const QString& message, bool error) {
    if (error)
      logView_->error(message);
    else
      logView_->info(message);
  });
  return packagePage_;
}

void MainWindow::showExportDialog() {
  if (!shownModel_) {
    statusBar()->showMessage(tr("Open a model to export it as a package"), 5000);
    return;
  }
  auto* dialog = new ExportDialog(
      shownModel_->path, std::shared_ptr<const Graph>(shownModel_, &shownModel_->graph),
      TuningPage::defaultRecordsPath(), EditJournal::defaultPath(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
}

void MainWindow::createDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* widget,
                     Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);  // restoreState matches docks by name
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
  };
  summaryView_ = new views::ModelSummaryView;
  summaryView_->setObjectName(QStringLiteral("modelSummary"));
  summaryDock_ =
      dock(tr("Model"), QStringLiteral("summaryDock"), summaryView_, Qt::LeftDockWidgetArea);

  groupModel_ = new views::FusedGroupModel(this);
  groupProxy_ = new QSortFilterProxyModel(this);
  groupProxy_->setSourceModel(groupModel_);
  groupProxy_->setSortRole(views::FusedGroupModel::SortRole);
  groupTable_ = new QTableView;
  groupTable_->setObjectName(QStringLiteral("fusedGroupTable"));
  groupTable_->setModel(groupProxy_);
  groupTable_->setSortingEnabled(true);
  groupTable_->sortByColumn(views::FusedGroupModel::GroupColumn, Qt::AscendingOrder);
  groupTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  groupTable_->setSelectionMode(QAbstractItemView::SingleSelection);
  groupTable_->setWordWrap(false);
  groupTable_->verticalHeader()->hide();
  groupTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  groupTable_->horizontalHeader()->setStretchLastSection(true);
  connect(groupTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &MainWindow::inspectGroup);
  connect(groupTable_, &QTableView::doubleClicked, this, &MainWindow::editGroupSchedule);
  groupsDock_ =
      dock(tr("Fused Groups"), QStringLiteral("groupsDock"), groupTable_, Qt::LeftDockWidgetArea);

  inspector_ = new views::InspectorView;
  inspector_->setObjectName(QStringLiteral("inspector"));
  inspectorDock_ =
      dock(tr("Inspector"), QStringLiteral("inspectorDock"), inspector_, Qt::RightDockWidgetArea);

  logView_ = new views::LogView;
  logView_->setObjectName(QStringLiteral("logView"));
  logDock_ = dock(tr("Log"), QStringLiteral("logDock"), logView_, Qt::BottomDockWidgetArea);
  applyDefaultDockSizes();
}

void MainWindow::applyDefaultDockSizes() {
  resizeDocks({summaryDock_, inspectorDock_}, {300, 320}, Qt::Horizontal);
  resizeDocks({summaryDock_, groupsDock_}, {260, 340}, Qt::Vertical);
  resizeDocks({logDock_}, {150}, Qt::Vertical);
}

void MainWindow::restoreDefaultLayout() {
  restoreState(defaultLayout_);
  for (QDockWidget* dock : {summaryDock_, groupsDock_, inspectorDock_, logDock_}) {
    dock->setFloating(false);
    dock->show();
  }
  toolBar_->show();
  applyDefaultDockSizes();
  statusBar()->showMessage(tr("Restored the default layout"), 3000);
}

void MainWindow::createToolBar() {
  const QStyle* style = this->style();
  openAction_ = new QAction(style->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setToolTip(tr("Open an ONNX model or a compiled package (Ctrl+O)"));
  connect(openAction_, &QAction::triggered, this, &MainWindow::chooseModelFile);
  sampleAction_ =
      new QAction(style->standardIcon(QStyle::SP_FileIcon), tr("Open &Sample Model"), this);
  sampleAction_->setToolTip(tr("Open the small CNN bundled with the studio"));
  connect(sampleAction_, &QAction::triggered, this, &MainWindow::openSampleModel);
  exportAction_ =
      new QAction(style->standardIcon(QStyle::SP_DialogSaveButton), tr("&Export Package…"), this);
  exportAction_->setObjectName(QStringLiteral("exportPackageAction"));
  exportAction_->setShortcut(QKeySequence(tr("Ctrl+E")));
  exportAction_->setToolTip(
      tr("Compile the model with its tuning records into a package (Ctrl+E)"));
  connect(exportAction_, &QAction::triggered, this, &MainWindow::showExportDialog);
  fitAction_ =
      new QAction(style->standardIcon(QStyle::SP_TitleBarMaxButton), tr("&Fit Graphs"), this);
  fitAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  fitAction_->setToolTip(tr("Fit both graphs in their views (Ctrl+0)"));
  connect(fitAction_, &QAction::triggered, originalView_, &views::GraphView::fitGraph);
  connect(fitAction_, &QAction::triggered, snapshotView_, &views::GraphView::fitGraph);

  toolBar_ = addToolBar(tr("Main Toolbar"));
  toolBar_->setObjectName(QStringLiteral("mainToolBar"));
  toolBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolBar_->addAction(openAction_);
  toolBar_->addAction(sampleAction_);
  toolBar_->addAction(exportAction_);
  toolBar_->addSeparator();
  toolBar_->addAction(fitAction_);
  toolBar_->addSeparator();
  targetPicker_ = new views::TargetPicker;
  targetPicker_->setObjectName(QStringLiteral("targetPicker"));
  toolBar_->addWidget(targetPicker_);
  connect(targetPicker_, &views::TargetPicker::targetChosen, this, &MainWindow::changeTarget);
  connect(targetPicker_, &views::TargetPicker::targetRejected, this,
          [this](const QString& text, const QString& message) {
            logView_->error(tr("Target '%1' not applied: %2").arg(text, message));
          });
}

void MainWindow::changeTarget() {
  const driver::Target& target = targetPicker_->target();
  const QString name = QString::fromStdString(target.to_string());
  applyTargetLimits();
  if (!shownModel_) {
    logView_->info(tr("Target: %1").arg(name));
    return;
  }
  logView_->info(tr("Target: %1; compiling %2's kernels for it")
                     .arg(name, QFileInfo(shownModel_->path).fileName()));
  graphTracker_->compute(shownModel_->path,
                         std::shared_ptr<const Graph>(shownModel_, &shownModel_->graph), target);
}

void MainWindow::applyTargetLimits() {
  const driver::Target& target = targetPicker_->target();
  const QString whyNoRun = QString::fromStdString(driver::why_kernels_cannot_run(target));
  const QString whyNoPeak = QString::fromStdString(driver::why_peak_unknown(target));
  // The benchmarks run a GPU build on the GPU where there is one; the tuner
  // and packages compile for the CPU so far.
  const bool cpu = !target.is_gpu();
  benchmarkPage_->setTarget(target);
  for (QWidget* page :
       {static_cast<QWidget*>(tuningPage_), static_cast<QWidget*>(benchmarkPage_)}) {
    const int index = centralTabs_->indexOf(page);
    if (!modelTabsShown_) continue;  // showModelTabs says why
    const bool builds = cpu || page == benchmarkPage_;
    const bool usable = builds && whyNoRun.isEmpty();
    centralTabs_->setTabEnabled(index, usable);
    QString tip;
    if (!usable) {
      const QString reason = !whyNoRun.isEmpty()
                                 ? whyNoRun
                                 : tr("tuning and packages are built for CPU targets only so far");
      tip = page == tuningPage_ ? tr("Tuning runs kernels: %1").arg(reason)
                                : tr("Benchmarks and the roofline run kernels: %1").arg(reason);
      if (page == benchmarkPage_ && !whyNoPeak.isEmpty()) tip += QStringLiteral("\n") + whyNoPeak;
    }
    centralTabs_->setTabToolTip(index, tip);
  }
  if (exportAction_) {
    exportAction_->setEnabled(modelTabsShown_ && cpu);
    exportAction_->setToolTip(
        cpu ? tr("Compile the model with its tuning records into a package (Ctrl+E)")
            : tr("Packages carry CPU kernels so far; the target is %1")
                  .arg(QString::fromStdString(target.to_string())));
  }
  if (!cpu && centralTabs_->currentWidget() != schedulePage_ &&
      !centralTabs_->isTabEnabled(centralTabs_->currentIndex()))
    centralTabs_->setCurrentWidget(schedulePage_);
}

void MainWindow::createMenus() {
  QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
  fileMenu->addAction(openAction_);
  fileMenu->addAction(sampleAction_);
  recentFilesMenu_ = fileMenu->addMenu(tr("Open &Recent"));
  recentFilesMenu_->setObjectName(QStringLiteral("recentFilesMenu"));
  recentFilesMenu_->setToolTipsVisible(true);
  // Rebuilt on show, so files deleted since are pruned before they are offered.
  connect(recentFilesMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentFilesMenu);
  // Queued: "Clear Menu" changes the list while its own action is still emitting.
  connect(settings_, &StudioSettings::recentFilesChanged, this, &MainWindow::rebuildRecentFilesMenu,
          Qt::QueuedConnection);
  rebuildRecentFilesMenu();
  fileMenu->addSeparator();
  fileMenu->addAction(exportAction_);
  fileMenu->addSeparator();
  QAction* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  // Ctrl+F finds in whichever page is shown: the graph search or the node filter.
  QAction* find = viewMenu->addAction(tr("&Find Node"), this, [this] {
    QLineEdit* edit = centralTabs_->currentIndex() == 0 ? graphSearch_ : filterEdit_;
    edit->setFocus(Qt::ShortcutFocusReason);
    edit->selectAll();
  });
  find->setShortcut(QKeySequence::Find);
  viewMenu->addAction(fitAction_);
  viewMenu->addSeparator();
  for (QDockWidget* dock : {summaryDock_, groupsDock_, inspectorDock_, logDock_})
    viewMenu->addAction(dock->toggleViewAction());
  viewMenu->addAction(toolBar_->toggleViewAction());
  viewMenu->addSeparator();
  QAction* restore =
      viewMenu->addAction(tr("&Restore Default Layout"), this, &MainWindow::restoreDefaultLayout);
  restore->setObjectName(QStringLiteral("restoreLayoutAction"));

  QMenu* pluginMenu = menuBar()->addMenu(tr("&Plugins"));
  QAction* plugins =
      pluginMenu->addAction(tr("&Load Plugins…"), this, &MainWindow::showPluginDialog);
  plugins->setObjectName(QStringLiteral("loadPluginsAction"));
  plugins->setToolTip(tr("Ops and external codegens from the plugins on the search path"));

  QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
  QAction* about = helpMenu->addAction(tr("&About Lathe Studio"), this, &MainWindow::showAbout);
  about->setMenuRole(QAction::AboutRole);
  helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)
      ->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::createStatusBar() {
  modelStatus_ = new QLabel;
  statusBar()->addPermanentWidget(modelStatus_);
  // An indeterminate bar: load_model reports no progress, only that it runs.
  busyIndicator_ = new QProgressBar;
  busyIndicator_->setObjectName(QStringLiteral("busyIndicator"));
  busyIndicator_->setRange(0, 0);
  busyIndicator_->setMaximumWidth(140);
  busyIndicator_->setTextVisible(false);
  busyIndicator_->hide();
  statusBar()->addPermanentWidget(busyIndicator_);
  cancelLoad_ = new QToolButton;
  cancelLoad_->setObjectName(QStringLiteral("cancelLoadButton"));
  cancelLoad_->setText(tr("Cancel"));
  cancelLoad_->setToolTip(tr("Stop waiting for this model; the one shown stays"));
  cancelLoad_->hide();
  connect(cancelLoad_, &QToolButton::clicked, this, &MainWindow::cancelLoading);
  statusBar()->addPermanentWidget(cancelLoad_);
}

void MainWindow::cancelLoading() {
  if (!loadTracker_->isLoading()) return;
  loadTracker_->cancel();
  logView_->info(
      currentPath_.isEmpty()
          ? tr("Cancelled loading")
          : tr("Cancelled loading; %1 stays shown").arg(QFileInfo(currentPath_).fileName()));
  statusBar()->showMessage(tr("Cancelled"), 3000);
}

bool MainWindow::isLoading() const {
  return loadTracker_->isLoading();
}

void MainWindow::openModel(const QString& path) {
  if (driver::is_package_path(QFile::encodeName(path).toStdString())) {
    openPackage(path);
    return;
  }
  loadModel(path, {});
}

void MainWindow::loadModel(const QString& path, const std::map<std::string, Shape>& inputShapes) {
  dropInputShapesDialog();
  packagePage_->cancelOpen();
  lastModelRequest_ = path;
  lastModelShapes_ = inputShapes;
  logView_->info(
      inputShapes.empty()
          ? tr("Opening %1").arg(path)
          : tr("Opening %1 with input shapes %2").arg(path, inputShapesText(inputShapes)));
  statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  loadTracker_->load(path, inputShapes);
}

InputShapesDialog* MainWindow::inputShapesDialog() const {
  return shapesDialog_;
}

void MainWindow::askInputShapes(const QString& path, const std::vector<driver::DeclaredInput>& open,
                                const QStringList& problems) {
  // Shapes from the dialog leave nothing open; if something still is, asking
  // again would not end.
  if (!lastModelShapes_.empty()) {
    showLoadFailure(path, tr("input dimensions are still symbolic"), problems);
    return;
  }
  const QString fileName = QFileInfo(path).fileName();
  QString text = tr("%1 leaves input dimensions symbolic; asking for their sizes").arg(fileName);
  for (const QString& problem : problems) text += QStringLiteral("\n    ") + problem;
  logView_->info(text);
  statusBar()->showMessage(tr("%1 needs input shapes").arg(fileName));

  auto* dialog = new InputShapesDialog(fileName, open, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  shapesDialog_ = dialog;
  connect(dialog, &QDialog::accepted, this,
          [this, dialog, path] { loadModel(path, dialog->inputShapes()); });
  connect(dialog, &QDialog::rejected, this, [this, path] {
    logView_->info(currentPath_.isEmpty()
                       ? tr("Did not open %1: no input shapes were given").arg(path)
                       : tr("Did not open %1: no input shapes were given; %2 stays shown")
                             .arg(path, QFileInfo(currentPath_).fileName()));
    statusBar()->showMessage(tr("Cancelled"), 3000);
    emit openingCancelled(path);
  });
  // Window-modal without blocking: loads and tests go on around it.
  dialog->open();
  emit inputShapesAsked(path);
}

void MainWindow::dropInputShapesDialog() {
  if (!shapesDialog_) return;
  disconnect(shapesDialog_, nullptr, this, nullptr);
  shapesDialog_->close();
  shapesDialog_ = nullptr;
}

void MainWindow::openSampleModel() {
  if (samplePath_.isEmpty() || !QFileInfo::exists(samplePath_)) {
    samplePath_.clear();
    sampleDir_ = std::make_unique<QTemporaryDir>();
    const QString target = sampleDir_->filePath(QFileInfo(kSampleResource).fileName());
    if (!sampleDir_->isValid() || !QFile::copy(kSampleResource, target)) {
      showLoadFailure(kSampleResource,
                      tr("cannot copy the bundled sample model to a temporary folder"),
                      {sampleDir_->errorString()});
      return;
    }
    samplePath_ = target;
  }
  openModel(samplePath_);
}

void MainWindow::chooseModelFile() {
  const QString start = currentPath_.isEmpty() || currentPath_ == samplePath_
                            ? QString()
                            : QFileInfo(currentPath_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model or Package"), start,
      tr("Models and packages (*.onnx *.tar);;ONNX models (*.onnx);;Lathe packages (*.tar);;"
         "All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void MainWindow::rebuildRecentFilesMenu() {
  // Read first: pruning missing files emits recentFilesChanged, which may
  // rebuild this menu once more before we fill it.
  const QStringList files = settings_->recentFiles();
  recentFilesMenu_->clear();
  for (int i = 0; i < files.size(); ++i) {
    const QString& path = files[i];
    // Number the first nine so each has a keyboard accelerator.
    const QString label = i < 9
                              ? QStringLiteral("&%1  %2").arg(i + 1).arg(QFileInfo(path).fileName())
                              : QFileInfo(path).fileName();
    QAction* action = recentFilesMenu_->addAction(label, this, [this, path] { openModel(path); });
    action->setData(path);
    action->setToolTip(path);
    action->setStatusTip(path);
  }
  if (files.isEmpty()) {
    recentFilesMenu_->addAction(tr("No recent files"))->setEnabled(false);
    return;
  }
  recentFilesMenu_->addSeparator();
  recentFilesMenu_->addAction(tr("&Clear Menu"), settings_, &StudioSettings::clearRecentFiles);
}

void MainWindow::showAbout() {
  QMessageBox::about(
      this, tr("About Lathe Studio"),
      tr("<h3>Lathe Studio %1</h3>"
         "<p>The workbench of Lathe, a deep learning compiler: open an ONNX model and see "
         "what every stage of the compiler makes of it.</p>"
         "<p>Built with Qt %2.</p>")
          .arg(QStringLiteral(LATHE_VERSION), QString::fromLatin1(qVersion())));
}

void MainWindow::showModel(const std::shared_ptr<const LoadedModel>& model) {
  currentPath_ = model->path;
  const QString fileName = QFileInfo(model->path).fileName();
  nodeModel_->setGraph(model->graph, model->info);
  for (int column = 0; column < views::NodeTableModel::InputsColumn; ++column) {
    nodeTable_->resizeColumnToContents(column);
    if (nodeTable_->columnWidth(column) > kMaxNodeColumnWidth)
      nodeTable_->setColumnWidth(column, kMaxNodeColumnWidth);
  }
  summaryView_->setModelInfo(fileName, model->info);
  // Nothing of the previous model stays inspectable.
  inspector_->clear();
  groupModel_->clear();
  // The sample lives in a temporary folder that is gone next session.
  if (model->path != samplePath_) settings_->addRecentFile(model->path);

  const QString macs =
      views::siNumber(static_cast<double>(model->info.total_macs), QStringLiteral("MAC"));
  logView_->info(tr("Opened %1: %2 nodes, %3 parameters, %4 in %5 ms")
                     .arg(fileName)
                     .arg(model->info.nodes.size())
                     .arg(views::groupedNumber(model->info.parameter_count), macs)
                     .arg(model->milliseconds));
  for (const QString& note : model->notes) logView_->info(tr("Note: %1").arg(note));
  statusBar()->showMessage(tr("Opened %1").arg(fileName), 5000);
  modelStatus_->setText(tr("%1 nodes · %2").arg(model->info.nodes.size()).arg(macs));
  updateWindowTitle();
  // The views keep the previous graphs until the new ones are ready.
  graphTracker_->compute(model->path, std::shared_ptr<const Graph>(model, &model->graph),
                         targetPicker_->target());
  // The builds compile the imported graph: they run the passes themselves.
  shownModel_ = model;
  benchmarkPage_->setModel(model->path, std::shared_ptr<const Graph>(model, &model->graph));
  showModelTabs(true);
  emit modelShown(model->path);
}

void MainWindow::openPackage(const QString& path) {
  // The newest request wins, whichever kind it is.
  if (loadTracker_->isLoading()) loadTracker_->cancel();
  dropInputShapesDialog();
  logView_->info(tr("Opening package %1").arg(path));
  statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  packagePage_->open(path);
}

void MainWindow::showPackage(const QString& path) {
  currentPath_ = path;
  settings_->addRecentFile(path);
  // The docks describe a model; a package has its own summary on its page.
  summaryView_->clearModelInfo();
  groupModel_->clear();
  inspector_->clear();
  showModelTabs(false);
  centralTabs_->setCurrentWidget(packagePage_);
  updateWindowTitle();
  const QString fileName = QFileInfo(path).fileName();
  logView_->info(tr("Opened package %1").arg(fileName));
  statusBar()->showMessage(tr("Opened %1").arg(fileName), 5000);
  modelStatus_->setText(tr("compiled package"));
  emit packageShown(path);
}

void MainWindow::showModelTabs(bool modelShown) {
  const QString needsModel =
      tr("Needs the ONNX model: a package holds compiled kernels only. Open the .onnx it was "
         "compiled from");
  for (QWidget* page :
       {centralTabs_->widget(0), centralTabs_->widget(1), static_cast<QWidget*>(schedulePage_),
        static_cast<QWidget*>(tuningPage_), static_cast<QWidget*>(benchmarkPage_)}) {
    const int index = centralTabs_->indexOf(page);
    centralTabs_->setTabEnabled(index, modelShown);
    centralTabs_->setTabToolTip(index, modelShown ? QString() : needsModel);
  }
  centralTabs_->setTabVisible(centralTabs_->indexOf(packagePage_), !modelShown);
  // Export compiles the model, which a package does not carry.
  if (exportAction_) exportAction_->setEnabled(modelShown);
  modelTabsShown_ = modelShown;
  if (targetPicker_) applyTargetLimits();
}

void MainWindow::showGraphSnapshots(const std::shared_ptr<const GraphSnapshots>& snapshots) {
  snapshots_ = snapshots;
  graphsAnnounced_ = false;
  const auto& list = snapshots->optimized.snapshots;
  snapshotLayouts_.assign(list.size(), nullptr);
  originalLayout_ = nullptr;
  // Both panes are laid out in the background; everything else is ready now.
  originalView_->clearGraph();
  snapshotView_->clearGraph();
  originalTitle_->setText(tr("Original — %n node(s) — laying out…", nullptr,
                             static_cast<int>(snapshots->original.nodes.size())));
  graphTracker_->layOutOriginal(snapshots);

  const QSignalBlocker blocker(snapshotCombo_);
  snapshotCombo_->clear();
  snapshotCombo_->addItem(tr("Original"));
  for (size_t i = 0; i < list.size(); ++i) {
    const QString pass = QString::fromStdString(list[i].pass);
    const bool last = i + 1 == list.size();
    snapshotCombo_->addItem(last ? tr("Fused") : QStringLiteral("%1. %2").arg(i + 1).arg(pass));
    snapshotCombo_->setItemData(
        static_cast<int>(i) + 1,
        tr("after %1 (%2 ms)").arg(pass).arg(list[i].milliseconds, 0, 'f', 1), Qt::ToolTipRole);
  }
  snapshotCombo_->setEnabled(true);
  snapshotCombo_->setCurrentIndex(snapshotCombo_->count() - 1);
  showSnapshot(snapshotCombo_->currentIndex());
  groupModel_->setGroups(snapshots->optimized.graph, snapshots->optimized.groups);
  groupTable_->resizeColumnsToContents();
  inspector_->clear();
  // The optimized graph's kernels are what the Schedule tab edits.
  schedulePage_->setGraphSnapshots(snapshots);
  // The Tuning tab tunes the same kernels; a session on the previous model
  // stops. It tunes for the CPU only so far: a GPU target's kernels leave it
  // (and a session running) as it was.
  if (!snapshots->target.is_gpu()) tuningPage_->setGraphSnapshots(snapshots);

  logView_->info(tr("Graph passes of %1: %2 ms")
                     .arg(QFileInfo(snapshots->path).fileName())
                     .arg(snapshots->milliseconds));
  emit snapshotsComputed(snapshots->path);
}

void MainWindow::showOriginalLayout(const std::shared_ptr<const GraphSnapshots>& snapshots,
                                    std::shared_ptr<const views::GraphLayout> layout) {
  if (snapshots != snapshots_) return;
  originalLayout_ = layout;
  originalView_->setGraphLayout(layout);
  originalTitle_->setText(
      tr("Original — %n node(s)", nullptr, static_cast<int>(snapshots->original.nodes.size())));
  if (snapshotCombo_->currentIndex() == 0) showSnapshotLayout(0, layout);
  announceGraphs();
}

void MainWindow::announceGraphs() {
  if (graphsAnnounced_ || !snapshots_ || !originalLayout_ || snapshotLayouts_.empty() ||
      !snapshotLayouts_.back())
    return;
  graphsAnnounced_ = true;
  auto describe = [](const views::GraphLayout& layout) {
    return layout.effort == views::LayoutEffort::Bounded
               ? tr("%1 ms, bounded: straight edges").arg(layout.milliseconds, 0, 'f', 0)
               : tr("%1 ms").arg(layout.milliseconds, 0, 'f', 0);
  };
  logView_->info(tr("Layouts of %1: original %2, fused %3")
                     .arg(QFileInfo(snapshots_->path).fileName(), describe(*originalLayout_),
                          describe(*snapshotLayouts_.back())));
  emit graphsShown(snapshots_->path);
}

void MainWindow::showSnapshot(int comboIndex) {
  if (!snapshots_ || comboIndex < 0) return;
  if (comboIndex == 0) {
    // The original's layout arrives through showOriginalLayout; one that was
    // cancelled is asked for again.
    if (originalLayout_) {
      showSnapshotLayout(comboIndex, originalLayout_);
    } else {
      snapshotTitle_->setText(tr("%1 — laying out…").arg(snapshotCombo_->itemText(comboIndex)));
      if (!graphTracker_->isLayingOutOriginal()) graphTracker_->layOutOriginal(snapshots_);
    }
    return;
  }
  const size_t index = static_cast<size_t>(comboIndex - 1);
  if (index >= snapshotLayouts_.size()) return;
  if (snapshotLayouts_[index]) {
    showSnapshotLayout(comboIndex, snapshotLayouts_[index]);
    return;
  }
  snapshotTitle_->setText(tr("%1 — laying out…").arg(snapshotCombo_->itemText(comboIndex)));
  graphTracker_->layOut(snapshots_, comboIndex - 1);
}

void MainWindow::showSnapshotLayout(int comboIndex,
                                    std::shared_ptr<const views::GraphLayout> layout) {
  const QString selected = originalView_->selectedNodeName();
  snapshotView_->setGraphLayout(std::move(layout));
  shownSnapshot_ = comboIndex;
  if (!selected.isEmpty()) snapshotView_->selectNode(selected);
  const int nodes = snapshotView_->operatorItemCount();
  const int groups = snapshotView_->clusterItemCount();
  QString title = tr("%1 — %n node(s)", nullptr, nodes).arg(snapshotCombo_->itemText(comboIndex));
  if (groups > 0) title += tr(" in %n fused group(s)", nullptr, groups);
  snapshotTitle_->setText(title);
  showLayoutStatus(*snapshotView_->graphLayout());
  emit snapshotShown(comboIndex);
}

void MainWindow::showLayoutStatus(const views::GraphLayout& shown) {
  graphStatus_->setText(tr("layout %1 ms").arg(shown.milliseconds, 0, 'f', 0));
  graphStatus_->setToolTip(
      shown.effort == views::LayoutEffort::Bounded
          ? tr("A large graph whose edges span many ranks: laid out with capped searches and "
               "straight edges, so that it draws in about a second")
          : QString());
}

void MainWindow::inspectOriginalNode(const QString& name) {
  // The node table lists the shown model at once; its passes may still run.
  if (!shownModel_) return;
  const std::shared_ptr<const Graph> graph(shownModel_, &shownModel_->graph);
  inspector_->showNode(graph, graph->find_node(name.toStdString()), tr("original"));
}

void MainWindow::inspectSnapshotNode(const QString& name) {
  // The snapshot on screen: a newly chosen one may still be laid out.
  const int comboIndex = shownSnapshot_;
  if (!snapshots_ || snapshots_->path != currentPath_) {
    inspector_->clear();
    return;
  }
  if (comboIndex <= 0) {
    inspectOriginalNode(name);
    return;
  }
  const driver::GraphSnapshot& snapshot =
      snapshots_->optimized.snapshots.at(static_cast<size_t>(comboIndex - 1));
  const std::shared_ptr<const Graph> graph(snapshots_, &snapshot.graph);
  const int node = graph->find_node(name.toStdString());
  QString group;
  for (const driver::FusedGroup& g : snapshot.groups)
    if (std::find(g.nodes.begin(), g.nodes.end(), node) != g.nodes.end())
      group = QStringLiteral("#%1 %2").arg(g.id).arg(QString::fromStdString(g.name));
  inspector_->showNode(graph, node, tr("after %1").arg(QString::fromStdString(snapshot.pass)),
                       group);
}

void MainWindow::inspectGroup(const QModelIndex& proxyIndex) {
  if (!snapshots_ || !proxyIndex.isValid()) return;
  const QString anchor = proxyIndex.data(views::FusedGroupModel::AnchorRole).toString();
  // The groups are the fused graph's: show it on the right if another snapshot is.
  if (snapshotCombo_->currentIndex() != snapshotCombo_->count() - 1)
    snapshotCombo_->setCurrentIndex(snapshotCombo_->count() - 1);
  snapshotView_->selectNode(anchor);
  originalView_->selectNode(anchor);
  inspectSnapshotNode(anchor);
}

void MainWindow::editGroupSchedule(const QModelIndex& proxyIndex) {
  const int task = proxyIndex.data(views::FusedGroupModel::TaskRole).toInt();
  if (task < 0) {
    statusBar()->showMessage(tr("The group's kernels are still being listed"), 3000);
    return;
  }
  centralTabs_->setCurrentWidget(schedulePage_);
  schedulePage_->openTask(task);
}

void MainWindow::openKernel(const QString& group, const QString& workload) {
  // The benchmark compiled the shown model through the same passes, so its
  // task is one of the Schedule tab's; the workload id names it.
  for (const driver::KernelTask& task : schedulePage_->tasks()) {
    if (QString::fromStdString(driver::task_workload_id(task)) != workload) continue;
    centralTabs_->setCurrentWidget(schedulePage_);
    schedulePage_->openTask(task.id);
    statusBar()->showMessage(tr("Opened the kernel of %1").arg(group), 3000);
    return;
  }
  statusBar()->showMessage(schedulePage_->tasks().empty()
                               ? tr("The model's kernels are still being listed")
                               : tr("The Schedule tab has no kernel like %1's").arg(group),
                           5000);
}

void MainWindow::searchGraph() {
  const QString text = graphSearch_->text().trimmed();
  if (text.isEmpty()) return;
  if (snapshotView_->findNode(text) || originalView_->findNode(text)) return;
  statusBar()->showMessage(tr("No node or op matches \"%1\"").arg(text), 5000);
}

void MainWindow::showLoadFailure(const QString& path, const QString& summary,
                                 const QStringList& problems) {
  const QString fileName = QFileInfo(path).fileName();
  // The summary usually names the file already; problems are indented under it.
  QString text = tr("error: cannot open %1\n  %2").arg(path, summary);
  for (const QString& problem : problems) text += QStringLiteral("\n    ") + problem;
  logView_->error(text);
  statusBar()->showMessage(tr("Could not open %1; see the log").arg(fileName), 10000);

  // Non-modal, so a failing load never blocks the window (or a test run); a
  // newer failure replaces the older box instead of stacking.
  if (errorBox_) errorBox_->close();
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot Open Model"),
                              tr("%1 could not be opened.").arg(fileName), QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("loadErrorBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setModal(false);
  constexpr int kProblemsShown = 8;
  QStringList shown = problems.mid(0, kProblemsShown);
  if (problems.size() > kProblemsShown)
    shown << tr("… and %n more (see the details or the log)", nullptr,
                static_cast<int>(problems.size() - kProblemsShown));
  box->setInformativeText(
      shown.isEmpty() ? summary : summary + QStringLiteral("\n\n") + shown.join(QLatin1Char('\n')));
  if (!problems.isEmpty()) box->setDetailedText(problems.join(QLatin1Char('\n')));
  box->show();
  errorBox_ = box;
  emit loadFailed(path);
}

void MainWindow::showPluginDialog() {
  auto* dialog = findChild<PluginDialog*>();
  if (!dialog) {
    dialog = new PluginDialog([this] { return pluginLoadBlocker(); },
                              [this] { quiesceForPluginLoad(); }, this);
    connect(dialog, &PluginDialog::pluginsLoaded, this, &MainWindow::afterPluginsLoaded);
  } else {
    dialog->refresh();
  }
  dialog->show();
  dialog->raise();
  dialog->activateWindow();
}

QString MainWindow::pluginLoadBlocker() const {
  return tuningPage_->runner()->isActive()
             ? tr("a tuning session is running; stop it in the Tuning tab first")
             : QString();
}

void MainWindow::quiesceForPluginLoad() {
  // Every other background job runs in the global pool: the benchmark is
  // cancelled, the rest (a compile, a model load, a layout) end soon.
  benchmarkPage_->cancel();
  QApplication::setOverrideCursor(Qt::WaitCursor);
  QThreadPool::globalInstance()->waitForDone();
  QApplication::restoreOverrideCursor();
}

void MainWindow::afterPluginsLoaded(const QStringList& names) {
  QStringList lines;
  for (const driver::LoadedPlugin& plugin : driver::loaded_plugins())
    if (names.contains(QString::fromStdString(plugin.name))) {
      QStringList adds;
      for (const std::string& op : plugin.ops) adds << QString::fromStdString(op);
      for (const std::string& codegen : plugin.codegens)
        adds << tr("codegen %1").arg(QString::fromStdString(codegen));
      lines << tr("Loaded plugin %1 from %2: %3")
                   .arg(QString::fromStdString(plugin.name), QString::fromStdString(plugin.path),
                        adds.isEmpty() ? tr("adds nothing") : adds.join(QStringLiteral(", ")));
    }
  logView_->info(lines.join(QLatin1Char('\n')));
  benchmarkPage_->updateExternalCodegens();
  // The model compiles again with the plugins (and may import now), unless
  // a package is shown, which needs no compiler.
  if (!lastModelRequest_.isEmpty() &&
      !driver::is_package_path(QFile::encodeName(currentPath_).toStdString()))
    loadModel(lastModelRequest_, lastModelShapes_);
}

void MainWindow::setLoadingIndicator(bool loading) {
  busyIndicator_->setVisible(loading);
  cancelLoad_->setVisible(loading);
}

void MainWindow::updateWindowTitle() {
  setWindowTitle(
      currentPath_.isEmpty()
          ? kApplicationTitle
          : QStringLiteral("%1 — %2").arg(QFileInfo(currentPath_).fileName(), kApplicationTitle));
}

QString MainWindow::modelPathFromMimeData(const QMimeData* mime) {
  if (!mime || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls()) {
    if (!url.isLocalFile()) continue;
    const QString path = url.toLocalFile();
    const QString suffix = QFileInfo(path).suffix();
    if (suffix.compare(QLatin1String("onnx"), Qt::CaseInsensitive) == 0 ||
        suffix.compare(QLatin1String("tar"), Qt::CaseInsensitive) == 0)
      return path;
  }
  return {};
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!modelPathFromMimeData(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = modelPathFromMimeData(event->mimeData());
  if (path.isEmpty()) return;
  event->acceptProposedAction();
  openModel(path);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (sizeDocksOnShow_) {
    sizeDocksOnShow_ = false;
    // Queued: the dock areas get their geometry once the shown window is laid out.
    QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  settings_->setWindowGeometry(saveGeometry());
  settings_->setWindowState(saveState());
  // Closing ends a tuning session now, so the window's destruction only
  // waits for the candidate in flight.
  tuningPage_->stopTuning();
  QMainWindow::closeEvent(event);
}

}  // namespace lathe::studio
