#include "driver/schedule_names.h"

#include "schedule/primitives.h"
#include "te/tensor_intrinsic.h"

namespace lathe::driver {

std::vector<ScheduleMethod> schedule_methods() {
  std::vector<ScheduleMethod> methods;
  for (const schedule::MethodSignature& m : schedule::method_signatures())
    methods.push_back({m.method, m.signature, m.receiver == schedule::Receiver::Schedule});
  return methods;
}

std::vector<TensorIntrinsicName> tensor_intrinsic_names() {
  std::vector<TensorIntrinsicName> names;
  for (const te::TensorIntrinsic& t : te::tensor_intrinsics()) names.push_back({t.name, t.summary});
  return names;
}

ScheduleNames schedule_names(const tune::GroupComputation& computation) {
  ScheduleNames names;
  for (const auto& [name, tensor] : computation.tensors) {
    names.tensors.push_back(name);
    const te::ComputeOpNode* compute = tensor.op().as_compute();
    if (!compute) continue;
    names.stages.push_back(name);
    auto add_axes = [&](const std::vector<te::IterVar>& axes, bool reduce) {
      const char* field = reduce ? "reduce_axis" : "axis";
      for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t* extent =
            axes[i]->dom.extent.defined() ? te::as_const_int(axes[i]->dom.extent) : nullptr;
        names.axes.push_back({name + ".op." + field + "[" + std::to_string(i) + "]", axes[i].name(),
                              extent ? *extent : 0, reduce});
      }
    };
    add_axes(compute->axis, false);
    add_axes(compute->reduce_axis, true);
  }
  return names;
}

}  // namespace lathe::driver
