// Plugins › Load Plugins…: the plugins on the search path
// (driver::available_plugins) with what each adds or why it cannot load;
// the user checks some and loads them. Loading is one-way for the session:
// the registries keep a plugin's ops and codegens until the studio quits,
// which the dialog says. The main window quiesces its background work before
// a load (the registries are not thread-safe) and recompiles the model after.
#pragma once

#include <QDialog>
#include <QMap>
#include <QString>
#include <QStringList>
#include <functional>

class QLabel;
class QPushButton;
class QTableView;

namespace lathe::views {
class PluginTableModel;
}

namespace lathe::studio {

class PluginDialog : public QDialog {
  Q_OBJECT

 public:
  // `busyReason` says why nothing may load now (a tuning session running),
  // or returns an empty string; `quiesce` stops and waits for the
  // background work that reads the registries. Both run before each load.
  PluginDialog(std::function<QString()> busyReason, std::function<void()> quiesce,
               QWidget* parent = nullptr);
  ~PluginDialog() override;

  // Lists the plugins again (the search path's folders may have changed).
  void refresh();
  // Loads the checked plugins, in row order; a failure is shown on its row
  // and in the status line, and the others still load.
  void loadChecked();

  views::PluginTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QPushButton* loadButton() const { return loadButton_; }
  QLabel* statusLine() const { return status_; }

 signals:
  // After a load that added at least one plugin: their names.
  void pluginsLoaded(const QStringList& names);

 private:
  void updateLoadButton();

  std::function<QString()> busyReason_;
  std::function<void()> quiesce_;
  QMap<QString, QString> failures_;  // by plugin name: why its load failed
  views::PluginTableModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  QPushButton* loadButton_ = nullptr;
  QLabel* status_ = nullptr;
};

}  // namespace lathe::studio
