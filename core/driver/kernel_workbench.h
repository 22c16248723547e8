// One kernel task on the workbench: its tensor-expression computation, its
// default schedule as text, lowering of any schedule text with the IR after
// every pass, the emitted code, and a measurement checked against the
// reference executor. What `lathe schedule` and the studio's schedule editor
// both drive.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/graph_compiler.h"
#include "driver/target.h"
#include "schedule/schedule_text.h"
#include "tir/lower.h"
#include "tune/group_computation.h"

namespace lathe::driver {

// Aliases rather than copies: what lower() returns and throws is the lowering
// pipeline's own plain data (the IR after each pass, diagnostics with line and
// column), shown by the clients as it is.
using schedule::ScheduleDiagnostic;
using schedule::ScheduleTextError;
using tir::LoweredFunc;
using tir::PassSnapshot;

struct KernelMeasurement {
  double median_ms = 0;
  double best_ms = 0;
  double gflops = 0;     // at the median
  double max_error = 0;  // normalized, against the reference executor
  int runs = 0;

  // Largest normalized error of an output that still matches the reference.
  static constexpr double kReferenceTolerance = 1e-4;
  bool matches_reference() const { return max_error <= kReferenceTolerance; }
};

class KernelWorkbench {
 public:
  // `graph` is the optimized graph the task's groups index into, laid out
  // for `vector_unit` (passes::OptimizedGraph::vector_unit).
  KernelWorkbench(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                  const KernelTask& task, const VectorUnit& vector_unit = {});

  const KernelTask& task() const { return task_; }
  const tune::GroupComputation& computation() const { return computation_; }
  std::string default_schedule_text() const;

  // Parses the text (the default schedule when empty) and lowers it; throws
  // ScheduleTextError (line:column) for a bad text.
  LoweredFunc lower(const std::string& schedule_text, bool record_ir = true) const;

  // Compiles the kernel and runs it `repeat` times in a measurement worker
  // process on the task's real parameters and random activations, and checks
  // its outputs against the reference kernels of the group's nodes. A kernel
  // lowered for a GPU target runs on GPU 0, timed by CUDA events. Throws
  // lathe::Error naming the failure when the kernel crashes, hangs (60 s) or
  // does not load. With `flush_cache`, every buffer but the activation leaves
  // the caches before each run, as when tuning.
  KernelMeasurement measure(const tir::PrimFunc& func, const Target& target, int repeat = 20,
                            bool flush_cache = false) const;

  // Runs a kernel lowered for a GPU target once on the GPU simulator
  // (codegen/gpu_simulator.h) in a measurement worker, on the data measure()
  // uses, and returns its largest normalized error against the reference
  // kernels: what a GPU schedule computes, checked without a GPU. Throws
  // lathe::Error for what the device refuses, and with the worker's message
  // for a kernel a GPU could not run (a barrier some threads skip ...) or
  // one that crashed the worker (tune::simulated_output_error).
  double simulate_on_gpu(const tir::PrimFunc& func, const Target& target) const;

 private:
  const Graph& graph_;
  const passes::FusedGroup& group_;
  KernelTask task_;
  tune::GroupComputation computation_;
};

}  // namespace lathe::driver
