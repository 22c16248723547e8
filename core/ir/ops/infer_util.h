// Helpers shared by the inference functions of every op family.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/op_registry.h"
#include "ir/ops/layout.h"
#include "support/error.h"

namespace lathe {

// NumPy broadcasting of two shapes; throws naming both when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// An axis in [-rank, rank) made non-negative; throws when out of range. Ops whose
// axis may equal the rank (Unsqueeze, Flatten) pass rank + 1.
int normalize_axis(int64_t axis, int rank);
// The inferred output is input i's type unchanged (unary ops).
void infer_same_as_input(InferContext& ctx);
// All present inputs broadcast together, dtype of input 0 (all must agree).
TensorType broadcast_inputs(const InferContext& ctx);
// Checks that every present input has the same dtype as input 0.
void check_same_dtype(const InferContext& ctx);

// Attribute `name` of `n` integers, or n copies of `fallback` where it is
// absent; throws naming `op` when it has another number of values.
std::vector<int64_t> ints_or(const Attributes& attrs, const char* op, const char* name, size_t n,
                             int64_t fallback);

// The pools' optional `layout` attribute, which the layout pass sets (ONNX
// has none): "NCHW", or "NCHW{b}c" for blocked data [N, C/b, H, W, b] whose
// logical NCHW shape is what the window rules apply to.
TensorLayout pool_layout(const InferContext& ctx);

}  // namespace lathe
