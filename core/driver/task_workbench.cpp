#include "driver/task_workbench.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "ir/op_registry.h"
#include "reference/executor.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "support/timer.h"

namespace lathe::driver {
namespace {

Tensor random_tensor(const TensorType& type, std::mt19937& rng) {
  Tensor t(type);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = dist(rng);
    switch (type.dtype) {
      case DType::Float32:
        t.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::Float64:
        t.data<double>()[i] = v;
        break;
      case DType::Bool:
        t.data<bool>()[i] = v > 0;
        break;
      default:
        // Integer activations (indices, masks): small non-negative values keep
        // gathers in range.
        std::memset(t.raw(), 0, t.nbytes());
        return t;
    }
  }
  return t;
}

double normalized_error(const Tensor& got, const Tensor& want) {
  LATHE_CHECK(got.shape() == want.shape() && got.dtype() == want.dtype(), "kernel output ",
              got.type().to_string(), " does not match the reference ", want.type().to_string());
  auto at = [](const Tensor& t, int64_t i) -> double {
    switch (t.dtype()) {
      case DType::Float32:
        return t.data<float>()[i];
      case DType::Float64:
        return t.data<double>()[i];
      case DType::Int64:
        return static_cast<double>(t.data<int64_t>()[i]);
      case DType::Int32:
        return t.data<int32_t>()[i];
      case DType::Bool:
        return t.data<bool>()[i];
      default:
        return static_cast<const unsigned char*>(
            t.raw())[i * static_cast<int64_t>(dtype_size(t.dtype()))];
    }
  };
  double diff = 0, ref = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double g = at(got, i), w = at(want, i);
    diff = std::max(diff, std::isnan(g) != std::isnan(w) ? INFINITY
                          : std::isnan(w)                ? 0.0
                                                         : std::abs(g - w));
    ref = std::max(ref, std::abs(w));
  }
  return ref == 0 ? diff : diff / ref;
}

}  // namespace

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
  // Values of everything the group reads: real parameters, random activations.
  std::mt19937 rng(7);
  std::map<ValueId, Tensor> values;
  for (ValueId v : group_.inputs) {
    const Value& value = graph_.value(v);
    values[v] = value.is_constant() ? value.constant : random_tensor(value.type, rng);
  }
  std::vector<Tensor> buffers;
  for (ValueId v : computation_.input_values) buffers.push_back(values.at(v).clone());
  for (ValueId v : computation_.output_values) buffers.emplace_back(graph_.type(v));
  std::vector<void*> pointers;
  for (Tensor& b : buffers) pointers.push_back(b.raw());

  codegen::CompiledKernel kernel = codegen::jit_compile(func, target);
  kernel.run(pointers);  // warm-up, and the run that is checked
  std::vector<double> times;
  for (int r = 0; r < std::max(1, repeat); ++r) {
    Timer timer;
    kernel.run(pointers);
    times.push_back(timer.milliseconds());
  }
  std::sort(times.begin(), times.end());

  // The reference: the group's nodes one by one.
  const OpRegistry& registry = reference::kernel_registry();
  for (int n : group_.nodes) {
    const Node& node = graph_.nodes[static_cast<size_t>(n)];
    std::vector<const Tensor*> inputs;
    for (ValueId v : node.inputs) inputs.push_back(v == kNoValue ? nullptr : &values.at(v));
    std::vector<TensorType> types;
    for (ValueId v : node.outputs) types.push_back(v == kNoValue ? TensorType{} : graph_.type(v));
    std::vector<Tensor> outs = reference::run_node(*registry.find(node.op), node, inputs, types);
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] != kNoValue) values[node.outputs[i]] = outs[i];
  }
  KernelMeasurement m;
  m.runs = static_cast<int>(times.size());
  m.median_ms = times[times.size() / 2];
  m.best_ms = times.front();
  m.gflops = m.median_ms > 0 ? static_cast<double>(task_.flops) / (m.median_ms * 1e6) : 0;
  size_t first_output = computation_.input_values.size();
  for (size_t i = 0; i < computation_.output_values.size(); ++i)
    m.max_error = std::max(m.max_error, normalized_error(buffers[first_output + i],
                                                         values.at(computation_.output_values[i])));
  return m;
}

}  // namespace lathe::driver
