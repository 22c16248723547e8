// A kernel's fixture: what a task's kernel is measured on and checked against: its real
// parameters and seeded random activations, and the reference executor's
// outputs for them (the group's nodes run one by one).
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/fuse_ops.h"
#include "tune/group_computation.h"
#include "tune/measure.h"

namespace lathe::tune {

struct KernelFixture {
  std::vector<Tensor> buffers;   // kernel parameters: inputs (filled), then outputs (by shape)
  std::vector<Tensor> expected;  // the reference's value of each kernel output
  size_t num_inputs = 0;
};

KernelFixture make_kernel_fixture(const Graph& graph, const passes::FusedGroup& group,
                                  const GroupComputation& computation, unsigned seed = 7);

// The buffers as the measurement worker takes them: inputs with their bytes,
// outputs by shape only.
std::vector<BufferData> measure_buffers(const KernelFixture& data);

// The largest normalized_error of output bytes a measurement sent back against
// the reference outputs; throws when their number or sizes are wrong.
double output_error(const KernelFixture& data, const std::vector<std::vector<char>>& outputs);

}  // namespace lathe::tune
