// Schedule edits as tuning records.
#include "studio/edit_journal.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "driver/kernel_tasks.h"
#include "driver/tuning_records.h"
#include "support/error.h"

namespace lathe::studio {

namespace {

const char* const kEditorSpace = "editor";

// The journal keeps one edit per kernel and target: a cuda schedule is no CPU one.
std::string keptKey(const std::string& workload, const std::string& target) {
  return workload + "\n" + target;
}

}  // namespace

EditJournal::EditJournal(QString path) : path_(std::move(path)) {}

QString EditJournal::defaultPath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("edits.jsonl"));
}

void EditJournal::noteOpened(const driver::KernelTask& task, const driver::Target& target,
                             const QString& text) {
  kept_[keptKey(driver::task_workload_id(task), target.to_string())] = text;
}

driver::TuningRecord EditJournal::makeRecord(const driver::KernelTask& task,
                                             const driver::Target& target,
                                             const QString& text) const {
  driver::TuningRecord record;
  record.workload = driver::task_workload_id(task);
  record.task_key = task.key;
  record.ops = task.ops;
  record.signature = task.signature;
  record.flops = task.flops;
  record.target = target.to_string();
  record.space = kEditorSpace;
  record.tuner = kEditorSpace;
  record.schedule = text.toStdString();
  record.started = record.finished = driver::utc_timestamp();
  return record;
}

void EditJournal::append(const driver::TuningRecord& record) {
  if (!writer_.is_open()) {
    const QString folder = QFileInfo(path_).absolutePath();
    if (!QDir().mkpath(folder))
      throw Error(str("cannot create the folder of the edit journal ", folder.toStdString()));
    writer_ = driver::RecordWriter(QFile::encodeName(path_).toStdString());
  }
  writer_.write(record);
  kept_[keptKey(record.workload, record.target)] = QString::fromStdString(record.schedule);
}

bool EditJournal::recordEdit(const driver::KernelTask& task, const driver::Target& target,
                             const QString& text) {
  const auto kept = kept_.find(keptKey(driver::task_workload_id(task), target.to_string()));
  if (kept != kept_.end() && kept->second == text) return false;
  // An edit that has only lowered has no cost yet: best_records skips it, so
  // the compiler never applies an unmeasured edit.
  append(makeRecord(task, target, text));
  return true;
}

void EditJournal::recordMeasurement(const driver::KernelTask& task, const driver::Target& target,
                                    const QString& text,
                                    const driver::KernelMeasurement& measurement, bool correct) {
  driver::TuningRecord record = makeRecord(task, target, text);
  record.costs_ms = {measurement.median_ms};
  if (!correct) {
    record.error_kind = driver::to_string(driver::ErrorKind::WrongAnswer);
    record.error_message =
        str("max normalized error against the reference ", measurement.max_error);
  }
  append(record);
}

std::optional<QString> EditJournal::latestEdit(const QString& path, const std::string& workload,
                                               const driver::Target& target) {
  const std::string name = target.to_string();
  if (!QFileInfo::exists(path)) return std::nullopt;
  const driver::RecordFile file = driver::read_records(QFile::encodeName(path).toStdString());
  for (auto it = file.records.rbegin(); it != file.records.rend(); ++it)
    if (it->workload == workload && it->target == name && it->space == kEditorSpace)
      return QString::fromStdString(it->schedule);
  return std::nullopt;
}

}  // namespace lathe::studio
