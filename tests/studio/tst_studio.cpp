// The studio skeleton: the node table model and its filter, background loads
// (latest wins, failures keep the old model), recent files, drag and drop.
#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include "driver/model_info.h"
#include "driver/model_loader.h"
#include "isolated_settings.h"
#include "studio/application_icon.h"
#include "studio/main_window.h"
#include "studio/model_load_tracker.h"
#include "studio/studio_settings.h"
#include "views/node_filter_proxy_model.h"
#include "views/node_table_model.h"

using namespace lathe;
using lathe::studio::MainWindow;
using lathe::studio::StudioSettings;
using lathe::views::NodeFilterProxyModel;
using lathe::views::NodeTableModel;

namespace {

// Loads are quick (milliseconds for the sample), but a loaded CI machine is slow.
constexpr int kLoadTimeoutMs = 30000;

QString logText(const MainWindow& window) {
  auto* log = window.findChild<QPlainTextEdit*>(QStringLiteral("logView"));
  return log ? log->toPlainText() : QString();
}

QStringList recentMenuPaths(const MainWindow& window) {
  auto* menu = window.findChild<QMenu*>(QStringLiteral("recentFilesMenu"));
  QStringList paths;
  if (!menu) return paths;
  for (QAction* action : menu->actions())
    if (!action->data().toString().isEmpty()) paths << action->data().toString();
  return paths;
}

}  // namespace

class TestStudio : public QObject {
  Q_OBJECT

 private:
  // A copy of the bundled sample under `name` in the test's temporary folder.
  QString copyOfSample(const QString& name) {
    const QString path = workDir_.filePath(name);
    QFile::remove(path);
    if (!QFile::copy(QStringLiteral(":/lathe/sample_cnn.onnx"), path)) return {};
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    return QFileInfo(path).canonicalFilePath();
  }

  // Opens `path` and waits until the window shows it.
  bool openAndWait(MainWindow& window, const QString& path) {
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(path);
    return shown.wait(kLoadTimeoutMs) || shown.count() > 0;
  }

  QTemporaryDir settingsDir_;
  QTemporaryDir workDir_;
  QString samplePath_;
  Graph sample_;

 private slots:
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    QVERIFY(workDir_.isValid());
    // Settings of this run only, never the user's: set before any QSettings exists.
    isolate_settings(settingsDir_.path(), QStringLiteral("tst_studio"));
    // Constructing a window registers the resources the sample is copied from.
    MainWindow window;
    samplePath_ = copyOfSample(QStringLiteral("sample_cnn.onnx"));
    QVERIFY(!samplePath_.isEmpty());
    sample_ = driver::load_model(samplePath_.toStdString());
    QVERIFY(!sample_.nodes.empty());
  }

  void init() { StudioSettings().clearRecentFiles(); }

  void nodeTableModelPassesModelTester() {
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setGraph(sample_);
    QCOMPARE(model.rowCount(), static_cast<int>(sample_.nodes.size()));
    QCOMPARE(model.columnCount(), static_cast<int>(NodeTableModel::ColumnCount));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.setGraph(sample_);

    NodeFilterProxyModel proxy;
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.sort(NodeTableModel::MacsColumn, Qt::DescendingOrder);
    proxy.setFilterText(QStringLiteral("Conv"));
    proxy.setFilterText(QString());
    model.setGraph(sample_);
  }

  void nodeTableModelShowsNodeInfo() {
    const driver::ModelInfo info = driver::inspect_graph(sample_);
    NodeTableModel model;
    model.setGraph(sample_, info);
    for (int row = 0; row < model.rowCount(); ++row) {
      const driver::NodeInfo& node = info.nodes[static_cast<size_t>(row)];
      auto cell = [&](int column, int role = Qt::DisplayRole) {
        return model.index(row, column).data(role);
      };
      QCOMPARE(cell(NodeTableModel::IndexColumn).toInt(), row);
      QCOMPARE(cell(NodeTableModel::NameColumn).toString(), QString::fromStdString(node.name));
      QCOMPARE(cell(NodeTableModel::OpColumn).toString(), QString::fromStdString(node.op));
      QCOMPARE(cell(NodeTableModel::FusionColumn).toString(),
               QString::fromStdString(node.fusion_kind));
      QCOMPARE(cell(NodeTableModel::MacsColumn, NodeTableModel::SortRole).toLongLong(), node.macs);
      QCOMPARE(cell(NodeTableModel::OutputsColumn).toString(),
               QString::fromStdString(node.output_types.at(0).to_string()));
      // One type per input, and the tooltip names each input value.
      const QStringList inputs =
          cell(NodeTableModel::InputsColumn).toString().split(QStringLiteral(", "));
      QCOMPARE(inputs.size(), static_cast<qsizetype>(node.inputs.size()));
      const QString toolTip = cell(NodeTableModel::InputsColumn, Qt::ToolTipRole).toString();
      for (const std::string& input : node.inputs)
        QVERIFY2(toolTip.contains(QString::fromStdString(input)), qPrintable(toolTip));
    }
  }

  void proxySortsMacsAsNumbers() {
    NodeTableModel model;
    model.setGraph(sample_);
    NodeFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(NodeTableModel::MacsColumn, Qt::DescendingOrder);
    qint64 previous = std::numeric_limits<qint64>::max();
    for (int row = 0; row < proxy.rowCount(); ++row) {
      const qint64 macs =
          proxy.index(row, NodeTableModel::MacsColumn).data(NodeTableModel::SortRole).toLongLong();
      QVERIFY(macs <= previous);
      previous = macs;
    }
    QVERIFY(proxy.index(0, NodeTableModel::MacsColumn).data(NodeTableModel::SortRole).toLongLong() >
            0);
  }

  void filterNarrowsRows_data() {
    QTest::addColumn<QString>("filter");
    QTest::addColumn<int>("expected");  // -1: count the nodes whose name or op contains it
    QTest::newRow("op, capital: case-sensitive") << QStringLiteral("Conv") << 4;
    QTest::newRow("lower case: any case") << QStringLiteral("conv") << -1;
    QTest::newRow("node name") << QStringLiteral("stem") << -1;
    QTest::newRow("no match") << QStringLiteral("NoSuchOp") << 0;
    QTest::newRow("empty") << QString() << static_cast<int>(sample_.nodes.size());
  }

  void filterNarrowsRows() {
    QFETCH(QString, filter);
    QFETCH(int, expected);
    if (expected < 0) {
      expected = 0;
      const Qt::CaseSensitivity cs =
          filter == filter.toLower() ? Qt::CaseInsensitive : Qt::CaseSensitive;
      for (const Node& node : sample_.nodes)
        if (QString::fromStdString(node.name).contains(filter, cs) ||
            QString::fromStdString(node.op).contains(filter, cs))
          ++expected;
      QVERIFY(expected > 0);
    }

    MainWindow window;
    QVERIFY(openAndWait(window, samplePath_));
    auto* edit = window.findChild<QLineEdit*>(QStringLiteral("nodeFilter"));
    auto* table = window.findChild<QTableView*>(QStringLiteral("nodeTable"));
    QVERIFY(edit && table);
    QTest::keyClicks(edit, filter);
    QCOMPARE(table->model()->rowCount(), expected);
    QCOMPARE(window.nodeTableModel()->rowCount(), static_cast<int>(sample_.nodes.size()));
    edit->clear();
    QCOMPARE(table->model()->rowCount(), static_cast<int>(sample_.nodes.size()));
  }

  void opensBundledSample() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openSampleModel();
    QVERIFY(window.isLoading());
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QVERIFY(!window.isLoading());

    // The same graph the driver loads from the same file.
    const Graph graph = driver::load_model(window.currentModelPath().toStdString());
    QCOMPARE(window.nodeTableModel()->rowCount(), static_cast<int>(graph.nodes.size()));
    QCOMPARE(window.nodeTableModel()->rowCount(), static_cast<int>(sample_.nodes.size()));
    QCOMPARE(window.nodeProxyModel()->rowCount(), static_cast<int>(graph.nodes.size()));
    QVERIFY2(window.windowTitle().contains(QStringLiteral("sample_cnn.onnx")),
             qPrintable(window.windowTitle()));
    QVERIFY(logText(window).contains(QStringLiteral("Opened sample_cnn.onnx")));
    // The sample's copy is temporary: it never becomes a recent file.
    QVERIFY(window.settings()->recentFiles().isEmpty());
  }

  // The window icon is the bundled PNG set, one image per size the icon theme
  // gets on install (packaging/CMakeLists.txt), each drawn at its own size.
  void applicationIconHasEverySize() {
    const QIcon icon = studio::applicationIcon();
    QVERIFY(!icon.isNull());
    QList<QSize> expected;
    for (int size : studio::applicationIconSizes()) {
      expected << QSize(size, size);
      const QImage image = icon.pixmap(QSize(size, size)).toImage();
      QCOMPARE(image.size(), QSize(size, size));
      // Not blank: the plate is opaque in the middle.
      QCOMPARE(qAlpha(image.pixel(size / 2, size / 2)), 255);
    }
    QCOMPARE(icon.availableSizes(), expected);
  }

  void corruptFileKeepsPreviousModel() {
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, samplePath_));
    const int rows = window.nodeTableModel()->rowCount();
    const QString title = window.windowTitle();

    QByteArray bytes(4096, Qt::Uninitialized);
    for (char& b : bytes) b = static_cast<char>(QRandomGenerator::global()->bounded(256));
    const QString corrupt = workDir_.filePath(QStringLiteral("corrupt.onnx"));
    QFile file(corrupt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();

    QSignalSpy failed(&window, &MainWindow::loadFailed);
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(corrupt);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(failed.at(0).at(0).toString(), corrupt);

    const QString log = logText(window);
    QVERIFY2(log.contains(QStringLiteral("error: cannot open ") + corrupt), qPrintable(log));
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("loadErrorBox"));
    QVERIFY(box);
    QVERIFY(box->text().contains(QStringLiteral("corrupt.onnx")));
    QVERIFY(!box->isModal());

    // The previous model stays.
    QCOMPARE(window.nodeTableModel()->rowCount(), rows);
    QCOMPARE(window.windowTitle(), title);
    QCOMPARE(window.currentModelPath(), samplePath_);
    QVERIFY(!window.settings()->recentFiles().contains(corrupt));

    // A missing file is reported the same way.
    const QString missing = workDir_.filePath(QStringLiteral("missing.onnx"));
    window.openModel(missing);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, kLoadTimeoutMs);
    QVERIFY(logText(window).contains(QStringLiteral("error: cannot open ") + missing));
    QCOMPARE(window.nodeTableModel()->rowCount(), rows);
  }

  void latestRequestWins() {
    const QString first = copyOfSample(QStringLiteral("first.onnx"));
    const QString second = copyOfSample(QStringLiteral("second.onnx"));
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QSignalSpy discarded(window.loadTracker(), &studio::ModelLoadTracker::discarded);
    window.openModel(first);
    window.openModel(second);
    // Whichever finishes first, only the second is shown.
    QTRY_COMPARE_WITH_TIMEOUT(discarded.count(), 1, kLoadTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(discarded.at(0).at(0).toString(), first);
    QCOMPARE(shown.at(0).at(0).toString(), second);
    QCOMPARE(window.currentModelPath(), second);
    QVERIFY(window.windowTitle().contains(QStringLiteral("second.onnx")));
    QVERIFY(!window.isLoading());
  }

  void recentFilesUpdated() {
    const QString a = copyOfSample(QStringLiteral("a.onnx"));
    const QString b = copyOfSample(QStringLiteral("b.onnx"));
    {
      MainWindow window;
      QVERIFY(openAndWait(window, a));
      QVERIFY(openAndWait(window, b));
      QCOMPARE(window.settings()->recentFiles(), (QStringList{b, a}));
      QTRY_COMPARE(recentMenuPaths(window), (QStringList{b, a}));
      // Opening again moves the file to the front instead of repeating it.
      QVERIFY(openAndWait(window, a));
      QCOMPARE(window.settings()->recentFiles(), (QStringList{a, b}));
    }
    // Persisted: a new window (a new session) offers the same list.
    MainWindow later;
    QCOMPARE(recentMenuPaths(later), (QStringList{a, b}));
    // Files deleted since are dropped from the list.
    QVERIFY(QFile::remove(a));
    QCOMPARE(later.settings()->recentFiles(), QStringList{b});
    QTRY_COMPARE(recentMenuPaths(later), QStringList{b});
  }

  void recentFilesKeepTen() {
    StudioSettings settings;
    QStringList paths;
    for (int i = 0; i < StudioSettings::kMaxRecentFiles + 2; ++i) {
      paths.prepend(copyOfSample(QStringLiteral("model%1.onnx").arg(i)));
      settings.addRecentFile(paths.first());
    }
    QCOMPARE(settings.recentFiles(), paths.mid(0, StudioSettings::kMaxRecentFiles));
    settings.clearRecentFiles();
    QVERIFY(settings.recentFiles().isEmpty());
  }

  void droppedModelOpens() {
    const QString dropped = copyOfSample(QStringLiteral("dropped.onnx"));
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(workDir_.filePath(QStringLiteral("notes.txt")))});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());

    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(dropped)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QVERIFY(drop.isAccepted());
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(window.currentModelPath(), dropped);
  }

  void windowLayoutPersisted() {
    {
      MainWindow window;
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      window.close();
    }
    StudioSettings settings;
    QVERIFY(!settings.windowGeometry().isEmpty());
    QVERIFY(!settings.windowState().isEmpty());
    MainWindow restored;
    QVERIFY(restored.restoreState(settings.windowState()));
  }
};

QTEST_MAIN(TestStudio)
#include "tst_studio.moc"
