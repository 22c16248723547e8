#include "driver/graph_module_description.h"

#include <functional>
#include <unordered_map>

#include "driver/graph_compiler.h"
#include "driver/memory_plan.h"
#include "passes/external_codegen.h"
#include "support/error.h"

namespace lathe::driver {
namespace {

// Groups in an order where each runs after the groups producing its inputs.
std::vector<int> topological_group_order(const std::vector<passes::FusedGroup>& groups) {
  std::unordered_map<ValueId, int> producer_group;
  for (size_t g = 0; g < groups.size(); ++g)
    for (ValueId v : groups[g].outputs) producer_group[v] = static_cast<int>(g);
  std::vector<int> state(groups.size(), 0), order;  // 0 new, 1 visiting, 2 done
  std::function<void(int)> visit = [&](int g) {
    if (state[static_cast<size_t>(g)] == 2) return;
    LATHE_CHECK(state[static_cast<size_t>(g)] != 1, "fused groups form a cycle at ",
                groups[static_cast<size_t>(g)].name);
    state[static_cast<size_t>(g)] = 1;
    for (ValueId v : groups[static_cast<size_t>(g)].inputs)
      if (auto it = producer_group.find(v); it != producer_group.end()) visit(it->second);
    state[static_cast<size_t>(g)] = 2;
    order.push_back(g);
  };
  for (size_t g = 0; g < groups.size(); ++g) visit(static_cast<int>(g));
  return order;
}

}  // namespace

GraphModuleDescription describe_graph_module(
    const Graph& g, const std::vector<passes::FusedGroup>& groups,
    const std::vector<tune::KernelTask>& tasks,
    const std::vector<tune::GroupComputation>& computations,
    const std::map<int, std::vector<uint32_t>>& subgraphs_of_node) {
  std::vector<int> task_of_group(groups.size(), -1);
  for (const tune::KernelTask& task : tasks)
    for (int gi : task.groups) task_of_group[static_cast<size_t>(gi)] = task.id;

  GraphModuleDescription description;
  runtime::GraphModuleDesc& desc = description.desc;
  std::unordered_map<ValueId, runtime::GraphEntryRef> entry_of;
  auto add_null_node = [&](ValueId v) {
    runtime::GraphNode node;
    node.op = "null";
    node.name = g.value(v).name;
    node.num_outputs = 1;
    entry_of[v] = {static_cast<uint32_t>(desc.nodes.size()), 0, 0};
    desc.arg_nodes.push_back(static_cast<uint32_t>(desc.nodes.size()));
    desc.nodes.push_back(node);
  };
  auto ensure_param = [&](ValueId v) {
    if (entry_of.count(v)) return;
    const Value& value = g.value(v);
    LATHE_CHECK(value.is_constant(), "value ", value.name, " has no producer");
    description.params.emplace(value.name, to_ndarray(value.constant));
    add_null_node(v);
  };
  for (ValueId v : g.inputs) add_null_node(v);
  // A group without a task is one external call (passes/partition_external)
  // or one control-flow node: its arguments are the node's inputs and outputs.
  auto external_call = [&](size_t gi) -> const Node* {
    if (task_of_group[gi] >= 0) return nullptr;
    const Node& node = g.nodes[static_cast<size_t>(groups[gi].nodes.front())];
    LATHE_CHECK(groups[gi].nodes.size() == 1 && (node.op == passes::kExternalCallOp ||
                                                 subgraphs_of_node.count(groups[gi].nodes.front())),
                "fused group ", groups[gi].name, " has no kernel");
    return &node;
  };
  auto input_values = [&](size_t gi) {
    const Node* call = external_call(gi);
    return call ? call->inputs : computations[gi].input_values;
  };
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (ValueId v : input_values(gi))
      if (g.value(v).is_constant()) ensure_param(v);
  for (int gi : topological_group_order(groups)) {
    const size_t group = static_cast<size_t>(gi);
    const Node* call = external_call(group);
    const std::vector<ValueId> inputs = input_values(group);
    const std::vector<ValueId> outputs = call ? call->outputs : computations[group].output_values;
    runtime::GraphNode node;
    node.op = "tvm_op";
    node.name = groups[group].name;
    if (auto sub = subgraphs_of_node.find(groups[group].nodes.front());
        call && sub != subgraphs_of_node.end()) {
      // Host control flow: the executor runs the node's subgraphs.
      node.func_name = call->op;
      node.control_flow = call->op;
      node.subgraphs = sub->second;
    } else if (call) {
      node.func_name = call->attrs.get_string("function", "");
      node.external = true;
      node.external_params = call->attrs.get_string("params", "");
    } else {
      node.func_name = tasks[static_cast<size_t>(task_of_group[group])].func_name;
    }
    for (ValueId v : inputs) node.inputs.push_back(entry_of.at(v));
    node.num_inputs = static_cast<uint32_t>(inputs.size());
    node.num_outputs = static_cast<uint32_t>(outputs.size());
    uint32_t id = static_cast<uint32_t>(desc.nodes.size());
    for (size_t i = 0; i < outputs.size(); ++i)
      entry_of[outputs[i]] = {id, static_cast<uint32_t>(i), 0};
    desc.nodes.push_back(node);
  }
  for (ValueId v : g.outputs) {
    if (!entry_of.count(v)) ensure_param(v);
    desc.heads.push_back(entry_of.at(v));
  }
  // Entry attributes in node order.
  runtime::finalize(desc);
  desc.dltype.assign(desc.num_entries(), "");
  desc.shape.assign(desc.num_entries(), {});
  for (const auto& [v, e] : entry_of) {
    uint32_t id = desc.entry_id(e);
    desc.dltype[id] = dltype_name(g.type(v).dtype);
    desc.shape[id] = g.type(v).shape;
  }
  plan_memory(desc);
  return description;
}

}  // namespace lathe::driver
