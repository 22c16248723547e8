// Proving facts about index expressions, as TVM's Analyzer::CanProve: what
// bound checks, loop partitioning and vectorization ask before removing a guard.
#pragma once

#include "tir/arith/interval.h"

namespace lathe::arith {

// True when cond (a bool expression) holds for every value of the variables
// within `bounds`; false when it may not, or when the simplifier cannot tell.
// A vector condition must hold in every lane.
bool can_prove(const Expr& cond, const BoundMap& bounds = {});

}  // namespace lathe::arith
