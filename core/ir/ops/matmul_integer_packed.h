// MatMulIntegerPacked: MatMulInteger with its B packed for the int8 dot
// product, the form the pass passes/pack_matmul_integer.h gives a
// MatMulInteger whose B is a constant (a transformer's weights), so that B
// is packed once at compile time and its sums per column are constants too,
// instead of both being recomputed by the kernel on every call.
//
//   MatMulIntegerPacked(a, b, b_sum?, a_zero_point?, b_zero_point?) -> y
//     a             uint8 [..., M, K]                   (K a multiple of 4)
//     b             int8  [N/16, K/4, 16, 4]
//                   b[n / 16, k / 4, n % 16, k % 4] = B[k, n]
//     b_sum         int32 [N/16, 16]: sum of B[k, n] over k
//     a_zero_point  uint8 scalar
//     b_zero_point  int8 scalar or [N]
//     y             int32 [..., M, N]
//   y[..., m, n] = sum over k of (a[..., m, k] − az)(B[k, n] − bz[n]).
// The compiled kernel expands the sum as Σab − bz·Σa − az·b_sum + K·az·bz
// (topi/int8.h), which is why b_sum is an input: a constant, folded once.
#pragma once

#include "ir/op_registry.h"

namespace lathe {

inline constexpr int64_t kMatMulIntegerLanes = 16;  // columns of B per block
inline constexpr int64_t kMatMulIntegerGroup = 4;   // rows of B (K) per 32-bit lane

void register_matmul_integer_packed_op(OpRegistry& registry);

}  // namespace lathe
