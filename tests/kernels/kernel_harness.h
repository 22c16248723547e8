// Test support for compiled kernels: run a scheduled TE computation through
// lowering and the LLVM JIT on random inputs, run the same operator through
// the reference executor, and compare.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/normalized_error.h"
#include "schedule/schedule.h"
#include "te/tensor.h"

namespace lathe::testing {

// Random float32 values in [-1, 1] for every input tensor.
std::vector<Tensor> random_inputs(const std::vector<te::Tensor>& inputs, std::mt19937& rng);

// Random values of any dtype: floats uniform in [lo, hi], integers uniform
// in [ceil(lo), floor(hi)] clamped to the type's range, bools true or false.
Tensor random_tensor(DType dtype, const Shape& shape, std::mt19937& rng, double lo = -1.0,
                     double hi = 1.0);

// Lowers `sch` for `args` (inputs then outputs), JIT-compiles it for the host
// and runs it; returns the outputs (args after the first `inputs.size()`).
std::vector<Tensor> run_compiled(schedule::Schedule& sch, const std::vector<te::Tensor>& args,
                                 const std::vector<Tensor>& inputs);

// Runs one ONNX op on the reference executor.
Tensor run_reference(const std::string& op, const Attributes& attrs,
                     const std::vector<Tensor>& inputs, const TensorType& output);

// Applies a random but legal sequence of primitives to `stage` (splits, fuses,
// reorders, then maybe parallel outermost data axis, vectorize innermost data
// axis, unroll, auto-unroll pragma). Returns the schedule text it applied, for
// failure messages.
std::string random_loop_schedule(schedule::Stage stage, std::mt19937& rng);

}  // namespace lathe::testing
