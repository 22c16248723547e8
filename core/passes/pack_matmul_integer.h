// The int8 dense packing pass (beside the int8 conv layout pass): a
// MatMulInteger whose B is a constant — a dynamically quantized
// transformer's weights — becomes MatMulIntegerPacked, B packed once, here,
// for the int8 dot product, with its column sums, so that the kernel reads
// both instead of recomputing them on every call.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// Every MatMulInteger with uint8 A [..., M, K] (K a multiple of 4) and a
// per-tensor a_zero_point, a constant int8 B [K, N] (N a multiple of 16)
// and no b_zero_point or a constant one (scalar or per column) becomes
//   MatMulIntegerPacked(A, B packed [N/16, K/4, 16, 4], ΣB [N/16, 16],
//                       a_zero_point, b_zero_point)
// keeping the node's name and output value. ΣB is there only with an
// a_zero_point; a b_zero_point of zeros is dropped (the kernel then skips
// ΣA). Other MatMulIntegers stay as they are (the generic compute).
Graph pack_matmul_integer(const Graph& graph);

}  // namespace lathe::passes
