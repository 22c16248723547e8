// Two schedules of one kernel task side by side: where each came from (the
// default, a tuning record, a hand edit, a file), the knob values that differ
// (or, for free-text schedules, the primitive lines), both loop IRs aligned
// loop by loop (driver/line_alignment), and both measured in the same run
// with their place under the machine's roof. What `lathe schedule --diff`
// prints and the studio's schedule diff view shows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/kernel_roofline.h"
#include "driver/kernel_workbench.h"
#include "driver/line_alignment.h"
#include "driver/target.h"
#include "driver/tuning_records.h"

namespace lathe::driver {

using KnobValues = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// One side of a diff before it is lowered.
struct DiffSchedule {
  std::string label;   // "default", "record 3 of tune.jsonl", "file gemm.py"
  std::string detail;  // "conv2d_NCHWc.x86, xgb, 0.1234 ms when tuned"; may be empty
  std::string text;
  // The template space the schedule is a point of, and its knob values;
  // empty for a text no config stands behind (a hand edit, a file).
  std::string space;
  KnobValues knobs;
};

// The task's default schedule: its template space's default config.
DiffSchedule default_diff_schedule(const KernelWorkbench& bench);
// A tuning record's schedule, under `label`.
DiffSchedule record_diff_schedule(const TuningRecord& record, std::string label);
// The records of the task in `path`, in file order, whatever their target or
// outcome: what a record index counts. Throws lathe::Error for a file that
// cannot be read or a malformed line.
std::vector<TuningRecord> task_records(const std::string& path, const KernelTask& task);

// A schedule named on the command line: `default`; `best`, the fastest
// error-free record of the task in `records_path` for `target`; a record
// index N, the task's Nth record in `records_path` (from 0, see
// task_records); or the path of a schedule text file. Throws lathe::Error
// saying what is missing: no records file, an index out of range, no
// error-free record, a file that cannot be read.
DiffSchedule resolve_diff_schedule(const std::string& spec, const KernelWorkbench& bench,
                                   const std::string& records_path, const Target& target);

struct KnobRow {
  std::string knob;
  std::vector<int64_t> a, b;
  bool differs() const { return a != b; }
};
// "4" for a one-value knob, "[4, 14]" for a split's factors.
std::string knob_value_text(const std::vector<int64_t>& value);

struct DiffMeasurement {
  KernelMeasurement kernel;  // the round with the lowest median
  Roofline roof;             // the model's roof over the lowered kernel
  double percent_of_roof = 0;
};

struct ScheduleDiffSide {
  DiffSchedule schedule;
  std::vector<std::string> schedule_lines;
  std::vector<std::string> loop_ir_lines;
  tir::PrimFunc func;  // the lowered kernel, for measuring
  std::optional<DiffMeasurement> measurement;
};

struct ScheduleDiff {
  KernelTask task;
  ScheduleDiffSide a, b;
  // Every knob of the space when both sides are points of one space (a knob
  // either side lacks is left out); empty otherwise, and then the schedule
  // rows that are not Same are the primitives that differ.
  std::vector<KnobRow> knobs;
  std::vector<AlignedRow> schedule_rows;
  std::vector<AlignedRow> loop_ir_rows;

  bool knobs_comparable() const { return !knobs.empty(); }
};

// Lowers both schedules and aligns them. Throws lathe::Error naming the
// side's label and, for a bad schedule text, each problem's line:column.
ScheduleDiff diff_schedules(const KernelWorkbench& bench, DiffSchedule a, DiffSchedule b);

// Measures both sides in `rounds` alternating rounds of `repeat` runs each
// (A, B, A, B ...: drift of the machine touches both alike) and keeps each
// side's round with the lowest median, as interference only adds time. Each
// run starts with weights and outputs out of the caches, as when tuning (so
// the times compare with the records'), since the roof over it (from
// `machine`) models a cold start. Throws lathe::Error naming the side whose
// kernel failed to run.
void measure_schedule_diff(ScheduleDiff& diff, const KernelWorkbench& bench, const Target& target,
                           const MachineRoof& machine, int repeat = 20, int rounds = 2);

}  // namespace lathe::driver
