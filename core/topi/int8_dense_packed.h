// MatMulIntegerPacked's compute (ir/ops/matmul_integer_packed.h): the dense
// int8 kernel of topi/int8.h on a B packed at compile time, so that the
// kernel only reads B and its column sums. Its stages are tagged as
// matmul_integer's are ("dense_int8" product, "matmul_integer" output), so
// the dense_int8 template schedules it.
#pragma once

#include <string>
#include <vector>

#include "topi/int8.h"

namespace lathe::topi {

// a uint8 [..., M, K] (K a multiple of 4), b int8 [N/16, K/4, 16, 4],
// b_sum int32 [N/16, 16] (may be undefined when a has no zero point); the
// result int32 [..., M, N]. The product reads a in place: no packing stage.
Int8Kernel matmul_integer_packed(const QuantOperand& a, const QuantOperand& b, const Tensor& b_sum,
                                 const std::string& name = "matmul_integer_packed");

// MatMulIntegerPacked(a, b, b_sum, a_zero_point, b_zero_point) in the graph compiler.
std::vector<te::Tensor> matmul_integer_packed_compute(const ComputeContext& ctx);

}  // namespace lathe::topi
