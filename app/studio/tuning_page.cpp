// The Tuning tab's layout and wiring.
#include "studio/tuning_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <initializer_list>

#include "studio/graph_snapshot_tracker.h"
#include "views/number_format.h"
#include "views/tuning_charts.h"
#include "views/tuning_failures_model.h"
#include "views/tuning_progress_delegate.h"
#include "views/tuning_task_model.h"

namespace lathe::studio {

namespace {

const QString kErrorStyle = QStringLiteral("color: #c0392b;");
// `lathe tune` tunes 64 trials a task when given neither trials nor a budget.
constexpr int kTrialsPerTaskByDefault = 64;
constexpr int kTrialsColumnWidth = 130;
constexpr int kKnobsColumnWidth = 260;

std::vector<driver::TaskStatus> unmeasured(const std::vector<driver::KernelTask>& tasks) {
  std::vector<driver::TaskStatus> rows;
  for (const driver::KernelTask& t : tasks) {
    driver::TaskStatus s;
    s.id = t.id;
    s.name = t.func_name;
    s.signature = t.signature;
    s.flops = t.flops;
    s.weight = t.weight();
    s.space = t.space;
    s.fallback = t.fallback;
    rows.push_back(std::move(s));
  }
  return rows;
}

// The task most of the model's time goes to, roughly: the one to watch first.
int heaviestTask(const std::vector<driver::TaskStatus>& tasks) {
  auto work = [](const driver::TaskStatus& t) { return t.flops * t.weight; };
  const auto it = std::max_element(tasks.begin(), tasks.end(),
                                   [&](const auto& a, const auto& b) { return work(a) < work(b); });
  return it == tasks.end() ? -1 : static_cast<int>(it - tasks.begin());
}

QString secondsText(double seconds) {
  return seconds < 100 ? QString::number(seconds, 'f', 1) : QString::number(seconds, 'f', 0);
}

}  // namespace

TuningPage::TuningPage(QWidget* parent)
    : QWidget(parent),
      runner_(new TuningRunner(this)),
      taskModel_(new views::TuningTaskModel(this)),
      failuresModel_(new views::TuningFailuresModel(this)) {
  charts_ = new views::TuningCharts;
  charts_->setObjectName(QStringLiteral("tuningCharts"));

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName(QStringLiteral("tuningSplitter"));
  splitter->addWidget(charts_);
  splitter->addWidget(createResults());
  splitter->setChildrenCollapsible(false);
  splitter->setStretchFactor(0, 5);
  splitter->setStretchFactor(1, 4);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addWidget(createOptions());
  layout->addWidget(splitter, 1);

  connect(runner_, &TuningRunner::planned, this,
          [this](const QString&, std::shared_ptr<const driver::TuningPlan> plan) {
            showPlan(std::move(plan));
          });
  connect(runner_, &TuningRunner::planFailed, this,
          [this](const QString& path, const QString& message) {
            finalStatus_ = tr("Cannot list the tasks to tune: %1").arg(message);
            finalError_ = true;
            setStatus(finalStatus_, true);
            emit logMessage(
                tr("error: cannot plan the tuning tasks of %1\n  %2").arg(path, message), true);
          });
  connect(runner_, &TuningRunner::stateChanged, this, [this](TuningRunner::State state) {
    if (state == TuningRunner::State::Running)
      tick_.start();
    else
      tick_.stop();
    updateControls();
    updateStatus();
  });
  connect(runner_, &TuningRunner::started, this, &TuningPage::showSessionStart);
  connect(runner_, &TuningRunner::trialMeasured, this, &TuningPage::showTrial);
  connect(runner_, &TuningRunner::roundFinished, this,
          [this](int, const driver::TuningProgress& progress) {
            if (!sessionShown_) return;
            progress_ = progress;
            sinceEvent_.restart();
            taskModel_->setProgress(progress);
            updateStatus();
          });
  connect(runner_, &TuningRunner::message, this,
          [this](const QString& text) { emit logMessage(tr("tuning: %1").arg(text), false); });
  connect(runner_, &TuningRunner::finished, this, &TuningPage::showSessionEnd);
  connect(runner_, &TuningRunner::failed, this, [this](const QString& message) {
    updateControls();
    finalStatus_ = tr("Tuning failed: %1").arg(message);
    finalError_ = true;
    setStatus(finalStatus_, true);
    emit logMessage(tr("error: tuning failed\n  %1").arg(message), true);
  });

  // Between events (a batch builds for seconds) the elapsed time still moves.
  tick_.setInterval(1000);
  connect(&tick_, &QTimer::timeout, this, &TuningPage::updateStatus);

  connect(taskTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { charts_->setSelectedTask(current.row()); });
  connect(charts_, &views::TuningCharts::taskClicked, this, [this](int row) {
    taskTable_->setCurrentIndex(taskModel_->index(row, views::TuningTaskModel::IdColumn));
    taskTable_->scrollTo(taskTable_->currentIndex());
  });
  connect(failureTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &TuningPage::showFailureDetails);
  auto countFailures = [this] {
    const int count = failuresModel_->rowCount();
    resultTabs_->setTabText(
        1, count ? tr("&Failed Candidates (%1)").arg(count) : tr("&Failed Candidates"));
  };
  connect(failuresModel_, &QAbstractItemModel::rowsInserted, this, countFailures);
  connect(failuresModel_, &QAbstractItemModel::modelReset, this, countFailures);

  updateControls();
  updateStatus();
}

// The runner (a child) stops and joins its session as it is deleted.
TuningPage::~TuningPage() = default;

QString TuningPage::defaultRecordsPath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("tuning.jsonl"));
}

QWidget* TuningPage::createOptions() {
  tunerCombo_ = new QComboBox;
  tunerCombo_->setObjectName(QStringLiteral("tunerCombo"));
  const std::pair<const char*, QString> tuners[] = {
      {"xgb", tr("XGBoost cost model ranks the candidates a model-guided search proposes")},
      {"ga", tr("genetic algorithm over the knobs")},
      {"random", tr("random configurations, none twice")},
      {"grid", tr("every configuration in order")}};
  for (const auto& [name, help] : tuners) {
    tunerCombo_->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
    tunerCombo_->setItemData(tunerCombo_->count() - 1, help, Qt::ToolTipRole);
  }
  tunerCombo_->setToolTip(tr("The search strategy (lathe tune --tuner)"));

  autoschedulerCheck_ = new QCheckBox(tr("Autoscheduler"));
  autoschedulerCheck_->setObjectName(QStringLiteral("autoschedulerCheck"));
  autoschedulerCheck_->setToolTip(
      tr("Search Ansor-style sketches instead of the operators' templates "
         "(lathe tune --enable-autoscheduler)"));

  schedulerCombo_ = new QComboBox;
  schedulerCombo_->setObjectName(QStringLiteral("schedulerCombo"));
  schedulerCombo_->addItems({QStringLiteral("gradient"), QStringLiteral("round-robin")});
  schedulerCombo_->setToolTip(
      tr("Which task gets the next round: gradient favours the tasks whose improvement "
         "shortens the model most (lathe tune --task-scheduler)"));

  taskSelectionEdit_ = new QLineEdit;
  taskSelectionEdit_->setObjectName(QStringLiteral("taskSelectionEdit"));
  taskSelectionEdit_->setPlaceholderText(tr("all"));
  taskSelectionEdit_->setToolTip(
      tr("Task IDs to tune, like 0,3-5; empty: all (lathe tune --tasks)"));
  taskSelectionEdit_->setMaximumWidth(140);

  trialsSpin_ = new QSpinBox;
  trialsSpin_->setObjectName(QStringLiteral("trialsSpin"));
  trialsSpin_->setRange(0, 1000000);
  trialsSpin_->setSingleStep(16);
  trialsSpin_->setValue(256);
  trialsSpin_->setSpecialValueText(tr("no limit"));
  trialsSpin_->setToolTip(
      tr("Measurements over all tasks (lathe tune --trials); with no limit, the time budget "
         "ends the session"));

  timeBudgetSpin_ = new QDoubleSpinBox;
  timeBudgetSpin_->setObjectName(QStringLiteral("timeBudgetSpin"));
  timeBudgetSpin_->setRange(0, 24 * 60);
  timeBudgetSpin_->setDecimals(1);
  timeBudgetSpin_->setSuffix(tr(" min"));
  timeBudgetSpin_->setSpecialValueText(tr("none"));
  timeBudgetSpin_->setToolTip(tr("The session ends after this long (lathe tune --time-budget)"));

  earlyStoppingSpin_ = new QSpinBox;
  earlyStoppingSpin_->setObjectName(QStringLiteral("earlyStoppingSpin"));
  earlyStoppingSpin_->setRange(0, 100000);
  earlyStoppingSpin_->setSingleStep(8);
  earlyStoppingSpin_->setSpecialValueText(tr("off"));
  earlyStoppingSpin_->setSuffix(tr(" trials"));
  earlyStoppingSpin_->setToolTip(
      tr("A task stops after this many trials without a new best (lathe tune --early-stopping)"));

  recordsPathEdit_ = new QLineEdit(defaultRecordsPath());
  recordsPathEdit_->setObjectName(QStringLiteral("recordsPathEdit"));
  recordsPathEdit_->setToolTip(
      tr("Every measurement is appended here as one JSON line; lathe compile --tuning-records "
         "and the Schedule tab's Load Best read it. Empty: keep no records"));
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("…"));
  browse->setToolTip(tr("Choose the records file"));
  connect(browse, &QToolButton::clicked, this, &TuningPage::chooseRecordsFile);

  resumeCheck_ = new QCheckBox(tr("Resume from records"));
  resumeCheck_->setObjectName(QStringLiteral("resumeCheck"));
  resumeCheck_->setToolTip(
      tr("Count the file's records of these tasks as trials made: their configurations are not "
         "measured again, and the search and cost model start from them (--prior-records)"));

  startButton_ = new QPushButton(tr("S&tart"));
  startButton_->setObjectName(QStringLiteral("startTuningButton"));
  startButton_->setToolTip(
      tr("Tune in the background: each task's default schedule is measured first"));
  pauseButton_ = new QPushButton(tr("&Pause"));
  pauseButton_->setObjectName(QStringLiteral("pauseTuningButton"));
  pauseButton_->setToolTip(tr("Pause after the candidate being measured; Resume continues"));
  stopButton_ = new QPushButton(tr("St&op"));
  stopButton_->setObjectName(QStringLiteral("stopTuningButton"));
  stopButton_->setToolTip(tr("End the session after the candidate being measured or built"));
  connect(startButton_, &QPushButton::clicked, this, &TuningPage::startTuning);
  connect(pauseButton_, &QPushButton::clicked, this, &TuningPage::togglePause);
  connect(stopButton_, &QPushButton::clicked, this, &TuningPage::stopTuning);

  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("tuningStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Long messages are cut at the page's edge rather than widening the window.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

  auto label = [](const QString& text, QWidget* buddy) {
    auto* l = new QLabel(text);
    l->setBuddy(buddy);
    return l;
  };
  auto* search = new QHBoxLayout;
  search->addWidget(label(tr("Tuner:"), tunerCombo_));
  search->addWidget(tunerCombo_);
  search->addWidget(autoschedulerCheck_);
  search->addSpacing(8);
  search->addWidget(label(tr("Task scheduler:"), schedulerCombo_));
  search->addWidget(schedulerCombo_);
  search->addSpacing(8);
  search->addWidget(label(tr("Tasks:"), taskSelectionEdit_));
  search->addWidget(taskSelectionEdit_);
  search->addStretch(1);
  search->addWidget(startButton_);
  search->addWidget(pauseButton_);
  search->addWidget(stopButton_);

  auto* budget = new QHBoxLayout;
  budget->addWidget(label(tr("Trials:"), trialsSpin_));
  budget->addWidget(trialsSpin_);
  budget->addSpacing(8);
  budget->addWidget(label(tr("Time budget:"), timeBudgetSpin_));
  budget->addWidget(timeBudgetSpin_);
  budget->addSpacing(8);
  budget->addWidget(label(tr("Early stopping:"), earlyStoppingSpin_));
  budget->addWidget(earlyStoppingSpin_);
  budget->addSpacing(8);
  budget->addWidget(label(tr("Records:"), recordsPathEdit_));
  budget->addWidget(recordsPathEdit_, 1);
  budget->addWidget(browse);
  budget->addWidget(resumeCheck_);

  auto* options = new QWidget;
  auto* rows = new QVBoxLayout(options);
  rows->setContentsMargins(0, 0, 0, 0);
  rows->setSpacing(4);
  rows->addLayout(search);
  rows->addLayout(budget);
  rows->addWidget(status_);
  return options;
}

QWidget* TuningPage::createResults() {
  taskTable_ = new QTableView;
  taskTable_->setObjectName(QStringLiteral("tuningTaskTable"));
  taskTable_->setModel(taskModel_);
  taskTable_->setItemDelegateForColumn(
      views::TuningTaskModel::TrialsColumn,
      new views::TuningProgressDelegate(views::TuningTaskModel::ProgressRole, taskTable_));
  taskTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  taskTable_->setSelectionMode(QAbstractItemView::SingleSelection);
  taskTable_->setAlternatingRowColors(true);
  taskTable_->setWordWrap(false);
  taskTable_->verticalHeader()->hide();
  taskTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  QHeaderView* header = taskTable_->horizontalHeader();
  header->setHighlightSections(false);
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  header->setSectionResizeMode(views::TuningTaskModel::TaskColumn, QHeaderView::Stretch);
  header->setSectionResizeMode(views::TuningTaskModel::TrialsColumn, QHeaderView::Fixed);
  header->resizeSection(views::TuningTaskModel::TrialsColumn, kTrialsColumnWidth);

  failureTable_ = new QTableView;
  failureTable_->setObjectName(QStringLiteral("tuningFailureTable"));
  failureTable_->setModel(failuresModel_);
  failureTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  failureTable_->setSelectionMode(QAbstractItemView::SingleSelection);
  failureTable_->setAlternatingRowColors(true);
  failureTable_->setWordWrap(false);
  failureTable_->verticalHeader()->hide();
  failureTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  QHeaderView* failureHeader = failureTable_->horizontalHeader();
  failureHeader->setHighlightSections(false);
  failureHeader->setSectionResizeMode(QHeaderView::ResizeToContents);
  failureHeader->setSectionResizeMode(views::TuningFailuresModel::MessageColumn,
                                      QHeaderView::Stretch);
  failureHeader->setSectionResizeMode(views::TuningFailuresModel::KnobsColumn,
                                      QHeaderView::Interactive);
  failureHeader->resizeSection(views::TuningFailuresModel::KnobsColumn, kKnobsColumnWidth);

  failureDetails_ = new QPlainTextEdit;
  failureDetails_->setObjectName(QStringLiteral("tuningFailureDetails"));
  failureDetails_->setReadOnly(true);
  failureDetails_->setLineWrapMode(QPlainTextEdit::NoWrap);
  failureDetails_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  failureDetails_->setPlaceholderText(
      tr("Select a failed candidate: its error, knobs and schedule show here."));

  auto* failures = new QSplitter(Qt::Horizontal);
  failures->addWidget(failureTable_);
  failures->addWidget(failureDetails_);
  failures->setChildrenCollapsible(false);
  failures->setStretchFactor(0, 3);
  failures->setStretchFactor(1, 2);

  resultTabs_ = new QTabWidget;
  resultTabs_->setObjectName(QStringLiteral("tuningResultTabs"));
  resultTabs_->setDocumentMode(true);
  resultTabs_->addTab(taskTable_, tr("T&asks"));
  resultTabs_->addTab(failures, tr("&Failed Candidates"));
  return resultTabs_;
}

void TuningPage::setGraphSnapshots(std::shared_ptr<const GraphSnapshots> snapshots) {
  if (!snapshots) return;
  if (runner_->isActive()) {
    runner_->stop();
    emit logMessage(tr("Stopped tuning: %1 was opened").arg(QFileInfo(snapshots->path).fileName()),
                    false);
  }
  snapshots_ = std::move(snapshots);
  sessionShown_ = false;
  plan_ = nullptr;
  progress_ = {};
  finalStatus_.clear();
  showTasks({});
  failuresModel_->clear();
  failureDetails_->clear();
  runner_->plan(snapshots_->path, std::shared_ptr<const Graph>(snapshots_, &snapshots_->original));
  updateControls();
  updateStatus();
}

void TuningPage::showPlan(std::shared_ptr<const driver::TuningPlan> plan) {
  plan_ = std::move(plan);
  // While a stopped session winds down the page already shows the new model.
  showTasks(unmeasured(plan_->tasks));
  updateControls();
  updateStatus();
  emit tasksPlanned(static_cast<int>(plan_->tasks.size()));
}

void TuningPage::showTasks(const std::vector<driver::TaskStatus>& tasks) {
  taskModel_->setTasks(tasks);
  charts_->setTasks(tasks);
  taskModel_->setTaskColors(charts_->taskColors());
  // The table's current row is the chart's bold curve; a reset model has none.
  const int heaviest = heaviestTask(tasks);
  if (heaviest >= 0)
    taskTable_->setCurrentIndex(taskModel_->index(heaviest, views::TuningTaskModel::IdColumn));
  charts_->setSelectedTask(heaviest);
}

void TuningPage::startTuning() {
  if (!plan_ || runner_->isActive()) return;
  TuningRunner::Request request;
  request.plan = plan_;
  request.graph = std::shared_ptr<const Graph>(snapshots_, &snapshots_->original);
  try {
    request.selected = driver::parse_task_selection(
        taskSelectionEdit_->text().trimmed().toStdString(), plan_->tasks.size());
  } catch (const std::exception& e) {
    setStatus(QString::fromStdString(e.what()), true);
    taskSelectionEdit_->setFocus();
    return;
  }
  driver::TuningOptions& o = request.options;
  o.tuner = tunerCombo_->currentData().toString().toStdString();
  o.space =
      autoschedulerCheck_->isChecked() ? driver::SpaceKind::Sketch : driver::SpaceKind::Template;
  o.scheduler = schedulerCombo_->currentText().toStdString();
  o.trials = trialsSpin_->value();
  o.time_budget_s = timeBudgetSpin_->value() * 60;
  if (o.trials == 0 && o.time_budget_s <= 0)
    o.trials = kTrialsPerTaskByDefault * static_cast<int>(request.selected.size());
  o.early_stopping = earlyStoppingSpin_->value();

  const QString records = recordsPathEdit_->text().trimmed();
  if (!records.isEmpty()) {
    if (!QDir().mkpath(QFileInfo(records).absolutePath())) {
      setStatus(tr("Cannot create the folder of the records file %1").arg(records), true);
      return;
    }
    o.records_path = records.toStdString();
  }
  if (resumeCheck_->isChecked()) {
    if (records.isEmpty()) {
      setStatus(tr("Resuming needs a records file to read"), true);
      return;
    }
    request.resumeFrom = records;
  }

  const QString summary =
      tr("Tuning %n task(s) of %1 with %2%3: ", nullptr, static_cast<int>(request.selected.size()))
          .arg(QFileInfo(snapshots_->path).fileName(), tunerCombo_->currentText(),
               autoschedulerCheck_->isChecked() ? tr(" over sketches") : QString()) +
      (o.trials > 0 ? tr("%n trial(s)", nullptr, o.trials) : tr("no trial limit")) +
      (o.time_budget_s > 0 ? tr(", at most %1 s").arg(o.time_budget_s) : QString()) +
      (records.isEmpty() ? tr("; no records kept") : tr("; records appended to %1").arg(records));
  sessionShown_ = true;
  progress_ = {};
  recordsPath_ = records;
  finalStatus_.clear();
  failuresModel_->clear();
  failureDetails_->clear();
  const std::string cacheState = driver::measurement_cache_state(*plan_, o.cache_flush).reason;
  if (!runner_->start(std::move(request))) return;
  emit logMessage(summary, false);
  emit logMessage(QString::fromStdString(cacheState), false);
}

void TuningPage::togglePause() {
  if (runner_->state() == TuningRunner::State::Paused)
    runner_->resume();
  else
    runner_->pause();
}

void TuningPage::stopTuning() {
  runner_->stop();
}

void TuningPage::showSessionStart(const driver::TuningProgress& progress) {
  if (!sessionShown_) return;
  progress_ = progress;
  sinceEvent_.restart();
  showTasks(progress.tasks);
  taskModel_->setProgress(progress);
  charts_->addEstimate(progress);
  updateStatus();
}

void TuningPage::showTrial(const driver::TrialEvent& trial,
                           const driver::TuningProgress& progress) {
  if (!sessionShown_) return;
  progress_ = progress;
  sinceEvent_.restart();
  taskModel_->setProgress(progress);
  charts_->addTrial(trial, progress);
  if (trial.error_kind != "none") {
    const driver::TaskStatus& task = progress.tasks.at(static_cast<size_t>(trial.task_index));
    views::TuningFailure failure;
    failure.taskId = task.id;
    failure.taskName = QString::fromStdString(task.name);
    failure.trial = trial.trial;
    failure.errorKind = QString::fromStdString(trial.error_kind);
    failure.message = QString::fromStdString(trial.error_message);
    failure.knobs = QString::fromStdString(trial.knobs);
    failure.schedule = QString::fromStdString(trial.schedule);
    failuresModel_->addFailure(failure);
  }
  updateStatus();
}

void TuningPage::showSessionEnd(const driver::TuningProgress& progress, bool stopped) {
  updateControls();
  if (!sessionShown_) {
    updateStatus();
    emit sessionFinished(stopped);
    return;
  }
  progress_ = progress;
  taskModel_->setProgress(progress);
  charts_->addEstimate(progress);
  finalStatus_ = (stopped ? tr("Stopped · %1") : tr("Finished · %1")).arg(describeProgress());
  if (!recordsPath_.isEmpty())
    finalStatus_ += tr(" · records in %1").arg(QFileInfo(recordsPath_).fileName());
  finalError_ = false;
  setStatus(finalStatus_, false);
  emit logMessage(
      tr("Tuning %1: %2%3")
          .arg(stopped ? tr("stopped") : tr("finished"), describeProgress(),
               recordsPath_.isEmpty() ? QString()
                                      : tr("; records appended to %1").arg(recordsPath_)),
      false);
  emit sessionFinished(stopped);
}

void TuningPage::showFailureDetails() {
  const QModelIndex current = failureTable_->currentIndex();
  if (!current.isValid()) {
    failureDetails_->clear();
    return;
  }
  failureDetails_->setPlainText(
      views::TuningFailuresModel::describe(failuresModel_->failure(current.row())));
}

void TuningPage::chooseRecordsFile() {
  // Records are appended, so choosing an existing file is no overwrite.
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Tuning Records File"), recordsPathEdit_->text(),
                                   tr("Tuning records (*.jsonl *.json);;All files (*)"), nullptr,
                                   QFileDialog::DontConfirmOverwrite);
  if (!path.isEmpty()) recordsPathEdit_->setText(path);
}

void TuningPage::updateControls() {
  using State = TuningRunner::State;
  const State state = runner_->state();
  const bool active = runner_->isActive();
  startButton_->setEnabled(plan_ != nullptr && !active);
  pauseButton_->setEnabled(state == State::Preparing || state == State::Running ||
                           state == State::Paused);
  pauseButton_->setText(state == State::Paused ? tr("&Resume") : tr("&Pause"));
  stopButton_->setEnabled(active && state != State::Stopping);
  for (QWidget* option : std::initializer_list<QWidget*>{
           tunerCombo_, autoschedulerCheck_, schedulerCombo_, trialsSpin_, timeBudgetSpin_,
           earlyStoppingSpin_, taskSelectionEdit_, recordsPathEdit_, resumeCheck_})
    option->setEnabled(!active);
}

QString TuningPage::describeProgress() const {
  const driver::TuningProgress& p = progress_;
  QStringList parts;
  parts << (p.planned_trials > 0 ? tr("%1 / %2 trials").arg(p.total_trials).arg(p.planned_trials)
                                 : tr("%n trial(s)", nullptr, p.total_trials));
  double elapsed = p.elapsed_s;
  if (runner_->state() == TuningRunner::State::Running && sinceEvent_.isValid())
    elapsed += static_cast<double>(sinceEvent_.elapsed()) / 1000;
  parts << (p.time_budget_s > 0
                ? tr("%1 of %2 s").arg(secondsText(elapsed), secondsText(p.time_budget_s))
                : tr("%1 s").arg(secondsText(elapsed)));
  if (p.estimated_latency_ms > 0) {
    QString estimate = tr("estimated %1 ms").arg(p.estimated_latency_ms, 0, 'f', 3);
    if (p.estimated_default_ms > 0)
      estimate += tr(" (default %1 ms, %2×)")
                      .arg(p.estimated_default_ms, 0, 'f', 3)
                      .arg(p.estimated_default_ms / p.estimated_latency_ms, 0, 'f', 2);
    // Said plainly: a sum over part of the model is no model latency.
    if (p.unmeasured_tasks > 0)
      estimate += tr(", leaving out %1 of %2 tasks not measured")
                      .arg(p.unmeasured_tasks)
                      .arg(p.tasks.size());
    parts << estimate;
  }
  int errors = 0;
  for (const driver::TaskStatus& t : p.tasks) errors += t.errors;
  if (errors > 0) parts << tr("%n error(s)", nullptr, errors);
  return parts.join(QStringLiteral(" · "));
}

void TuningPage::updateStatus() {
  using State = TuningRunner::State;
  switch (runner_->state()) {
    case State::Preparing:
      setStatus(tr("Preparing the tasks: computations, search spaces, reference outputs…"), false);
      return;
    case State::Running:
      setStatus(tr("Tuning · %1").arg(describeProgress()), false);
      return;
    case State::Paused:
      setStatus(tr("Paused · %1").arg(describeProgress()), false);
      return;
    case State::Stopping:
      setStatus(tr("Stopping after the candidate in flight · %1").arg(describeProgress()), false);
      return;
    case State::Idle:
      break;
  }
  if (!finalStatus_.isEmpty()) {
    setStatus(finalStatus_, finalError_);
  } else if (!snapshots_) {
    setStatus(tr("Open a model: its kernels are tuned here."), false);
  } else if (!plan_) {
    setStatus(tr("Listing the tasks of %1…").arg(QFileInfo(snapshots_->path).fileName()), false);
  } else {
    double flops = 0;
    for (const driver::KernelTask& t : plan_->tasks)
      flops += static_cast<double>(t.flops) * t.weight();
    setStatus(tr("%n task(s), %1 per run of the model. Start measures each task's default "
                 "schedule first, then searches.",
                 nullptr, static_cast<int>(plan_->tasks.size()))
                  .arg(views::siNumber(flops, QStringLiteral("FLOP"))),
              false);
  }
}

void TuningPage::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? kErrorStyle : QString());
}

}  // namespace lathe::studio
