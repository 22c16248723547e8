// Features of a lowered kernel for the tuner's cost model, after Ansor's
// per-store features: one walk of the loop IR describes each group of stores
// (the stores to one buffer under one loop nest, so the copies an unrolled
// loop leaves count as one group) by its loop nest, vector width,
// parallelism, unrolling, arithmetic, bytes touched and reuse. The vector
// holds the three most expensive groups, zero-padded, then whole-kernel
// totals. Large counts are log2(1 + x), so that a tree's split points carry
// over between tasks of different sizes.
#pragma once

#include <string>
#include <vector>

#include "tir/stmt.h"

namespace lathe::tune {

// Length of the vector extract_features returns.
int num_features();
// num_features() names ("store0.vector_lanes", "kernel.flops" ...), for
// debugging and tests.
std::vector<std::string> feature_names();
// A fixed-length description of a lowered kernel (what tir::lower returns in
// LoweredFunc::func). Every value is finite.
std::vector<float> extract_features(const tir::PrimFunc& func);

}  // namespace lathe::tune
