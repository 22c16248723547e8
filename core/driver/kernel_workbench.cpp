#include "driver/kernel_workbench.h"

#include <algorithm>

#include "codegen/codegen.h"
#include "codegen/gpu_launch.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "tune/cuda_kernel_object.h"
#include "tune/gpu_task.h"
#include "tune/kernel_fixture.h"

namespace lathe::driver {

KernelWorkbench::KernelWorkbench(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                                 const KernelTask& task, const VectorUnit& vector_unit)
    : graph_(graph),
      group_(groups.at(static_cast<size_t>(task.groups.at(0)))),
      task_(task),
      computation_(tune::build_group_computation(graph, group_, vector_unit)) {}

std::string KernelWorkbench::default_schedule_text() const {
  return schedule::print_schedule(*tune::default_group_schedule(computation_));
}

tir::LoweredFunc KernelWorkbench::lower(const std::string& schedule_text, bool record_ir) const {
  std::unique_ptr<schedule::Schedule> sch =
      schedule_text.empty() ? tune::default_group_schedule(computation_)
                            : tune::parse_group_schedule(computation_, schedule_text);
  return tir::lower(*sch, computation_.args(), task_.func_name, {.record_ir = record_ir});
}

namespace {

// What the measurement worker runs: a CPU kernel's ELF object, or a GPU
// kernel's PTX and launch, which the worker runs on GPU 0 (as the tuner's
// GPU candidates, tune/cuda_kernel_object.h).
std::vector<char> kernel_object(const tir::PrimFunc& func, const codegen::Target& target) {
  if (!target.is_gpu()) return codegen::emit_object({func}, target);
  const codegen::GpuLaunch launch = codegen::verify_gpu_func(func, target);
  return tune::encode_cuda_kernel_object({func.name,
                                          {launch.grid, launch.block, launch.shared_bytes},
                                          codegen::emit_assembly({func}, target)});
}

}  // namespace

KernelMeasurement KernelWorkbench::measure(const tir::PrimFunc& func, const codegen::Target& target,
                                           int repeat, bool flush_cache) const {
  tune::KernelFixture data = tune::make_kernel_fixture(graph_, group_, computation_);
  // In a worker process, as the tuner measures: a schedule that crashes or
  // hangs is an error message here, not the end of the studio.
  tune::MeasureWorker worker;
  worker.set_buffers(tune::measure_buffers(data), static_cast<int>(data.num_inputs));
  tune::MeasureOptions options;
  options.repeat = std::max(1, repeat);
  options.timeout_s = 60;
  options.flush_cache = flush_cache;
  tune::MeasureResult r = worker.measure({kernel_object(func, target), func.name, true}, options);
  if (r.error != tune::ErrorKind::None)
    fail(str("measuring the kernel failed (", tune::to_string(r.error), "): ", r.message));

  std::vector<double> times = r.costs_ms;
  std::sort(times.begin(), times.end());
  KernelMeasurement m;
  m.runs = static_cast<int>(times.size());
  m.median_ms = times[times.size() / 2];
  m.best_ms = times.front();
  m.gflops = m.median_ms > 0 ? static_cast<double>(task_.flops) / (m.median_ms * 1e6) : 0;
  m.max_error = tune::output_error(data, r.outputs);
  return m;
}

double KernelWorkbench::simulate_on_gpu(const tir::PrimFunc& func,
                                        const codegen::Target& target) const {
  return tune::simulated_output_error(tune::make_kernel_fixture(graph_, group_, computation_), func,
                                      target);
}

}  // namespace lathe::driver
