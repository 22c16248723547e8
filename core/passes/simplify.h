// Algebraic simplification of an inference graph: Identity and inference
// Dropout go, BatchNormalization and constant scales/shifts fold into the
// preceding Conv or Gemm, and MatMul of a transposed matrix becomes Gemm.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph simplify(const Graph& graph);

}  // namespace lathe::passes
