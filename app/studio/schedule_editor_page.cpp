// The Schedule tab's layout and wiring.
#include "studio/schedule_editor_page.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QShowEvent>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "driver/kernel_tasks.h"
#include "studio/schedule_compare_dialog.h"
#include "studio/schedule_editor_tracker.h"
#include "views/code_preview.h"
#include "views/number_format.h"
#include "views/schedule_editor.h"
#include "views/schedule_editor_measurements.h"

namespace lathe::studio {

namespace {

const QString kErrorStyle = QStringLiteral("color: #c0392b;");
const QString kQuietStyle = QStringLiteral("color: palette(placeholder-text);");

QString updatingNotice() {
  return ScheduleEditorPage::tr("updating…");
}

QString measureToolTip() {
  return ScheduleEditorPage::tr(
             "Compile and run the kernel %1 times on the model's weights; check it against the "
             "reference")
      .arg(ScheduleEditorTracker::kMeasureRuns);
}

QString compareToolTip() {
  return ScheduleEditorPage::tr(
      "Two schedules of this kernel side by side: the default, the editor's text, tuning "
      "records, journal entries");
}

// The task most of the model's time goes to, roughly: the one worth editing first.
int heaviestTask(const std::vector<driver::KernelTask>& tasks) {
  auto work = [](const driver::KernelTask& t) { return t.flops * t.weight(); };
  const auto it = std::max_element(tasks.begin(), tasks.end(),
                                   [&](const auto& a, const auto& b) { return work(a) < work(b); });
  return it == tasks.end() ? -1 : static_cast<int>(it - tasks.begin());
}

QString taskLabel(const driver::KernelTask& task) {
  QStringList ops;
  for (const std::string& op : task.ops) ops << QString::fromStdString(op);
  return QStringLiteral("%1  %2 — %3, %4")
      .arg(task.id)
      .arg(QString::fromStdString(task.func_name), ops.join(QStringLiteral(" → ")),
           views::siNumber(static_cast<double>(task.flops), QStringLiteral("FLOP")));
}

}  // namespace

ScheduleEditorPage::ScheduleEditorPage(const QString& journalPath, QWidget* parent)
    : QWidget(parent),
      journal_(journalPath),
      tracker_(new ScheduleEditorTracker(this)),
      measurements_(new views::MeasurementTableModel(this)) {
  editor_ = new views::ScheduleEditor;
  editor_->setObjectName(QStringLiteral("scheduleEditor"));
  editor_->setPlaceholderText(tr("Open a model: its kernels are listed above."));
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("scheduleStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setWordWrap(true);
  preview_ = new views::CodePreview;
  preview_->setObjectName(QStringLiteral("codePreview"));
  // A second view of the same code (Side by Side): the loop IR and the PTX
  // or assembly at once. Its own tab and scroll; the PTX first.
  besidePreview_ = new views::CodePreview;
  besidePreview_->setObjectName(QStringLiteral("besidePreview"));
  besidePreview_->setCurrentIndex(views::CodePreview::AssemblyTab);
  besidePreview_->hide();

  measurementTable_ = new QTableView;
  measurementTable_->setObjectName(QStringLiteral("measurementTable"));
  measurementTable_->setModel(measurements_);
  measurementTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  measurementTable_->setAlternatingRowColors(true);
  measurementTable_->verticalHeader()->hide();
  measurementTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  measurementTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);

  auto* editorPane = new QWidget;
  auto* editorLayout = new QVBoxLayout(editorPane);
  editorLayout->setContentsMargins(0, 0, 0, 0);
  editorLayout->setSpacing(2);
  editorLayout->addWidget(editor_, 1);
  editorLayout->addWidget(status_);

  auto* codeSplitter = new QSplitter(Qt::Horizontal);
  codeSplitter->setObjectName(QStringLiteral("scheduleSplitter"));
  codeSplitter->addWidget(editorPane);
  codeSplitter->addWidget(preview_);
  codeSplitter->addWidget(besidePreview_);
  codeSplitter->setChildrenCollapsible(false);
  codeSplitter->setStretchFactor(0, 4);
  codeSplitter->setStretchFactor(1, 5);
  codeSplitter->setStretchFactor(2, 5);

  auto* pageSplitter = new QSplitter(Qt::Vertical);
  pageSplitter->addWidget(codeSplitter);
  pageSplitter->addWidget(measurementTable_);
  pageSplitter->setChildrenCollapsible(false);
  pageSplitter->setStretchFactor(0, 5);
  pageSplitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addWidget(createToolbar());
  layout->addWidget(pageSplitter, 1);

  connect(editor_, &QPlainTextEdit::textChanged, this, &ScheduleEditorPage::editorTextChanged);
  connect(tracker_, &ScheduleEditorTracker::tasksListed, this, &ScheduleEditorPage::showTaskList);
  connect(tracker_, &ScheduleEditorTracker::taskOpened, this, &ScheduleEditorPage::showOpenedTask);
  connect(tracker_, &ScheduleEditorTracker::openFailed, this,
          [this](const QString& name, const QString& message) {
            const QString what = name.isEmpty() ? tr("Cannot list the model's kernels")
                                                : tr("Cannot open %1").arg(name);
            editor_->clear();
            editor_->setDiagnostics({});
            for (views::CodePreview* p : previews()) p->clear(message);
            measurements_->clear();
            setStatus(tr("%1: %2").arg(what, message), true);
            emit logMessage(tr("error: %1 in the schedule editor\n  %2").arg(what, message), true);
          });

  connect(tracker_, &ScheduleEditorTracker::lowered, this,
          [this](const QString& text, const QList<views::LoweringPassText>& passes, double ms) {
            editor_->setDiagnostics({});
            for (views::CodePreview* p : previews()) p->setLoweringPasses(passes);
            for (views::CodePreview* p : previews()) p->setNotice(QString());
            loweredStatus_ =
                tr("Lowered in %1 ms (%2 passes)").arg(ms, 0, 'f', 1).arg(passes.size());
            setStatus(loweredStatus_, false);
            if (const auto task = openedTask())
              journal([&] { journal_.recordEdit(task->task(), tracker_->target(), text); });
            emit previewLowered(text);
          });
  connect(tracker_, &ScheduleEditorTracker::loweringFailed, this,
          [this](const QString& text, const QList<views::ScheduleEditorDiagnostic>& problems) {
            // Positions in an older text would underline the wrong place; the
            // newer text's preview is on its way.
            if (text != editor_->toPlainText()) return;
            editor_->setDiagnostics(problems);
            const views::ScheduleEditorDiagnostic& first = problems.front();
            QString line = first.location().isEmpty()
                               ? first.message
                               : tr("%1: %2").arg(first.location(), first.message);
            if (problems.size() > 1)
              line += tr(" (and %n more)", nullptr, static_cast<int>(problems.size() - 1));
            setStatus(line, true);
            for (views::CodePreview* p : previews())
              p->setNotice(tr("showing the last schedule that lowered"));
            emit diagnosticsShown(text, static_cast<int>(problems.size()));
          });
  connect(tracker_, &ScheduleEditorTracker::loopCostsComputed, this,
          [this](const QString& text, const QString& loopIR,
                 const QList<views::LineAnnotation>& annotations, double estimatedMs) {
            for (views::CodePreview* p : previews()) p->setLoopIRAnnotations(loopIR, annotations);
            loweredStatus_ += tr(" · model %1 ms").arg(estimatedMs, 0, 'g', 3);
            setStatus(loweredStatus_, false);
            emit loopCostsShown(text, static_cast<int>(annotations.size()));
          });
  connect(tracker_, &ScheduleEditorTracker::loopCostsFailed, this,
          [this](const QString&, const QString& message) {
            emit logMessage(tr("error: the loops' costs could not be estimated\n  %1").arg(message),
                            true);
          });
  connect(tracker_, &ScheduleEditorTracker::llvmEmitted, this,
          [this](const QString&, const QString& llvmIR, double ms) {
            for (views::CodePreview* p : previews()) p->setLlvmIR(llvmIR);
            codegenMs_ = ms;
          });
  connect(tracker_, &ScheduleEditorTracker::assemblyEmitted, this,
          [this](const QString& text, const QString& assembly, double ms) {
            for (views::CodePreview* p : previews()) p->setAssembly(assembly);
            const auto task = openedTask();
            const bool gpu = task && task->target().is_gpu();
            setStatus(tr("%1 · LLVM IR %2 ms · %3 %4 ms")
                          .arg(loweredStatus_)
                          .arg(codegenMs_, 0, 'f', 0)
                          .arg(gpu ? tr("PTX") : tr("assembly"))
                          .arg(ms, 0, 'f', 0),
                      false);
            emit previewEmitted(text);
          });
  connect(tracker_, &ScheduleEditorTracker::codegenFailed, this,
          [this](const QString&, const QString& message) {
            setStatus(tr("Code generation failed: %1").arg(message), true);
            for (views::CodePreview* p : previews())
              p->setNotice(tr("showing the code of the last schedule that compiled"));
            emit logMessage(tr("error: code generation failed\n  %1").arg(message), true);
          });

  // Typing lowers in the background; say so only when it takes noticeably long.
  auto* busyNotice = new QTimer(this);
  busyNotice->setSingleShot(true);
  busyNotice->setInterval(400);
  connect(busyNotice, &QTimer::timeout, this, [this] {
    for (views::CodePreview* p : previews()) p->setNotice(updatingNotice());
  });
  connect(tracker_, &ScheduleEditorTracker::previewBusyChanged, this, [this, busyNotice](bool on) {
    if (on) {
      busyNotice->start();
    } else {
      busyNotice->stop();
      if (preview_->notice() == updatingNotice())
        for (views::CodePreview* p : previews()) p->setNotice(QString());
    }
  });

  connect(tracker_, &ScheduleEditorTracker::measuringChanged, this, [this](bool measuring) {
    busy_->setVisible(measuring);
    measureButton_->setEnabled(!measuring && openedTask() && openedTask()->whyNoRun.isEmpty());
    measureButton_->setText(measuring ? tr("Measuring…") : tr("&Measure"));
    simulateButton_->setEnabled(!measuring && openedTask() && openedTask()->target().is_gpu());
  });
  connect(tracker_, &ScheduleEditorTracker::simulated, this,
          [this](const QString&, double maxError, bool correct) {
            const auto task = openedTask();
            if (!task) return;
            const QString name = QString::fromStdString(task->task().func_name);
            const QString text =
                correct ? tr("GPU simulator: %1 matches the reference (max error %2)")
                              .arg(name)
                              .arg(maxError, 0, 'g', 2)
                        : tr("GPU simulator: %1 does NOT match the reference (max error %2)")
                              .arg(name)
                              .arg(maxError, 0, 'g', 2);
            setStatus(text, !correct);
            emit logMessage(text, !correct);
          });
  connect(tracker_, &ScheduleEditorTracker::simulateFailed, this,
          [this](const QString&, const QString& message) {
            setStatus(tr("GPU simulator: %1").arg(message), true);
            emit logMessage(tr("error: the GPU simulator failed\n  %1").arg(message), true);
          });
  connect(
      tracker_, &ScheduleEditorTracker::measured, this,
      [this](const QString& text, const driver::KernelMeasurement& m, double peak, bool correct) {
        const auto task = openedTask();
        if (!task) return;
        views::ScheduleMeasurement row;
        row.when = QDateTime::currentDateTime();
        row.median_ms = m.median_ms;
        row.best_ms = m.best_ms;
        row.gflops = m.gflops;
        row.peak_gflops = peak;
        row.max_error = m.max_error;
        row.correct = correct;
        row.runs = m.runs;
        row.schedule = text;
        measurements_->addMeasurement(row);
        measurementTable_->scrollToBottom();
        journal([&] {
          journal_.recordMeasurement(task->task(), tracker_->target(), text, m, correct);
        });
        const QString name = QString::fromStdString(task->task().func_name);
        emit logMessage(
            tr("Measured %1: median %2 ms, %3 GFLOPS (%4 % of peak), reference %5")
                .arg(name)
                .arg(m.median_ms, 0, 'f', 4)
                .arg(m.gflops, 0, 'f', 2)
                .arg(row.percentOfPeak(), 0, 'f', 1)
                .arg(correct ? tr("ok") : tr("MISMATCH (max error %1)").arg(m.max_error)),
            !correct);
        emit measurementAdded(measurements_->rowCount() - 1);
      });
  connect(tracker_, &ScheduleEditorTracker::measureFailed, this,
          [this](const QString&, const QString& message) {
            setStatus(tr("Measuring failed: %1").arg(message), true);
            emit logMessage(tr("error: measuring failed\n  %1").arg(message), true);
          });

  connect(tracker_, &ScheduleEditorTracker::bestRecordFound, this,
          [this](const QString& path, const QString& schedule, double ms) {
            const QString file = QFileInfo(path).fileName();
            if (schedule == editor_->toPlainText()) {
              setStatus(tr("The editor holds the best record of %1 already (%2 ms)")
                            .arg(file)
                            .arg(ms, 0, 'f', 4),
                        false);
              return;
            }
            editor_->replaceText(schedule);
            tracker_->preview(schedule);
            emit logMessage(tr("Loaded the best record of %1 from %2: %3 ms")
                                .arg(QString::fromStdString(openedTask()->task().func_name), path)
                                .arg(ms, 0, 'f', 4),
                            false);
          });
  connect(tracker_, &ScheduleEditorTracker::bestRecordMissing, this,
          [this](const QString&, const QString& reason) {
            setStatus(tr("No record to load: %1").arg(reason), false);
          });

  setTaskControlsEnabled(false);
}

ScheduleEditorPage::~ScheduleEditorPage() = default;

QWidget* ScheduleEditorPage::createToolbar() {
  taskCombo_ = new QComboBox;
  taskCombo_->setObjectName(QStringLiteral("scheduleTaskCombo"));
  taskCombo_->setToolTip(tr("The model's kernels (fused groups that compute alike share one)"));
  taskCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  taskCombo_->setMinimumContentsLength(40);
  taskCombo_->setEnabled(false);
  connect(taskCombo_, &QComboBox::activated, this, [this](int index) {
    // Choosing the kernel that is open again would only drop its undo history.
    const auto open = openedTask();
    if (open && open->snapshots == snapshots_ && index >= 0 &&
        index < static_cast<int>(tasks_.size()) &&
        tasks_[static_cast<size_t>(index)].func_name == open->task().func_name)
      return;
    openTask(index);
  });

  auto button = [this](const QString& text, const QString& toolTip, const QString& name) {
    auto* b = new QToolButton;
    b->setText(text);
    b->setToolTip(toolTip);
    b->setObjectName(name);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
  };
  undoButton_ = button(tr("Undo"), tr("Undo the last edit (Ctrl+Z)"), QStringLiteral("undoButton"));
  redoButton_ = button(tr("Redo"), tr("Redo (Ctrl+Shift+Z)"), QStringLiteral("redoButton"));
  resetButton_ = button(tr("Reset to Default"), tr("The task's default schedule (undoable)"),
                        QStringLiteral("resetButton"));
  loadBestButton_ = button(tr("Load Best"), tr("The fastest measured schedule of this task"),
                           QStringLiteral("loadBestButton"));
  auto* loadMenu = new QMenu(loadBestButton_);
  loadMenu->addAction(tr("From the Edit &Journal"), this, &ScheduleEditorPage::loadBestFromJournal);
  loadMenu->addAction(tr("From a &Records File…"), this, &ScheduleEditorPage::chooseRecordsFile);
  loadBestButton_->setMenu(loadMenu);
  loadBestButton_->setPopupMode(QToolButton::InstantPopup);
  compareButton_ = button(tr("Com&pare…"), compareToolTip(), QStringLiteral("compareButton"));
  connect(compareButton_, &QToolButton::clicked, this, &ScheduleEditorPage::compare);
  besideButton_ = button(tr("Side by Si&de"),
                         tr("A second code view beside the first: the loop IR and the PTX or "
                            "assembly at once"),
                         QStringLiteral("besideButton"));
  besideButton_->setCheckable(true);
  connect(besideButton_, &QToolButton::toggled, besidePreview_, &QWidget::setVisible);
  undoButton_->setEnabled(false);
  redoButton_->setEnabled(false);
  connect(undoButton_, &QToolButton::clicked, editor_, &QPlainTextEdit::undo);
  connect(redoButton_, &QToolButton::clicked, editor_, &QPlainTextEdit::redo);
  connect(editor_, &QPlainTextEdit::undoAvailable, undoButton_, &QWidget::setEnabled);
  connect(editor_, &QPlainTextEdit::redoAvailable, redoButton_, &QWidget::setEnabled);
  connect(resetButton_, &QToolButton::clicked, this, &ScheduleEditorPage::resetToDefault);

  measureButton_ = new QPushButton(tr("&Measure"));
  measureButton_->setObjectName(QStringLiteral("measureButton"));
  measureButton_->setToolTip(measureToolTip());
  connect(measureButton_, &QPushButton::clicked, this, &ScheduleEditorPage::measure);
  simulateButton_ = new QPushButton(tr("Chec&k on simulator"));
  simulateButton_->setObjectName(QStringLiteral("simulateButton"));
  simulateButton_->setToolTip(
      tr("Run the kernel once on Lathe's GPU simulator, on this machine's CPU, and compare its "
         "outputs with the reference: what the GPU schedule computes, checked without a GPU "
         "(barriers, shared tiles and warp shuffles as strict as the hardware's; no times)"));
  simulateButton_->hide();
  connect(simulateButton_, &QPushButton::clicked, this, &ScheduleEditorPage::simulate);
  busy_ = new QProgressBar;
  busy_->setObjectName(QStringLiteral("measureBusy"));
  busy_->setRange(0, 0);
  busy_->setMaximumWidth(90);
  busy_->setTextVisible(false);
  busy_->hide();

  auto separator = [] {
    auto* line = new QFrame;
    line->setFrameShape(QFrame::VLine);
    line->setFrameShadow(QFrame::Sunken);
    return line;
  };
  auto* bar = new QWidget;
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(tr("Kernel:")));
  row->addWidget(taskCombo_, 1);
  row->addWidget(separator());
  row->addWidget(undoButton_);
  row->addWidget(redoButton_);
  row->addWidget(separator());
  row->addWidget(resetButton_);
  row->addWidget(loadBestButton_);
  row->addWidget(compareButton_);
  row->addWidget(besideButton_);
  row->addWidget(separator());
  row->addWidget(measureButton_);
  row->addWidget(simulateButton_);
  row->addWidget(busy_);
  return bar;
}

std::shared_ptr<const OpenedScheduleTask> ScheduleEditorPage::openedTask() const {
  return tracker_->openedTask();
}

void ScheduleEditorPage::setGraphSnapshots(std::shared_ptr<const GraphSnapshots> snapshots) {
  snapshots_ = std::move(snapshots);
  tracker_->listTasks(snapshots_);
}

void ScheduleEditorPage::showTaskList(std::shared_ptr<const GraphSnapshots> snapshots,
                                      std::vector<driver::KernelTask> tasks) {
  if (snapshots != snapshots_) return;
  tasks_ = std::move(tasks);
  int choice = -1;
  {
    const QSignalBlocker blocker(taskCombo_);
    taskCombo_->clear();
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const driver::KernelTask& task = tasks_[i];
      taskCombo_->addItem(taskLabel(task));
      taskCombo_->setItemData(static_cast<int>(i),
                              tr("%1\nruns in %n fused group(s)", nullptr, task.weight())
                                  .arg(QString::fromStdString(task.signature)),
                              Qt::ToolTipRole);
      if (driver::task_workload_id(task) == openWorkload_) choice = static_cast<int>(i);
    }
  }
  taskCombo_->setEnabled(!tasks_.empty());
  if (choice < 0) choice = heaviestTask(tasks_);
  emit tasksListed(static_cast<int>(tasks_.size()));
  if (choice < 0) return;
  // Opening lowers and compiles: only for a page the user can see.
  if (isVisible()) {
    openTask(choice);
  } else {
    pendingTask_ = choice;
    const QSignalBlocker blocker(taskCombo_);
    taskCombo_->setCurrentIndex(choice);
  }
}

void ScheduleEditorPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (pendingTask_ >= 0) openTask(pendingTask_);
}

void ScheduleEditorPage::openTask(int id) {
  if (id < 0 || id >= static_cast<int>(tasks_.size()) || !snapshots_) return;
  pendingTask_ = -1;
  const driver::KernelTask& task = tasks_[static_cast<size_t>(id)];
  {
    const QSignalBlocker blocker(taskCombo_);
    taskCombo_->setCurrentIndex(id);
  }
  openWorkload_ = driver::task_workload_id(task);
  setTaskControlsEnabled(false);
  setStatus(tr("Opening %1…").arg(QString::fromStdString(task.func_name)), false);
  tracker_->openTask(snapshots_, task, journal_.path());
}

void ScheduleEditorPage::showOpenedTask(std::shared_ptr<const OpenedScheduleTask> task) {
  const driver::KernelTask& kernel = task->task();
  const QString name = QString::fromStdString(kernel.func_name);
  const QString text = task->journaledText.value_or(task->defaultText);
  journal_.noteOpened(kernel, task->target(), text);
  editor_->setVocabulary(task->vocabulary);
  editor_->setDiagnostics({});
  editor_->setPlainText(text);  // a new task starts a new undo history
  for (views::CodePreview* p : previews()) p->clear(tr("lowering…"));
  for (views::CodePreview* p : previews())
    p->setAssemblyName(task->target().is_gpu() ? tr("PTX") : tr("Assembly"));
  measurements_->clear();
  tracker_->preview(text);
  setTaskControlsEnabled(true);
  if (task->journaledText && *task->journaledText != task->defaultText)
    emit logMessage(tr("Restored your last edit of %1 from %2 (Reset to Default discards it)")
                        .arg(name, journal_.path()),
                    false);
  if (!task->journalProblem.isEmpty())
    emit logMessage(tr("error: cannot read the edit journal %1\n  %2")
                        .arg(journal_.path(), task->journalProblem),
                    true);
  for (size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].func_name == kernel.func_name) emit taskOpened(static_cast<int>(i));
}

void ScheduleEditorPage::editorTextChanged() {
  if (openedTask()) tracker_->schedulePreview(editor_->toPlainText());
}

void ScheduleEditorPage::resetToDefault() {
  const auto task = openedTask();
  if (!task) return;
  editor_->replaceText(task->defaultText);
  tracker_->preview(task->defaultText);
}

void ScheduleEditorPage::loadBestFromJournal() {
  tracker_->findBestRecord(journal_.path());
}

void ScheduleEditorPage::loadBestFromFile(const QString& path) {
  tracker_->findBestRecord(path);
}

void ScheduleEditorPage::chooseRecordsFile() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Load Best Schedule from Records"), QString(),
                                   tr("Tuning records (*.jsonl *.json);;All files (*)"));
  if (!path.isEmpty()) loadBestFromFile(path);
}

void ScheduleEditorPage::measure() {
  if (openedTask()) tracker_->measure(editor_->toPlainText());
}

void ScheduleEditorPage::simulate() {
  if (openedTask()) tracker_->simulate(editor_->toPlainText());
}

ScheduleCompareDialog* ScheduleEditorPage::compare() {
  const auto task = openedTask();
  if (!task) return nullptr;
  auto* dialog = new ScheduleCompareDialog(task, editor_->toPlainText(), journal_.path(),
                                           recordsPath_, tracker_->target(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
  return dialog;
}

void ScheduleEditorPage::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? kErrorStyle : kQuietStyle);
}

void ScheduleEditorPage::setTaskControlsEnabled(bool enabled) {
  editor_->setReadOnly(!enabled);
  resetButton_->setEnabled(enabled);
  loadBestButton_->setEnabled(enabled);
  // Measuring and comparing run the kernel: not where it cannot run (a cuda
  // target without a GPU), which the buttons' tool tips say.
  const auto task = openedTask();
  const QString whyNoRun = enabled && task ? task->whyNoRun : QString();
  const bool gpu = enabled && task && task->target().is_gpu();
  compareButton_->setEnabled(enabled && !gpu);
  compareButton_->setToolTip(gpu ? tr("Comparing schedules lowers and times them for the CPU; "
                                      "the target is %1")
                                       .arg(QString::fromStdString(task->target().to_string()))
                                 : compareToolTip());
  measureButton_->setEnabled(enabled && whyNoRun.isEmpty() && !tracker_->isMeasuring());
  measureButton_->setToolTip(whyNoRun.isEmpty() ? measureToolTip()
                                                : tr("Cannot measure: %1").arg(whyNoRun));
  simulateButton_->setVisible(gpu);
  simulateButton_->setEnabled(gpu && !tracker_->isMeasuring());
}

void ScheduleEditorPage::journal(const std::function<void()>& write) {
  try {
    write();
  } catch (const std::exception& e) {
    // Reported once: the editor keeps working without its journal.
    if (journalFailed_) return;
    journalFailed_ = true;
    emit logMessage(tr("error: cannot keep schedule edits in %1\n  %2")
                        .arg(journal_.path(), QString::fromStdString(e.what())),
                    true);
  }
}

}  // namespace lathe::studio
