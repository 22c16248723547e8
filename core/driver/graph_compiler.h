// The graph compiler: an imported graph through the graph passes, each fused
// group through TOPI, a schedule and lowering, into the pieces of a package —
// loop-IR functions (one per distinct kernel), the graph executor's JSON
// description and the parameters.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "driver/kernel_tasks.h"
#include "driver/target.h"
#include "ir/graph.h"
#include "passes/pipeline.h"
#include "runtime/graph_json.h"
#include "runtime/ndarray.h"
#include "tir/stmt.h"

namespace lathe::driver {

struct CompileOptions {
  Target target = Target::host();
  // Its vector_unit is the target's, whatever is set here.
  passes::PassOptions passes;
  // Schedule text for a task instead of its default schedule (tuning records,
  // `lathe schedule`); nullopt keeps the default.
  std::function<std::optional<std::string>(const KernelTask&)> schedule_for;
};

struct CompiledGraph {
  // A subgraph's name: its control-flow node's and its role ("If_25/then");
  // empty for the model's graph. Its kernels' names begin with it, made a
  // symbol ("If_25_then_fused_conv2d").
  std::string name;
  passes::OptimizedGraph optimized;
  std::vector<KernelTask> tasks;
  std::vector<tir::PrimFunc> funcs;  // funcs[i] implements tasks[i]
  runtime::GraphModuleDesc desc;     // memory-planned
  std::map<std::string, runtime::NDArray> params;
  // External codegens' runtime libraries, by the symbol of their table
  // (what the graph's external nodes name as func_name).
  std::map<std::string, std::string> external_libraries;
  // The graphs of the control-flow nodes (ir/control_flow.h), each compiled
  // as a graph of its own, in the order of desc.subgraphs; their kernels are
  // not in `tasks` and `funcs` but in theirs.
  std::vector<CompiledGraph> subgraphs;
  double passes_ms = 0, lower_ms = 0;
};

// Every kernel of the graph and of its subgraphs, at any depth: what one
// module must hold to run it.
std::vector<tir::PrimFunc> all_funcs(const CompiledGraph& compiled);
// The graph's tasks, then its subgraphs' (whose names say which subgraph
// they are in), numbered in that order: the task table of the whole model.
std::vector<KernelTask> all_tasks(const CompiledGraph& compiled);

// Runs the graph passes, then builds, schedules and lowers every task, and
// compiles each control-flow node's subgraphs the same way. Throws
// UnsupportedError naming the first node without a compiled kernel, and
// ScheduleTextError for bad schedule text (naming the task).
CompiledGraph compile_graph(const Graph& graph, const CompileOptions& options = {});

// Conversions between the compiler's tensors and the runtime's arrays.
runtime::NDArray to_ndarray(const Tensor& tensor);
Tensor from_ndarray(const runtime::NDArray& array);
std::string dltype_name(DType dtype);  // "float32", "int64", "bool" ...

}  // namespace lathe::driver
