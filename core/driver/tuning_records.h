// Applying tuning records when compiling (`lathe compile --tuning-records`):
// the fastest error-free record of each task for the compile target, and what
// the compiler should say about the rest (tasks without a record, records
// skipped with a warning).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "driver/graph_compiler.h"
#include "driver/target.h"
#include "tune/measure.h"
#include "tune/records.h"

namespace lathe::driver {

// Aliases rather than copies: a record is plain data in the one file format
// the tuner writes and the compiler reads, and the studio's schedule editor
// journals hand edits in it too; the reader and writer are the tuner's own.
using tune::ErrorKind;
using tune::read_records;
using tune::RecordFile;
using tune::RecordWriter;
using tune::to_string;
using tune::TuningRecord;
using tune::utc_timestamp;

struct TuningRecordSet {
  std::string path;
  std::map<std::string, tune::TuningRecord> best;  // by workload
  std::vector<std::string> warnings;               // torn last line, newer versions
  size_t num_records = 0;
  size_t other_target = 0;  // error-free records for another target, not applied
  // Tasks whose best record was slower inside the model than the default
  // schedule (driver/in_model_check): their verdicts, by workload. These
  // tasks have no entry in `best`, so they compile with the default.
  std::map<std::string, tune::TuningRecord> slower_in_model;

  // The best record's schedule for a task, nullopt when it has none.
  std::optional<std::string> schedule_for(const KernelTask& task) const;
};

// The fastest record of each task, as tune::best_records picks it, unless
// the file's latest in-model verdict on that very schedule says the default
// ran faster in the model. Throws lathe::Error naming the file and line of a
// malformed record.
TuningRecordSet load_tuning_records(const std::string& path, const Target& target);

// For CompileOptions::schedule_for.
std::function<std::optional<std::string>(const KernelTask&)> best_schedules_from_records(
    const std::string& path, const Target& target);

}  // namespace lathe::driver
