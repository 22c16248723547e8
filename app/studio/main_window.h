// The studio's main window: the node table in the middle, the model summary
// and the log in docks, File and Help menus, drag and drop of .onnx files.
// It only wires views to the driver; loads run in ModelLoadTracker.
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <memory>

class QLabel;
class QLineEdit;
class QMenu;
class QMessageBox;
class QMimeData;
class QProgressBar;
class QTableView;
class QTemporaryDir;

namespace lathe::views {
class LogView;
class ModelSummaryView;
class NodeFilterProxyModel;
class NodeTableModel;
}  // namespace lathe::views

namespace lathe::studio {

struct LoadedModel;
class ModelLoadTracker;
class StudioSettings;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads in the background; the newest request wins. A model that fails to
  // load is reported in the log and the previous model stays shown.
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

  // The .onnx file a drag carries, or an empty string.
  static QString modelPathFromMimeData(const QMimeData* mime);

 signals:
  void modelShown(const QString& path);
  void loadFailed(const QString& path);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createCentralWidget();
  void createDocks();
  void createMenus();
  void createStatusBar();

  void chooseModelFile();
  void rebuildRecentFilesMenu();
  void showAbout();

  void showModel(const std::shared_ptr<const LoadedModel>& model);
  void showLoadFailure(const QString& path, const QString& summary, const QStringList& problems);
  void setLoadingIndicator(bool loading);
  void updateWindowTitle();

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
  QPointer<QMessageBox> errorBox_;

  QString currentPath_;
  // Holds the copy of the bundled sample while the window lives.
  std::unique_ptr<QTemporaryDir> sampleDir_;
  QString samplePath_;
};

}  // namespace lathe::studio
