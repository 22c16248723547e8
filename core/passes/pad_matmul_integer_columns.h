// A MatMulInteger whose constant int8 B has a column count N that is not a
// multiple of 16 (a classifier's 1000 classes) reads B padded with zero
// columns up to one, and a Slice keeps the first N columns of the product:
// pack_matmul_integer, which runs next, then packs it for the vpdpbusd
// kernel (16 columns a vector) instead of leaving it to the generic
// compute. The padded columns' products are computed and dropped; the kept
// ones are the same sums, exactly.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph pad_matmul_integer_columns(const Graph& graph);

}  // namespace lathe::passes
