// The Compare dialog's layout, its background jobs and their wiring.
#include "studio/schedule_compare_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "studio/exception_text.h"
#include "studio/schedule_editor_tracker.h"
#include "views/schedule_diff_view.h"

namespace lathe::studio {

namespace {

const QString kErrorStyle = QStringLiteral("color: #c0392b;");
const QString kQuietStyle = QStringLiteral("color: palette(placeholder-text);");

struct SourceList {
  std::vector<driver::DiffSchedule> schedules;
  QStringList problems;  // files that could not be read: their sources are left out
};

struct Comparison {
  std::optional<driver::ScheduleDiff> diff;  // nullopt on failure
  std::optional<driver::MachineRoof> machine;
  QString message;
};

std::string localPath(const QString& path) {
  return QFile::encodeName(path).toStdString();
}

// The default, the editor's text, the records file's best and every record,
// and the journal's entries, newest first (the edit just made is the one
// worth comparing).
SourceList listTaskSources(std::shared_ptr<const OpenedScheduleTask> task, QString editorText,
                           QString journalPath, QString recordsPath, driver::Target target) {
  SourceList list;
  try {
    list.schedules.push_back(driver::default_diff_schedule(task->workbench));
  } catch (...) {
    list.problems << exceptionText(std::current_exception());
  }
  driver::DiffSchedule editor;
  editor.label = "editor";
  editor.detail = "the text in the schedule editor";
  editor.text = editorText.toStdString();
  list.schedules.push_back(editor);

  const std::string records = localPath(recordsPath);
  const std::string recordsName = QFileInfo(recordsPath).fileName().toStdString();
  if (!recordsPath.isEmpty() && QFileInfo::exists(recordsPath)) {
    try {
      const driver::TuningRecordSet set = driver::load_tuning_records(records, target);
      const auto best = set.best.find(driver::task_workload_id(task->task()));
      if (best != set.best.end())
        list.schedules.push_back(
            driver::record_diff_schedule(best->second, "best of " + recordsName));
      const std::vector<driver::TuningRecord> all = driver::task_records(records, task->task());
      for (size_t i = 0; i < all.size(); ++i)
        list.schedules.push_back(driver::record_diff_schedule(
            all[i], "record " + std::to_string(i) + " of " + recordsName));
    } catch (...) {
      list.problems << exceptionText(std::current_exception());
    }
  }
  if (QFileInfo::exists(journalPath)) {
    try {
      const std::vector<driver::TuningRecord> entries =
          driver::task_records(localPath(journalPath), task->task());
      for (size_t i = entries.size(); i-- > 0;)
        list.schedules.push_back(
            driver::record_diff_schedule(entries[i], "journal entry " + std::to_string(i)));
    } catch (...) {
      list.problems << exceptionText(std::current_exception());
    }
  }
  return list;
}

Comparison compareSchedules(std::shared_ptr<const OpenedScheduleTask> task, driver::DiffSchedule a,
                            driver::DiffSchedule b, bool measure,
                            std::optional<driver::MachineRoof> machine, driver::Target target) {
  Comparison outcome;
  try {
    driver::ScheduleDiff diff = driver::diff_schedules(task->workbench, std::move(a), std::move(b));
    if (measure) {
      if (!machine) machine = driver::machine_roof();
      driver::measure_schedule_diff(diff, task->workbench, target, *machine);
    }
    outcome.diff = std::move(diff);
    outcome.machine = std::move(machine);
  } catch (...) {
    outcome.message = exceptionText(std::current_exception());
  }
  return outcome;
}

QString sourceText(const driver::DiffSchedule& schedule) {
  const QString label = QString::fromStdString(schedule.label);
  return schedule.detail.empty()
             ? label
             : QStringLiteral("%1 — %2").arg(label, QString::fromStdString(schedule.detail));
}

}  // namespace

ScheduleCompareDialog::ScheduleCompareDialog(std::shared_ptr<const OpenedScheduleTask> task,
                                             const QString& editorText, const QString& journalPath,
                                             const QString& recordsPath,
                                             const driver::Target& target, QWidget* parent)
    : QDialog(parent),
      task_(std::move(task)),
      editorText_(editorText),
      journalPath_(journalPath),
      recordsPath_(recordsPath),
      target_(target) {
  setWindowTitle(tr("Compare Schedules — %1").arg(QString::fromStdString(task_->task().func_name)));
  auto combo = [](const QString& name) {
    auto* c = new QComboBox;
    c->setObjectName(name);
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(28);
    return c;
  };
  sourceA_ = combo(QStringLiteral("compareSourceA"));
  sourceB_ = combo(QStringLiteral("compareSourceB"));
  recordsLabel_ = new QLabel;
  recordsLabel_->setObjectName(QStringLiteral("compareRecordsFile"));
  auto* recordsButton = new QPushButton(tr("Records File…"));
  recordsButton->setToolTip(tr("Offer the records of another file (lathe tune output)"));
  connect(recordsButton, &QPushButton::clicked, this, &ScheduleCompareDialog::chooseRecordsFile);
  measureCheck_ = new QCheckBox(tr("Measure"));
  measureCheck_->setObjectName(QStringLiteral("compareMeasure"));
  measureCheck_->setToolTip(
      tr("Time both kernels alternately in one run, caches flushed, and "
         "place them under the machine's roof"));
  measureCheck_->setChecked(true);
  compareButton_ = new QPushButton(tr("&Compare"));
  compareButton_->setObjectName(QStringLiteral("compareButton"));
  compareButton_->setDefault(true);
  compareButton_->setEnabled(false);
  connect(compareButton_, &QPushButton::clicked, this, &ScheduleCompareDialog::compare);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("compareStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  view_ = new views::ScheduleDiffView;
  view_->setObjectName(QStringLiteral("scheduleDiffView"));

  auto* picker = new QHBoxLayout;
  picker->addWidget(new QLabel(tr("A:")));
  picker->addWidget(sourceA_, 1);
  picker->addWidget(new QLabel(tr("B:")));
  picker->addWidget(sourceB_, 1);
  picker->addWidget(recordsButton);
  picker->addWidget(measureCheck_);
  picker->addWidget(compareButton_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(picker);
  layout->addWidget(recordsLabel_);
  layout->addWidget(view_, 1);
  layout->addWidget(status_);
  resize(1280, 860);

  connect(&comparisons_, &views::JobTracker::busyChanged, this, [this](bool busy) {
    compareButton_->setEnabled(!busy && !sources_.empty());
    compareButton_->setText(busy ? tr("Comparing…") : tr("&Compare"));
  });
  listSources();
}

void ScheduleCompareDialog::setRecordsPath(const QString& path) {
  recordsPath_ = path;
  listSources();
}

void ScheduleCompareDialog::chooseRecordsFile() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Compare with Records"), recordsPath_,
                                   tr("Tuning records (*.jsonl *.json);;All files (*)"));
  if (!path.isEmpty()) setRecordsPath(path);
}

void ScheduleCompareDialog::listSources() {
  recordsLabel_->setText(
      QFileInfo::exists(recordsPath_)
          ? tr("Records: %1 · journal: %2").arg(recordsPath_, journalPath_)
          : tr("Records: %1 (none yet) · journal: %2").arg(recordsPath_, journalPath_));
  setStatus(tr("Reading the records…"), false);
  listings_.start(
      [task = task_, editorText = editorText_, journalPath = journalPath_,
       recordsPath = recordsPath_, target = target_] {
        return listTaskSources(task, editorText, journalPath, recordsPath, target);
      },
      [this](const SourceList& list) {
        sources_ = list.schedules;
        const QString keptA = sourceA_->currentText(), keptB = sourceB_->currentText();
        for (QComboBox* combo : {sourceA_, sourceB_}) {
          combo->clear();
          for (const driver::DiffSchedule& s : sources_) {
            combo->addItem(sourceText(s));
            combo->setItemData(combo->count() - 1, QString::fromStdString(s.text), Qt::ToolTipRole);
          }
        }
        // A: the default; B: the records' best, else the editor's text.
        int b = 1;
        for (int i = 0; i < static_cast<int>(sources_.size()); ++i)
          if (sources_[static_cast<size_t>(i)].label.rfind("best of ", 0) == 0) b = i;
        sourceA_->setCurrentIndex(keptA.isEmpty() ? 0 : std::max(0, sourceA_->findText(keptA)));
        sourceB_->setCurrentIndex(keptB.isEmpty() ? b : std::max(0, sourceB_->findText(keptB)));
        compareButton_->setEnabled(!sources_.empty() && !comparisons_.isBusy());
        if (list.problems.isEmpty())
          setStatus(tr("%n schedule(s) to compare", nullptr, static_cast<int>(sources_.size())),
                    false);
        else
          setStatus(list.problems.join(QLatin1Char('\n')), true);
        emit sourcesListed(static_cast<int>(sources_.size()));
      });
}

void ScheduleCompareDialog::compare() {
  const int a = sourceA_->currentIndex(), b = sourceB_->currentIndex();
  if (a < 0 || b < 0 || a >= static_cast<int>(sources_.size()) ||
      b >= static_cast<int>(sources_.size()))
    return;
  const bool measure = measureCheck_->isChecked();
  view_->clear(measure ? tr("Lowering and measuring both schedules…")
                       : tr("Lowering both schedules…"));
  setStatus(QString(), false);
  comparisons_.start(
      [task = task_, sa = sources_[static_cast<size_t>(a)], sb = sources_[static_cast<size_t>(b)],
       measure, machine = machine_,
       target = target_] { return compareSchedules(task, sa, sb, measure, machine, target); },
      [this](const Comparison& outcome) {
        if (!outcome.diff) {
          view_->clear(QString());
          setStatus(outcome.message, true);
          emit compareFailed(outcome.message);
          return;
        }
        if (outcome.machine) machine_ = outcome.machine;
        view_->setDiff(*outcome.diff);
        emit compared();
      });
}

void ScheduleCompareDialog::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? kErrorStyle : kQuietStyle);
}

}  // namespace lathe::studio
