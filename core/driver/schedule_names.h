// The names a schedule text may use over one task's computation: the
// primitives' methods, its tensors,
// the computed ones among them (stages), and each stage's root axes spelled as
// the text must write them (relu.op.axis[3]). The schedule editor colours and
// completes these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tune/group_computation.h"

namespace lathe::driver {

struct StageAxis {
  std::string expression;  // "relu.op.axis[3]", "conv.op.reduce_axis[0]"
  std::string name;        // the loop variable it makes: "i3", "rc"
  int64_t extent = 0;      // 0 when not a constant
  bool reduce = false;
};

struct ScheduleNames {
  std::vector<std::string> tensors;  // placeholders and stages, by name
  std::vector<std::string> stages;   // the computed tensors among them
  std::vector<StageAxis> axes;       // every stage's axes, then its reduce axes
};

// A method the schedule text accepts, from core's primitive table.
struct ScheduleMethod {
  std::string method;        // "split"
  std::string signature;     // "split(parent, factor=None, nparts=None) -> outer, inner"
  bool on_schedule = false;  // a method of the schedule (s.), else of a stage (s[C].)
};
std::vector<ScheduleMethod> schedule_methods();

// A tensor intrinsic tensorize may name (te/tensor_intrinsic.h).
struct TensorIntrinsicName {
  std::string name;     // "dot_16x4_u8s8"
  std::string summary;  // what it computes
};
std::vector<TensorIntrinsicName> tensor_intrinsic_names();

// Touches only the computation's immutable tensors, so it may run beside a
// lowering of the same computation.
ScheduleNames schedule_names(const tune::GroupComputation& computation);

}  // namespace lathe::driver
