#include "driver/task_workbench.h"

#include <algorithm>

#include "schedule/schedule_text.h"
#include "support/timer.h"
#include "tune/task_data.h"

namespace lathe::driver {

TaskWorkbench::TaskWorkbench(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                             const KernelTask& task)
    : graph_(graph),
      group_(groups.at(static_cast<size_t>(task.groups.at(0)))),
      task_(task),
      computation_(tune::build_group_computation(graph, group_)) {}

std::string TaskWorkbench::default_schedule_text() const {
  return schedule::print_schedule(*tune::default_group_schedule(computation_));
}

tir::LoweredFunc TaskWorkbench::lower(const std::string& schedule_text, bool record_ir) const {
  std::unique_ptr<schedule::Schedule> sch =
      schedule_text.empty() ? tune::default_group_schedule(computation_)
                            : tune::parse_group_schedule(computation_, schedule_text);
  return tir::lower(*sch, computation_.args(), task_.func_name, {.record_ir = record_ir});
}

KernelMeasurement TaskWorkbench::measure(const tir::PrimFunc& func, const codegen::Target& target,
                                         int repeat) const {
  tune::TaskData data = tune::make_task_data(graph_, group_, computation_);
  std::vector<void*> pointers;
  for (Tensor& b : data.buffers) pointers.push_back(b.raw());

  codegen::CompiledKernel kernel = codegen::jit_compile(func, target);
  kernel.run(pointers);  // warm-up, and the run that is checked
  std::vector<double> times;
  for (int r = 0; r < std::max(1, repeat); ++r) {
    Timer timer;
    kernel.run(pointers);
    times.push_back(timer.milliseconds());
  }
  std::sort(times.begin(), times.end());

  KernelMeasurement m;
  m.runs = static_cast<int>(times.size());
  m.median_ms = times[times.size() / 2];
  m.best_ms = times.front();
  m.gflops = m.median_ms > 0 ? static_cast<double>(task_.flops) / (m.median_ms * 1e6) : 0;
  for (size_t i = 0; i < data.expected.size(); ++i)
    m.max_error = std::max(
        m.max_error, tune::normalized_error(data.buffers[data.num_inputs + i], data.expected[i]));
  return m;
}

}  // namespace lathe::driver
