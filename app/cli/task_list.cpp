#include "task_list.h"

#include <iomanip>
#include <ostream>
#include <string>

namespace lathe::cli {
namespace {

constexpr int kIdWidth = 4, kNameWidth = 44, kWeightWidth = 8, kMflopWidth = 12,
              kScheduleWidth = 30;

// The schedule column: the default's space, marked where it is a fallback.
std::string schedule_text(const driver::KernelTask& task, bool tuned) {
  if (tuned) return "tuned (record)";
  if (task.space.empty()) return "-";
  return task.fallback.empty() ? task.space : task.space + " (fallback)";
}

}  // namespace

void print_task_list(std::ostream& out, const std::vector<driver::KernelTask>& tasks,
                     const std::vector<int>& selected, const std::set<int>& tuned) {
  const int indent = kIdWidth + kNameWidth + kWeightWidth + kMflopWidth + 2;
  out << std::left << std::setw(kIdWidth) << "ID" << std::setw(kNameWidth) << "task" << std::right
      << std::setw(kWeightWidth) << "weight" << std::setw(kMflopWidth) << "MFLOP"
      << "  " << std::left << std::setw(kScheduleWidth) << "schedule"
      << "ops / shapes\n";
  std::vector<int> rows = selected;
  if (rows.empty())
    for (const driver::KernelTask& t : tasks) rows.push_back(t.id);
  for (int id : rows) {
    const driver::KernelTask& t = tasks.at(static_cast<size_t>(id));
    std::string ops;
    for (const std::string& op : t.ops) ops += (ops.empty() ? "" : " → ") + op;
    const bool is_tuned = tuned.count(t.id) > 0;
    out << std::left << std::setw(kIdWidth) << t.id << std::setw(kNameWidth) << t.func_name
        << std::right << std::setw(kWeightWidth) << t.weight() << std::setw(kMflopWidth)
        << std::fixed << std::setprecision(3) << static_cast<double>(t.flops) / 1e6 << "  "
        << std::left << std::setw(kScheduleWidth) << schedule_text(t, is_tuned) << ops << "\n"
        << std::setw(indent + kScheduleWidth) << "" << t.signature << "\n";
    if (!t.fallback.empty() && !is_tuned)
      out << std::setw(indent) << ""
          << "fell back to the generic " << t.space << " schedule: " << t.fallback << "\n";
  }
  out << std::right;
}

void print_fallbacks(std::ostream& out, const std::vector<driver::KernelTask>& tasks) {
  for (const driver::KernelTask& t : tasks)
    if (!t.fallback.empty())
      out << "task " << t.id << " (" << t.func_name << ") falls back to the generic " << t.space
          << " schedule: " << t.fallback << "\n";
}

}  // namespace lathe::cli
