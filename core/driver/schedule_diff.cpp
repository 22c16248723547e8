#include "driver/schedule_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/kernel_code.h"
#include "driver/kernel_tasks.h"
#include "support/error.h"
#include "tune/group_computation.h"

namespace lathe::driver {

namespace {

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string milliseconds_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f ms", ms);
  return text;
}

bool is_record_index(const std::string& spec) {
  return !spec.empty() && std::all_of(spec.begin(), spec.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

const std::vector<int64_t>* find_knob(const KnobValues& knobs, const std::string& name) {
  for (const auto& [knob, value] : knobs)
    if (knob == name) return &value;
  return nullptr;
}

// Every knob of the template space both sides set, in the space's order; empty
// when either side is no point of that space.
std::vector<KnobRow> knob_rows(const topi::SearchSpace& space, const DiffSchedule& a,
                               const DiffSchedule& b) {
  std::vector<KnobRow> rows;
  if (a.space != space.name || b.space != space.name) return rows;
  for (const topi::Knob& knob : space.knobs) {
    const auto* va = find_knob(a.knobs, knob.name);
    const auto* vb = find_knob(b.knobs, knob.name);
    if (va && vb) rows.push_back({knob.name, *va, *vb});
  }
  return rows;
}

ScheduleDiffSide lower_side(const KernelWorkbench& bench, DiffSchedule schedule) {
  ScheduleDiffSide side;
  try {
    // An empty text would lower the default schedule (the workbench's
    // convention): here it is a text that schedules nothing.
    LATHE_CHECK(schedule.text.find_first_not_of(" \t\r\n") != std::string::npos,
                "the schedule is empty");
    side.func = bench.lower(schedule.text, /*record_ir=*/false).func;
  } catch (const Error& e) {
    // A ScheduleTextError lists each problem as line:column: message.
    fail(str(schedule.label, ":\n", e.what()));
  }
  side.schedule_lines = split_lines(schedule.text);
  side.loop_ir_lines = split_lines(loop_ir_text(side.func));
  side.schedule = std::move(schedule);
  return side;
}

}  // namespace

DiffSchedule default_diff_schedule(const KernelWorkbench& bench) {
  const topi::SearchSpace space = tune::template_search_space(bench.computation());
  DiffSchedule schedule;
  schedule.label = "default";
  schedule.detail = space.name + " default config";
  schedule.text = bench.default_schedule_text();
  schedule.space = space.name;
  for (const topi::Knob& knob : space.knobs)
    schedule.knobs.emplace_back(knob.name, space.value(space.default_config, knob.name));
  return schedule;
}

DiffSchedule record_diff_schedule(const TuningRecord& record, std::string label) {
  DiffSchedule schedule;
  schedule.label = std::move(label);
  schedule.detail = record.space + ", " + record.tuner + ", " +
                    (record.ok() ? milliseconds_text(record.trial_ms()) + " when measured"
                                 : "error: " + record.error_kind);
  if (!record.finished.empty()) schedule.detail += " (" + record.finished + ")";
  schedule.text = record.schedule;
  schedule.space = record.space;
  schedule.knobs = record.knobs;
  return schedule;
}

std::vector<TuningRecord> task_records(const std::string& path, const KernelTask& task) {
  LATHE_CHECK(std::filesystem::exists(path), "cannot read tuning records ", path, ": no such file");
  const std::string workload = task_workload_id(task);
  std::vector<TuningRecord> records;
  for (TuningRecord& record : read_records(path).records)
    if (record.workload == workload) records.push_back(std::move(record));
  return records;
}

DiffSchedule resolve_diff_schedule(const std::string& spec, const KernelWorkbench& bench,
                                   const std::string& records_path, const Target& target) {
  const KernelTask& task = bench.task();
  if (spec == "default") return default_diff_schedule(bench);
  if (spec == "best") {
    LATHE_CHECK(!records_path.empty(), "'best' needs --tuning-records FILE to take it from");
    const TuningRecordSet set = load_tuning_records(records_path, target);
    const auto best = set.best.find(task_workload_id(task));
    LATHE_CHECK(best != set.best.end(), records_path, " has no error-free record of task ", task.id,
                " (", task.func_name, ") for ", target.to_string());
    return record_diff_schedule(best->second, "best of " + file_name(records_path));
  }
  if (is_record_index(spec)) {
    LATHE_CHECK(!records_path.empty(), "record index ", spec,
                " needs --tuning-records FILE to count in");
    const std::vector<TuningRecord> records = task_records(records_path, task);
    const size_t index = std::stoul(spec);
    LATHE_CHECK(!records.empty(), records_path, " holds no record of task ", task.id, " (",
                task.func_name, ")");
    LATHE_CHECK(index < records.size(), "record ", spec, " is out of range: ", records_path,
                " holds ", records.size(), " records of task ", task.id, " (0 to ",
                records.size() - 1, ")");
    return record_diff_schedule(records[index],
                                "record " + spec + " of " + file_name(records_path));
  }
  std::ifstream in(spec);
  LATHE_CHECK(in, "cannot read schedule file ", spec,
              " (a schedule is default, best, a record index or a schedule file)");
  std::stringstream text;
  text << in.rdbuf();
  DiffSchedule schedule;
  schedule.label = "file " + file_name(spec);
  schedule.text = text.str();
  return schedule;
}

std::string knob_value_text(const std::vector<int64_t>& value) {
  if (value.size() == 1) return std::to_string(value.front());
  std::string text = "[";
  for (size_t i = 0; i < value.size(); ++i) text += (i ? ", " : "") + std::to_string(value[i]);
  return text + "]";
}

ScheduleDiff diff_schedules(const KernelWorkbench& bench, DiffSchedule a, DiffSchedule b) {
  ScheduleDiff diff;
  diff.task = bench.task();
  diff.knobs = knob_rows(tune::template_search_space(bench.computation()), a, b);
  diff.a = lower_side(bench, std::move(a));
  diff.b = lower_side(bench, std::move(b));
  diff.schedule_rows = align_lines(diff.a.schedule_lines, diff.b.schedule_lines, schedule_line_key);
  diff.loop_ir_rows = align_lines(diff.a.loop_ir_lines, diff.b.loop_ir_lines, loop_ir_line_key);
  return diff;
}

void measure_schedule_diff(ScheduleDiff& diff, const KernelWorkbench& bench, const Target& target,
                           const MachineRoof& machine, int repeat, int rounds) {
  for (ScheduleDiffSide* side : {&diff.a, &diff.b}) {
    DiffMeasurement m;
    m.roof = kernel_roof(side->func, target.vector_unit(), machine);
    side->measurement = m;
  }
  for (int round = 0; round < std::max(1, rounds); ++round)
    for (ScheduleDiffSide* side : {&diff.a, &diff.b}) {
      KernelMeasurement run;
      try {
        run = bench.measure(side->func, target, repeat, /*flush_cache=*/true);
      } catch (const Error& e) {
        fail(str(side->schedule.label, ": ", e.what()));
      }
      DiffMeasurement& kept = *side->measurement;
      if (round == 0 || run.median_ms < kept.kernel.median_ms) kept.kernel = run;
    }
  for (ScheduleDiffSide* side : {&diff.a, &diff.b}) {
    DiffMeasurement& m = *side->measurement;
    if (m.kernel.median_ms > 0)
      m.percent_of_roof = m.roof.estimated_seconds / (m.kernel.median_ms * 1e-3) * 100;
  }
}

}  // namespace lathe::driver
