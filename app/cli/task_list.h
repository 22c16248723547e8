// The table of a model's kernel tasks that `lathe tasks`, `lathe tune
// --print-tasks` and `lathe compile|run --print-tasks` print: per task its
// id, function, weight, MFLOP, the schedule it gets and its ops and
// signature, and under a task whose template had no point for it, the
// generic schedule it fell back to and why.
#pragma once

#include <iosfwd>
#include <set>
#include <vector>

#include "driver/kernel_tasks.h"

namespace lathe::cli {

// The rows of `selected` (indices into `tasks`; empty: every task). Tasks in
// `tuned` are shown with a record's schedule instead of their default.
void print_task_list(std::ostream& out, const std::vector<driver::KernelTask>& tasks,
                     const std::vector<int>& selected = {}, const std::set<int>& tuned = {});

// "task 3 (fused_conv2dnchwc): falls back to reduction.x86 ..." for each
// task that fell back, one line each; nothing when none did.
void print_fallbacks(std::ostream& out, const std::vector<driver::KernelTask>& tasks);

}  // namespace lathe::cli
