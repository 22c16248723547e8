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
#include "support/vector_unit.h"

namespace lathe::tune {

struct KernelTask {
  int id = 0;
  std::string func_name;         // the compiled function: the first group's name
  std::string key;               // group_structure_key
  std::vector<int> groups;       // indices into the optimized graph's groups running it
  std::vector<std::string> ops;  // the op of each node, in order
  std::string signature;         // "float32[1,64,56,56], ... -> float32[1,64,56,56]"
  int64_t flops = 0;             // floating-point operations of one run
  // The space its default schedule comes from (topi::SearchSpace::name:
  // "conv2d_NCHWc.x86", "injective.x86") and, where the anchor op's template
  // had no point for this kernel and the generic template stands in, which
  // template and why (SearchSpace::fallback). Set by describe_task_spaces and
  // compile_graph; extract_tasks leaves them empty.
  std::string space;
  std::string fallback;

  int weight() const { return static_cast<int>(groups.size()); }
};

// Floating-point operations of one run of a fused group: its nodes' (ir/node_cost.h).
int64_t group_flops(const Graph& graph, const passes::FusedGroup& group);

// The tasks of an optimized graph, in first-occurrence order.
std::vector<KernelTask> extract_tasks(const Graph& graph,
                                      const std::vector<passes::FusedGroup>& groups);

struct GroupComputation;

// Sets the task's space and fallback from `computation`, one of its groups'
// (template_search_space).
void describe_task_space(KernelTask& task, const GroupComputation& computation);
// Sets each task's space and fallback from its first group's computation
// (template_search_space), for target vectors `vector_unit`. A task whose
// group has an op without a compute keeps them empty: compiling it fails with
// that error, naming the node.
void describe_task_spaces(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                          std::vector<KernelTask>& tasks, const VectorUnit& vector_unit);

// FNV-1a of the task's structure key, as 16 hex digits: how tuning records
// name the task, so a record applies to every equal kernel of any model.
std::string task_workload_id(const KernelTask& task);

}  // namespace lathe::tune
