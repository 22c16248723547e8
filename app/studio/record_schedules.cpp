// Records files applied to a compile, with what they covered.
#include "studio/record_schedules.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include "driver/tuning_records.h"

namespace lathe::studio {

RecordSchedules applyRecordSchedules(const QString& path, driver::CompileOptions& options) {
  RecordSchedules schedules;
  if (!QFileInfo::exists(path)) {
    schedules.note =
        QStringLiteral("%1 does not exist: every kernel on its default schedule").arg(path);
    return schedules;
  }
  auto records = std::make_shared<const driver::TuningRecordSet>(
      driver::load_tuning_records(QFile::encodeName(path).toStdString(), options.target));
  options.schedule_for = [records, tuned = schedules.tuned](const driver::KernelTask& task) {
    std::optional<std::string> schedule = records->schedule_for(task);
    if (schedule) tuned->insert(task.key);
    return schedule;
  };
  QStringList notes;
  if (records->other_target > 0)
    notes << QStringLiteral("%1 error-free record(s) for another target not applied")
                 .arg(records->other_target);
  for (const std::string& warning : records->warnings) notes << QString::fromStdString(warning);
  schedules.note = notes.join(QLatin1Char('\n'));
  return schedules;
}

QString noRecordAppliedNote(const driver::Target& target) {
  return QStringLiteral(
             "the records cover none of this model's kernels for %1: every kernel on its default "
             "schedule")
      .arg(QString::fromStdString(target.to_string()));
}

}  // namespace lathe::studio
