#include "tune/kernel_task.h"

#include <map>
#include <sstream>

#include "ir/control_flow.h"
#include "ir/node_cost.h"
#include "passes/external_codegen.h"
#include "support/error.h"
#include "support/fnv1a.h"
#include "tune/group_computation.h"

namespace lathe::tune {

int64_t group_flops(const Graph& graph, const passes::FusedGroup& group) {
  int64_t flops = 0;
  for (int n : group.nodes) flops += node_cost(graph, graph.nodes[static_cast<size_t>(n)]).flops;
  return flops;
}

namespace {

std::string group_signature(const Graph& graph, const passes::FusedGroup& group) {
  std::ostringstream s;
  bool first = true;
  for (ValueId v : group.inputs) {
    if (graph.value(v).is_constant() && graph.value(v).constant.numel() <= 1) continue;
    s << (first ? "" : ", ") << graph.type(v).to_string();
    first = false;
  }
  s << " -> ";
  first = true;
  for (ValueId v : group.outputs) {
    s << (first ? "" : ", ") << graph.type(v).to_string();
    first = false;
  }
  return s.str();
}

}  // namespace

std::vector<KernelTask> extract_tasks(const Graph& graph,
                                      const std::vector<passes::FusedGroup>& groups) {
  std::vector<KernelTask> tasks;
  std::map<std::string, int> by_key;
  for (size_t g = 0; g < groups.size(); ++g) {
    const passes::FusedGroup& group = groups[g];
    // An external codegen runs it, or the executor's host control flow
    // (whose subgraphs have tasks of their own): nothing to build here.
    const Node& first = graph.nodes[static_cast<size_t>(group.nodes[0])];
    if (group.nodes.size() == 1 && (first.op == passes::kExternalCallOp || is_control_flow(first)))
      continue;
    std::string key = group_structure_key(graph, group);
    auto [it, fresh] = by_key.emplace(key, static_cast<int>(tasks.size()));
    if (fresh) {
      KernelTask task;
      task.id = static_cast<int>(tasks.size());
      task.func_name = group.name;
      task.key = key;
      for (int n : group.nodes) task.ops.push_back(graph.nodes[static_cast<size_t>(n)].op);
      task.signature = group_signature(graph, group);
      task.flops = group_flops(graph, group);
      tasks.push_back(std::move(task));
    }
    tasks[static_cast<size_t>(it->second)].groups.push_back(static_cast<int>(g));
  }
  return tasks;
}

void describe_task_space(KernelTask& task, const GroupComputation& computation) {
  const topi::SearchSpace space = template_search_space(computation);
  task.space = space.name;
  task.fallback = space.fallback;
}

void describe_task_spaces(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                          std::vector<KernelTask>& tasks, const VectorUnit& vector_unit) {
  for (KernelTask& task : tasks) {
    try {
      describe_task_space(
          task, build_group_computation(graph, groups.at(static_cast<size_t>(task.groups.at(0))),
                                        vector_unit));
    } catch (const UnsupportedError&) {
      task.space.clear();
      task.fallback.clear();
    }
  }
}

std::string task_workload_id(const KernelTask& task) {
  // The basis lacks the standard one's last digit (1469598103934665603, not
  // ...6037); every record written so far is named with it, so it stays.
  return fnv1a_hex(task.key, 1469598103934665603ull);
}

}  // namespace lathe::tune
