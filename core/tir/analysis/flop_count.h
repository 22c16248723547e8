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

// The int8 operations of a kernel's tensorized regions (te/tensor_intrinsic.h):
// each call's multiply-adds counting two, times the trip counts around it.
// What an int8 kernel's roofline counts against the machine's int8 peak.
double count_int8_ops(const PrimFunc& func);

// The instructions one execution of `s` issues for its work, roughly: each
// float operation, load, select and store, a vector one counting once, and
// each integer division or modulo as four (other index arithmetic left out),
// and each evaluated call (a tensor intrinsic's) with its loads.
// What a loop costs a core, where FLOPs would count a scalar gather's
// element as nothing and a vector's as sixteen.
double count_operations(const Stmt& s);

}  // namespace lathe::tir
