// Parallel loops for the CPU: the outermost parallel loop of a nest is the one
// the code generator outlines into a task for the runtime's thread pool; any
// parallel loop nested in it runs serially inside its task.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

Stmt lower_parallel(const Stmt& s);

}  // namespace lathe::tir
