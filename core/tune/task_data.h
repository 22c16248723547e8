// What a task's kernel is measured on and checked against: its real
// parameters and seeded random activations, and the reference executor's
// outputs for them (the group's nodes run one by one).
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/fuse_ops.h"
#include "tune/group_computation.h"

namespace lathe::tune {

struct TaskData {
  std::vector<Tensor> buffers;   // kernel parameters: inputs (filled), then outputs (zeroed)
  std::vector<Tensor> expected;  // the reference's value of each kernel output
  size_t num_inputs = 0;
};

TaskData make_task_data(const Graph& graph, const passes::FusedGroup& group,
                        const GroupComputation& computation, unsigned seed = 7);

// Largest absolute difference over the largest reference magnitude (the
// absolute difference when the reference is all zero); infinity where one is
// NaN and the other is not. Throws when the shapes or types differ.
double normalized_error(const Tensor& got, const Tensor& want);

}  // namespace lathe::tune
