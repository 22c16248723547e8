// The floating-point operations a lowered kernel performs, counted from the
// loop IR: each float add, subtract, multiply, divide, min and max (a fused
// multiply-add counts two, a transcendental one) times its vector lanes and
// the trip counts of the loops around it. Selects (padding's blends) and
// index arithmetic are not FLOPs.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

double count_flops(const PrimFunc& func);
// One execution of `s` (a loop counts its own trips, not its enclosing loops').
double count_flops(const Stmt& s);

}  // namespace lathe::tir
