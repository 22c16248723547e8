// Barriers for shared memory (TVM's ThreadStorageSync): on a GPU, threads of
// a block that write a `shared` buffer and threads that then read it must
// meet at a barrier in between. The barrier is an AttrStmt with key
// kStorageSyncAttr around an empty body (TVM's tvm_storage_sync("shared")),
// which the NVPTX code generator emits as bar.sync 0.
#pragma once

#include "tir/stmt.h"

namespace lathe::tir {

inline constexpr const char* kStorageSyncAttr = "storage_sync";

// A barrier statement, as the pass inserts it.
Stmt make_storage_sync();

// Inserts a barrier before each statement of a sequence that reads a shared
// buffer written by an earlier statement of that sequence since the last
// barrier, and at the end of a serial loop's body that writes and reads one
// (the next iteration's writes wait for this iteration's reads). Every
// thread of a block must reach a barrier: sequences inside a threadIdx loop
// shorter than the launch's extent for its tag (a guard keeps threads away)
// and inside a condition within threadIdx loops are left alone.
Stmt inject_storage_sync(const Stmt& s);

}  // namespace lathe::tir
