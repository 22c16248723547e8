#include "driver/tuning_records.h"
#include "codegen/codegen.h"

#include <memory>

namespace lathe::driver {

std::optional<std::string> TuningRecordSet::schedule_for(const KernelTask& task) const {
  auto it = best.find(tune::task_workload_id(task));
  if (it == best.end()) return std::nullopt;
  return it->second.schedule;
}

TuningRecordSet load_tuning_records(const std::string& path, const codegen::Target& target) {
  tune::RecordFile file = tune::read_records(path);
  TuningRecordSet set;
  set.path = path;
  set.warnings = std::move(file.warnings);
  set.num_records = file.records.size();
  const std::string target_text = target.to_string();
  set.best = tune::best_records(file.records, target_text);
  for (const tune::TuningRecord& r : file.records)
    if (r.ok() && r.target != target_text) ++set.other_target;
  // The latest verdict on each task's current best decides; a verdict on a
  // schedule that is no longer the best (tuning went on) says nothing.
  std::map<std::string, const tune::TuningRecord*> verdicts;
  for (const tune::TuningRecord& v : file.in_model_checks) {
    auto best = set.best.find(v.workload);
    if (v.target == target_text && best != set.best.end() && best->second.schedule == v.schedule)
      verdicts[v.workload] = &v;
  }
  for (const auto& [workload, verdict] : verdicts)
    if (verdict->confirmation == tune::Confirmation::Lost) {
      set.slower_in_model[workload] = *verdict;
      set.best.erase(workload);
    }
  return set;
}

std::function<std::optional<std::string>(const KernelTask&)> best_schedules_from_records(
    const std::string& path, const codegen::Target& target) {
  auto set = std::make_shared<TuningRecordSet>(load_tuning_records(path, target));
  return [set](const KernelTask& task) { return set->schedule_for(task); };
}

}  // namespace lathe::driver
