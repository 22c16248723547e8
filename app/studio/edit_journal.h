// The schedule editor's journal: every edit that lowers, and every
// measurement, appended as a tuning record (space and tuner "editor") to a
// records file, one write() a line as soon as it happens. Reopening a task
// restores its newest edit, so an edit survives a crash of the studio, and
// `lathe compile --tuning-records` applies the fastest measured edit.
#pragma once

#include <QString>
#include <map>
#include <optional>
#include <string>

#include "driver/kernel_workbench.h"
#include "driver/target.h"
#include "driver/tuning_records.h"

namespace lathe::studio {

class EditJournal {
 public:
  // The records file; created (with its folder) at the first write.
  explicit EditJournal(QString path);

  // edits.jsonl in the user's application data folder
  // (~/.local/share/Lathe/lathe-studio/ on Linux).
  static QString defaultPath();
  const QString& path() const { return path_; }

  // Remembers `text` as the task's kept edit without writing it: what the
  // editor opened with (restored from here, or the default) is not news.
  void noteOpened(const driver::KernelTask& task, const driver::Target& target,
                  const QString& text);
  // Appends the edit unless it is the task's kept edit already; returns
  // whether it wrote. Throws lathe::Error when the file cannot be written.
  bool recordEdit(const driver::KernelTask& task, const driver::Target& target,
                  const QString& text);
  // Appends a measured edit with its cost (an error record, wrong_answer,
  // when its outputs do not match the reference).
  void recordMeasurement(const driver::KernelTask& task, const driver::Target& target,
                         const QString& text, const driver::KernelMeasurement& measurement,
                         bool correct);

  // The newest editor record of the workload for `target` in `path` (a cuda
  // schedule is no CPU schedule); nullopt when there is
  // none or no file. Reads the whole file: the studio calls it off the GUI
  // thread. Throws lathe::Error for a malformed file.
  static std::optional<QString> latestEdit(const QString& path, const std::string& workload,
                                           const driver::Target& target);

 private:
  driver::TuningRecord makeRecord(const driver::KernelTask& task, const driver::Target& target,
                                  const QString& text) const;
  void append(const driver::TuningRecord& record);

  QString path_;
  driver::RecordWriter writer_;  // opened at the first write
  // By workload and target (keptKey): the last edit written or opened.
  std::map<std::string, QString> kept_;
};

}  // namespace lathe::studio
