// Unrolling: loops marked unroll with a constant extent become one copy of the
// body per iteration; under a pragma auto_unroll_max_step, serial loops whose
// unrolled size stays within the step count are unrolled too.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

Stmt unroll_loop(const Stmt& s);

}  // namespace lathe::tir
