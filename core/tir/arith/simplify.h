// The loop IR's simplifier: constant folding, canonical linear forms,
// div/mod/min/max/comparisons decided by variable bounds, vector folding, and
// removal of branches and loops that bounds make trivial.
#pragma once

#include "tir/arith/interval.h"
#include "tir/stmt.h"

namespace lathe::arith {

// Simplifies e, where each variable in `bounds` lies within its bounds.
// Integer Div/Mod are floor division/modulo; signed index arithmetic is
// assumed not to overflow (as in TVM and Halide). Idempotent.
Expr simplify(const Expr& e, const BoundMap& bounds = {});

// Simplifies every expression of s, knowing each loop variable ranges over
// [min, min + extent) and each LetStmt variable over its value's bounds. It
// removes IfThenElse branches and Select arms whose condition is provably
// true or false, for loops of extent 0, and replaces a loop of extent 1 by its
// body with the loop variable set to min (thread-bound loops are kept, since
// they define the launch). Unchanged subtrees are returned as is.
tir::Stmt simplify(const tir::Stmt& s, const BoundMap& bounds = {});

}  // namespace lathe::arith
