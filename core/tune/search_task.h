// A kernel task as the tuner searches it (Ansor's SearchTask): the kernel's computation, the search
// space of its schedules (the anchor op's template, or Ansor-style sketches), the inputs it is
// measured on and the reference outputs new bests are checked against; and the building of
// candidates — a config applied to a fresh schedule, lowered, described for the cost model and
// compiled to an object.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "tir/stmt.h"
#include "topi/config_space.h"
#include "tune/group_computation.h"
#include "tune/kernel_fixture.h"
#include "tune/kernel_task.h"

namespace lathe::tune {

enum class SpaceKind { Template, Sketch };

struct SearchTask {
  KernelTask task;
  GroupComputation computation;
  topi::SearchSpace space;
  // The anchor's template space (the same as `space` for SpaceKind::Template):
  // its default config is the untuned schedule, what `lathe compile` uses
  // without records and every speed-up is measured against.
  topi::SearchSpace baseline;
  KernelFixture data;
  // The GPU target the task is tuned for (canonical text; tune/gpu_task.h);
  // empty for the CPU, whose kernels lower without one.
  std::string gpu_target;
};

// `vector_unit` is the compile target's (codegen::Target::vector_unit), the
// one the graph's layout was chosen for.
SearchTask make_search_task(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                            const KernelTask& task, SpaceKind kind,
                            const VectorUnit& vector_unit = {});
// The same for `target`: a GPU target takes its kind's templates
// (gpu_template_search_space) and GPU sketches (sketch_space_cuda.h), and its
// candidates are verified and emitted as PTX; a CPU target is the call above.
SearchTask make_search_task(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                            const KernelTask& task, SpaceKind kind, const codegen::Target& target);

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

// Applies the config (of task.space, or of `space`), prints the schedule,
// lowers it and extracts its features; a config the scheduler rejects becomes
// an "instantiation" error.
Candidate instantiate(const SearchTask& task, const topi::Config& config);
Candidate instantiate(const SearchTask& task, const topi::SearchSpace& space,
                      const topi::Config& config);
// instantiate, then LLVM to an object ("compile" error when that fails).
Candidate build_candidate(const SearchTask& task, const topi::Config& config,
                          const codegen::Target& target);
Candidate build_candidate(const SearchTask& task, const topi::SearchSpace& space,
                          const topi::Config& config, const codegen::Target& target);
// The untuned schedule: task.baseline's default config, built.
Candidate build_baseline(const SearchTask& task, const codegen::Target& target);
// A candidate from schedule text (a record's `schedule`, of any space) with
// no config; a schedule that does not parse or apply is an "instantiation" error.
Candidate build_schedule_text(const SearchTask& task, const std::string& schedule_text,
                              const codegen::Target& target);

// Calls fn(0..n-1) on up to `threads` threads (the calling one included).
void parallel_for_each(size_t n, int threads, const std::function<void(size_t)>& fn);

}  // namespace lathe::tune
