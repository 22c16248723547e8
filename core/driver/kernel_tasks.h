// The distinct kernels of an optimized graph (tuning tasks) and the workload
// id tuning records name each by: what `lathe tasks` lists, and what the
// schedule editor and the tuning page choose from.
#pragma once

#include <string>
#include <vector>

#include "driver/optimized_graph.h"
#include "driver/target.h"
#include "tune/kernel_task.h"

namespace lathe::driver {

// An alias: the task is plain data, the same one the tuner and the compiler use.
using tune::KernelTask;
// FNV-1a of the task's structure key, as 16 hex digits.
using tune::task_workload_id;
// Floating-point operations of one run of a fused group.
using tune::group_flops;

// The tasks of `optimized`, in first-occurrence order of their groups, each
// with the space of its default schedule for `target` and any fallback from
// its template (tune::describe_task_spaces; a GPU target's kind templates,
// driver/gpu_module.h).
std::vector<KernelTask> kernel_tasks(const OptimizedGraph& optimized,
                                     const Target& target = Target::host());

}  // namespace lathe::driver
