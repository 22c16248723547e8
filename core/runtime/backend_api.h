// The C functions that kernels compiled by core/codegen call at run time: the
// parallel launch and the aligned scratch allocation. Their names and
// signatures are an ABI shared with the code generator, so they stay C.
#pragma once

#include <cstdint>

extern "C" {

// One chunk of a parallel loop: runs iterations [task_begin, task_end) with
// the loop's captured values in `closure`.
typedef void (*LatheParallelBody)(int64_t task_begin, int64_t task_end, void* closure);

// Runs body over [0, n) split into contiguous chunks across the global thread
// pool (LATHE_NUM_THREADS threads, default all cores) and returns when every
// chunk is done. Called from inside a chunk it runs the whole range serially.
void lathe_parallel_for(LatheParallelBody body, void* closure, int64_t n);

// Scratch memory aligned to 64 bytes, as every Lathe tensor. Never returns
// null: a kernel cannot report errors, so running out of memory aborts.
void* lathe_alloc(int64_t nbytes);
void lathe_free(void* ptr);

}  // extern "C"
