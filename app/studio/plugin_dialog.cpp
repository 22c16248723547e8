#include "studio/plugin_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "driver/plugins.h"
#include "studio/exception_text.h"
#include "views/plugin_table_model.h"

namespace lathe::studio {

PluginDialog::PluginDialog(std::function<QString()> busyReason, std::function<void()> quiesce,
                           QWidget* parent)
    : QDialog(parent),
      busyReason_(std::move(busyReason)),
      quiesce_(std::move(quiesce)),
      model_(new views::PluginTableModel(this)) {
  setWindowTitle(tr("Plugins"));
  setObjectName(QStringLiteral("pluginDialog"));

  QStringList folders;
  for (const std::string& folder : driver::plugin_search_path())
    folders << QString::fromStdString(folder).toHtmlEscaped();
  auto* intro = new QLabel(
      tr("Plugins add ops and external codegens (such as oneDNN for convolutions). Check the ones "
         "to load and press Load; the open model is compiled again with them.<br>"
         "<b>Loading is one-way:</b> a loaded plugin stays loaded until the studio quits, since "
         "its ops and codegens cannot be unregistered. To compare builds without a codegen, use "
         "the Benchmark tab's builds.<br>Searched, in order ($LATHE_PLUGIN_PATH first): %1")
          .arg(folders.join(QStringLiteral(", "))));
  intro->setWordWrap(true);
  intro->setTextInteractionFlags(Qt::TextSelectableByMouse);

  table_ = new QTableView;
  table_->setObjectName(QStringLiteral("pluginTable"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setWordWrap(true);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(views::PluginTableModel::AddsColumn,
                                                   QHeaderView::Stretch);
  connect(model_, &QAbstractItemModel::dataChanged, this, &PluginDialog::updateLoadButton);
  connect(model_, &QAbstractItemModel::modelReset, this, &PluginDialog::updateLoadButton);

  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("pluginStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  loadButton_ = buttons->addButton(tr("&Load"), QDialogButtonBox::ActionRole);
  loadButton_->setObjectName(QStringLiteral("loadPluginsButton"));
  loadButton_->setToolTip(tr("Load the checked plugins for the rest of this session"));
  connect(loadButton_, &QPushButton::clicked, this, &PluginDialog::loadChecked);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addWidget(table_, 1);
  layout->addWidget(status_);
  layout->addWidget(buttons);
  resize(820, 380);
  refresh();
}

PluginDialog::~PluginDialog() = default;

void PluginDialog::refresh() {
  model_->setPlugins(driver::available_plugins(), failures_);
  table_->resizeColumnToContents(views::PluginTableModel::NameColumn);
  table_->resizeColumnToContents(views::PluginTableModel::FileColumn);
  table_->resizeRowsToContents();
  if (model_->rowCount() == 0)
    status_->setText(tr("No plugins found: put NAME.so in one of the folders above."));
}

void PluginDialog::updateLoadButton() {
  loadButton_->setEnabled(!model_->checkedNames().isEmpty());
}

void PluginDialog::loadChecked() {
  const QStringList names = model_->checkedNames();
  if (names.isEmpty()) return;
  if (const QString reason = busyReason_ ? busyReason_() : QString(); !reason.isEmpty()) {
    status_->setText(tr("Cannot load plugins now: %1").arg(reason));
    return;
  }
  if (quiesce_) quiesce_();
  QStringList loaded, failed;
  for (const QString& name : names) {
    try {
      driver::load_plugin(name.toStdString());
      loaded << name;
    } catch (...) {
      failures_[name] = exceptionText(std::current_exception());
      failed << tr("%1: %2").arg(name, failures_[name]);
    }
  }
  refresh();
  QStringList lines;
  if (!loaded.isEmpty()) lines << tr("Loaded %1.").arg(loaded.join(QStringLiteral(", ")));
  lines << failed;
  status_->setText(lines.join(QLatin1Char('\n')));
  if (!loaded.isEmpty()) emit pluginsLoaded(loaded);
}

}  // namespace lathe::studio
