// Tail-loop partition: a loop whose body holds a split guard that is true on
// every iteration but the last is cut into a main loop without the guard and a
// one-iteration tail with it, so the main loop has no branch to vectorize around.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

Stmt loop_partition(const Stmt& s);

}  // namespace lathe::tir
