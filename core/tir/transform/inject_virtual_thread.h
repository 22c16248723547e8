// Virtual threads (TVM's InjectVirtualThread). A loop bound to "vthread" is
// not a hardware index: each physical thread runs all of its iterations, and
// the pass removes the loop by pushing it down to the smallest statements
// that depend on its variable, where the iterations are interleaved:
// unrolled (a copy per virtual thread) when the statement holds no loop and
// there are fewer than 16 virtual threads, else a serial loop `v.s` around
// that statement. Buffers allocated inside the loop whose contents depend on
// the virtual thread get a copy per virtual thread (the extent times the
// count, the index offset by v times the buffer's size), so the interleaved
// copies keep their own accumulators. Statements that do not depend on the
// virtual thread (a shared-memory fetch that all virtual threads share) run
// once; barriers (inject_storage_sync, which runs after) fall between the
// pushed-down loops, never inside one: a statement that must stay whole
// inside a virtual-thread loop and would need a barrier within (it writes and
// reads shared memory, or holds a barrier already) is refused, naming the
// loop.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

// Runs after storage_flatten (it rewrites Load/Store/Allocate); every loop
// bound to "vthread" must have a constant extent.
Stmt inject_virtual_thread(const Stmt& s);

}  // namespace lathe::tir
