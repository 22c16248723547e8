// Kernel tasks: the distinct kernels of a model. Structurally equal fused
// groups (same ops, attributes, types and inlined constants) share one task,
// as in TVM's task extraction; a task's weight is how many groups run it.
// The names around it: a SearchTask (tune/search_task.h) is a kernel task as
// the tuner searches it, a KernelFixture (tune/kernel_fixture.h) the data its
// kernel is measured on and checked against, and a KernelWorkbench
// (driver/kernel_workbench.h) what the schedule editor opens it in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passes/fuse_ops.h"

namespace lathe::tune {

struct KernelTask {
  int id = 0;
  std::string func_name;         // the compiled function: the first group's name
  std::string key;               // group_structure_key
  std::vector<int> groups;       // indices into the optimized graph's groups running it
  std::vector<std::string> ops;  // the op of each node, in order
  std::string signature;         // "float32[1,64,56,56], ... -> float32[1,64,56,56]"
  int64_t flops = 0;             // floating-point operations of one run

  int weight() const { return static_cast<int>(groups.size()); }
};

// Floating-point operations of one run of a fused group: its nodes' (ir/node_cost.h).
int64_t group_flops(const Graph& graph, const passes::FusedGroup& group);

// The tasks of an optimized graph, in first-occurrence order.
std::vector<KernelTask> extract_tasks(const Graph& graph,
                                      const std::vector<passes::FusedGroup>& groups);

// FNV-1a of the task's structure key, as 16 hex digits: how tuning records
// name the task, so a record applies to every equal kernel of any model.
std::string task_workload_id(const KernelTask& task);

}  // namespace lathe::tune
