// One fused group of the optimized graph as a tensor-expression computation:
// a placeholder per kernel parameter, each node's TOPI compute chained, its
// search space (the anchor op's tuning template, or the generic one) and the
// default schedule (that space's default config). What `lathe schedule`, the
// studio's schedule editor and the tuner start from.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/fuse_ops.h"
#include "schedule/schedule.h"
#include "te/tensor.h"
#include "topi/config_space.h"
#include "topi/op_compute.h"

namespace lathe::tune {

struct GroupComputation {
  std::vector<te::Tensor> inputs;      // placeholders p0, p1 ...: the kernel's input buffers
  std::vector<ValueId> input_values;   // the graph value each placeholder stands for
  std::vector<te::Tensor> outputs;     // the kernel's output buffers
  std::vector<ValueId> output_values;  // the graph value of each
  te::Tensor anchor;                   // the anchor node's first output
  const topi::OpStrategy* anchor_strategy = nullptr;
  std::string anchor_op;                      // the anchor node's op: "Conv2dNCHWc"
  std::map<std::string, te::Tensor> tensors;  // every tensor by name, for schedule text
  // The scalar constants made immediates (c0, c1 ...): stages of their own
  // that every schedule inlines (inline_constants).
  std::vector<te::Tensor> constants;
  VectorUnit vector_unit;  // of the target: the templates' register budgets and vectors

  // Kernel parameters as tvm.lower takes them: inputs then outputs.
  std::vector<te::Tensor> args() const;
};

// Throws UnsupportedError naming the node when an op has no compute
// definition. `vector_unit` is the target's, as the graph passes had it.
GroupComputation build_group_computation(const Graph& graph, const passes::FusedGroup& group,
                                         const VectorUnit& vector_unit = {});

// The group's search space: the anchor op's tuning template when it has one,
// else the generic template (topi/generic_template.h). Its apply takes a fresh
// schedule of the computation's outputs. A template with no point for the
// group's shape — it throws while it describes its space, its default config
// is not a point of that space, or that config does not apply to a fresh
// schedule — gives way to the generic template, whose default schedule is
// correct for every computation, and the space's `fallback` says which
// template and why: every valid model compiles.
topi::SearchSpace template_search_space(const GroupComputation& computation);

// The generic template standing in for the anchor's, with `reason` (the
// template's name and what went wrong) as its fallback: what
// template_search_space returns for a template without a point, and what the
// compiler uses where a template's default schedule does not lower.
topi::SearchSpace fallback_search_space(const GroupComputation& computation,
                                        const std::string& reason);

// A fresh schedule of the computation's outputs with `config` of its space
// applied; throws schedule::ScheduleError for a config the scheduler refuses.
// Inlines the computation's scalar constants where the schedule left them
// at the root: an immediate where they are read, never a buffer (a GPU
// kernel could not hold one outside its thread-bound loops).
void inline_constants(schedule::Schedule& sch, const GroupComputation& computation);

std::unique_ptr<schedule::Schedule> apply_config(const GroupComputation& computation,
                                                 const topi::SearchSpace& space,
                                                 const topi::Config& config);

// The group's default schedule: its space's default config. Primitives land
// in the trace.
std::unique_ptr<schedule::Schedule> default_group_schedule(const GroupComputation& computation);

// A schedule from text in TVM's syntax, over the group's tensors; throws
// schedule::ScheduleTextError with line:column diagnostics.
std::unique_ptr<schedule::Schedule> parse_group_schedule(const GroupComputation& computation,
                                                         const std::string& text);

// A string that is equal for two groups exactly when they compute the same
// kernel (same ops, attributes, types, parameter layout and inlined
// constants), so structurally equal groups share one compiled function.
std::string group_structure_key(const Graph& graph, const passes::FusedGroup& group);

}  // namespace lathe::tune
