#include "driver/graph_compiler.h"

#include <cctype>
#include <cstring>
#include <map>
#include <memory>

#include "driver/gpu_module.h"
#include "driver/graph_module_description.h"
#include "ir/control_flow.h"
#include "passes/external_codegen.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "support/timer.h"
#include "tir/lower.h"
#include "tune/group_computation.h"

namespace lathe::driver {

std::string dltype_name(DType dtype) {
  return std::string(lathe::dtype_name(dtype));
}

runtime::NDArray to_ndarray(const Tensor& tensor) {
  runtime::NDArray array(tensor.shape(), runtime::DataType::parse(dltype_name(tensor.dtype())));
  if (tensor.nbytes()) std::memcpy(array.data(), tensor.raw(), tensor.nbytes());
  return array;
}

Tensor from_ndarray(const runtime::NDArray& array) {
  std::string name = array.dtype().to_string();
  std::optional<DType> dtype = dtype_from_name(name);
  LATHE_CHECK(dtype, "arrays of ", name, " have no tensor type in Lathe");
  Tensor tensor(*dtype, array.shape());
  LATHE_CHECK(tensor.nbytes() == array.nbytes(), "array of ", name, " has ", array.nbytes(),
              " bytes, expected ", tensor.nbytes());
  if (tensor.nbytes()) std::memcpy(tensor.raw(), array.data(), tensor.nbytes());
  return tensor;
}

namespace {

tir::PrimFunc lower_task(schedule::Schedule& sch, const tune::GroupComputation& computation,
                         const KernelTask& task, const Target& target) {
  // The CPU's kernels keep an empty target (the module's), as before.
  const std::string target_text = target.is_gpu() ? target.to_string() : std::string();
  return tir::lower(sch, computation.args(), task.func_name,
                    {.record_ir = false, .target = target_text})
      .func;
}

// A GPU kernel under its kind's default schedule (driver/gpu_module.h).
tir::PrimFunc gpu_default_kernel(KernelTask& task, const tune::GroupComputation& computation,
                                 const Target& target) {
  const topi::SearchSpace space = gpu_search_space(computation, target);
  task.space = space.name;
  task.fallback.clear();
  return lower_task(*tune::apply_config(computation, space, space.default_config), computation,
                    task, target);
}

tir::PrimFunc default_kernel(KernelTask& task, const tune::GroupComputation& computation,
                             const Target& target) {
  if (target.is_gpu()) return gpu_default_kernel(task, computation, target);
  topi::SearchSpace space = tune::template_search_space(computation);
  try {
    task.space = space.name;
    task.fallback = space.fallback;
    return lower_task(*tune::apply_config(computation, space, space.default_config), computation,
                      task, target);
  } catch (const std::exception& e) {
    // The generic template is the last resort: its failure is a compiler bug to report.
    if (!space.fallback.empty() || !computation.anchor_strategy ||
        !computation.anchor_strategy->tuning_template)
      throw;
    const std::string what = e.what();
    space = tune::fallback_search_space(
        computation,
        space.name + ": its default schedule does not lower: " + what.substr(0, what.find('\n')));
  }
  task.space = space.name;
  task.fallback = space.fallback;
  return lower_task(*tune::apply_config(computation, space, space.default_config), computation,
                    task, target);
}

// The task's kernel: under the text `options.schedule_for` gives, else the
// default schedule of its computation.
tir::PrimFunc task_kernel(KernelTask& task, const tune::GroupComputation& computation,
                          const CompileOptions& options) {
  const std::optional<std::string> text =
      options.schedule_for ? options.schedule_for(task) : std::nullopt;
  if (!text) return default_kernel(task, computation, options.target);
  // The space its default would come from, for the task table.
  if (options.target.is_gpu()) {
    task.space = gpu_search_space(computation, options.target).name;
    task.fallback.clear();
  } else {
    tune::describe_task_space(task, computation);
  }
  try {
    return lower_task(*tune::parse_group_schedule(computation, *text), computation, task,
                      options.target);
  } catch (const schedule::ScheduleTextError& e) {
    throw Error("schedule of task " + std::to_string(task.id) + " (" + task.func_name + "):\n" +
                e.what());
  }
}

}  // namespace

namespace {

// "If_25/then" -> "If_25_then_": a prefix that keeps kernel symbols C names.
std::string symbol_prefix(const std::string& name) {
  std::string prefix;
  for (char c : name) prefix += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return prefix + "_";
}

CompiledGraph compile_named_graph(const Graph& graph, const CompileOptions& options,
                                  const std::string& name) {
  CompiledGraph result;
  result.name = name;
  Timer timer;
  passes::PassOptions pass_options = options.passes;
  pass_options.vector_unit = options.target.vector_unit();
  // NCHWc channel blocks are the CPU's vector layout; GPU kernels keep NCHW.
  if (options.target.is_gpu()) {
    pass_options.alter_layout = false;
    pass_options.gpu = true;
  }
  result.optimized = passes::optimize_graph(graph, pass_options);
  result.passes_ms = timer.milliseconds();
  const Graph& g = result.optimized.graph;
  const std::vector<passes::FusedGroup>& groups = result.optimized.groups;
  result.tasks = tune::extract_tasks(g, groups);
  if (!name.empty())
    for (KernelTask& task : result.tasks) task.func_name = symbol_prefix(name) + task.func_name;

  // One kernel per task; every group's computation gives its parameter order.
  timer.restart();
  std::vector<tune::GroupComputation> computations(groups.size());
  for (KernelTask& task : result.tasks) {
    for (int gi : task.groups)
      computations[static_cast<size_t>(gi)] = tune::build_group_computation(
          g, groups[static_cast<size_t>(gi)], result.optimized.vector_unit);
    const tune::GroupComputation& comp = computations[static_cast<size_t>(task.groups[0])];
    result.funcs.push_back(task_kernel(task, comp, options));
  }
  result.lower_ms = timer.milliseconds();

  // Each control-flow node's graphs, compiled as graphs of their own.
  std::map<int, std::vector<uint32_t>> subgraphs_of_node;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (!is_control_flow(node)) continue;
    for (size_t i = 0; i < node.subgraphs.size(); ++i) {
      const std::string sub_name =
          (name.empty() ? "" : name + "/") + node.name + "/" + subgraph_role(node, i);
      subgraphs_of_node[static_cast<int>(n)].push_back(
          static_cast<uint32_t>(result.subgraphs.size()));
      try {
        result.subgraphs.push_back(compile_named_graph(*node.subgraphs[i], options, sub_name));
      } catch (const UnsupportedError& e) {
        throw UnsupportedError(str("subgraph '", sub_name, "': ", e.what()));
      } catch (const Error& e) {
        throw Error(str("subgraph '", sub_name, "': ", e.what()));
      }
    }
  }

  GraphModuleDescription description =
      describe_graph_module(g, groups, result.tasks, computations, subgraphs_of_node);
  result.desc = std::move(description.desc);
  result.params = std::move(description.params);
  for (const CompiledGraph& sub : result.subgraphs) {
    // A subgraph's name is its path from the model's graph; the executor
    // finds it (and its parameters) by the part below this graph.
    runtime::GraphModuleDesc desc = sub.desc;
    const std::string local = name.empty() ? sub.name : sub.name.substr(name.size() + 1);
    desc.name = local;
    result.desc.subgraphs.push_back(std::move(desc));
    for (const auto& [param, value] : sub.params) result.params.emplace(local + "/" + param, value);
    for (const auto& library : sub.external_libraries) result.external_libraries.insert(library);
    result.passes_ms += sub.passes_ms;
    result.lower_ms += sub.lower_ms;
  }
  for (const Node& node : g.nodes)
    if (node.op == passes::kExternalCallOp)
      result.external_libraries[node.attrs.get_string("function", "")] =
          node.attrs.get_string("library", "");
  return result;
}

}  // namespace

CompiledGraph compile_graph(const Graph& graph, const CompileOptions& options) {
  return compile_named_graph(graph, options, "");
}

std::vector<tir::PrimFunc> all_funcs(const CompiledGraph& compiled) {
  std::vector<tir::PrimFunc> funcs = compiled.funcs;
  for (const CompiledGraph& sub : compiled.subgraphs)
    for (tir::PrimFunc& f : all_funcs(sub)) funcs.push_back(std::move(f));
  return funcs;
}

std::vector<KernelTask> all_tasks(const CompiledGraph& compiled) {
  std::vector<KernelTask> tasks = compiled.tasks;
  for (const CompiledGraph& sub : compiled.subgraphs)
    for (KernelTask& task : all_tasks(sub)) {
      task.id = static_cast<int>(tasks.size());
      tasks.push_back(std::move(task));
    }
  return tasks;
}

}  // namespace lathe::driver
