// Compiling with a records file's schedules, as `lathe compile
// --tuning-records` does, while keeping count of the kernels a record
// scheduled and noting what did not apply: shared by the Benchmark tab's
// builds and Export Package.
#pragma once

#include <QString>
#include <memory>
#include <set>
#include <string>

#include "driver/graph_compiler.h"
#include "driver/target.h"

namespace lathe::studio {

struct RecordSchedules {
  // Structure keys of the tasks a record scheduled, filled in while
  // compile_graph asks for schedules.
  std::shared_ptr<std::set<std::string>> tuned = std::make_shared<std::set<std::string>>();
  // Why some or all records do not apply (a missing file, records for
  // another target, skipped lines); empty when there is nothing to say.
  QString note;

  int tunedCount() const { return static_cast<int>(tuned->size()); }
};

// Points `options.schedule_for` at the best error-free record of each task
// in `path` for `options.target`. A missing file leaves the default
// schedules and says so. Throws lathe::Error for a malformed file.
RecordSchedules applyRecordSchedules(const QString& path, driver::CompileOptions& options);

// After compiling: the note for a build no record of `path` applied to.
QString noRecordAppliedNote(const driver::Target& target);

}  // namespace lathe::studio
