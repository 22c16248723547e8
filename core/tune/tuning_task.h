// One task as the tuner holds it: the kernel's computation, the search space
// of its schedules (the anchor op's template, or Ansor-style sketches), the
// inputs it is measured on and the reference outputs new bests are checked
// against; and the building of candidates — a config applied to a fresh
// schedule, lowered, described for the cost model and compiled to an object.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "tir/stmt.h"
#include "topi/config_space.h"
#include "tune/group_computation.h"
#include "tune/task.h"
#include "tune/task_data.h"

namespace lathe::tune {

enum class SpaceKind { Template, Sketch };

struct TuningTask {
  KernelTask task;
  GroupComputation computation;
  topi::SearchSpace space;
  TaskData data;
};

TuningTask make_tuning_task(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                            const KernelTask& task, SpaceKind kind);

struct Candidate {
  topi::Config config;
  std::string schedule_text;
  tir::PrimFunc func;
  std::vector<float> features;
  std::vector<char> object;
  std::string error_kind = "none";  // "instantiation" or "compile" when building failed
  std::string error_message;
  double build_ms = 0;

  bool ok() const { return error_kind == "none"; }
};

// Applies the config, prints the schedule, lowers it and extracts its
// features; a config the scheduler rejects becomes an "instantiation" error.
Candidate instantiate(const TuningTask& task, const topi::Config& config);
// instantiate, then LLVM to an object ("compile" error when that fails).
Candidate build_candidate(const TuningTask& task, const topi::Config& config,
                          const codegen::Target& target);

// Calls fn(0..n-1) on up to `threads` threads (the calling one included).
void parallel_for_each(size_t n, int threads, const std::function<void(size_t)>& fn);

}  // namespace lathe::tune
