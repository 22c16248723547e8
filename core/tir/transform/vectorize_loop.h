// Vectorization into explicit vector IR: a loop marked vectorized with a
// constant extent becomes one iteration whose loop variable is a Ramp, so
// loads, stores and arithmetic widen to vectors. A body that cannot be
// widened (inner loops, allocations, branches on the loop variable) stays a
// serial loop, as TVM's VectorizeLoop falls back.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

Stmt vectorize_loop(const Stmt& s);

}  // namespace lathe::tir
