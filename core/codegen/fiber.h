// Private to core/codegen: the fibers the GPU simulator runs a block's
// threads on (gpu_simulator.cpp). A switch keeps only what a called function
// must keep under the platform's ABI; glibc's swapcontext also saves and
// restores the signal mask, a system call on every switch, which was most of
// a simulated model's time. On x86-64 the switch is a few instructions of its
// own; elsewhere it is ucontext's.
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace lathe::codegen::detail {

struct FiberContext {
#if defined(__x86_64__)
  void* stack_pointer = nullptr;  // the saved registers are on the fiber's stack
#else
  ucontext_t context{};
  void (*entry)(void*) = nullptr;
  void* arg = nullptr;
#endif
};

// Makes `fiber` start `entry(arg)` on the stack [stack, stack + bytes) at the
// first switch to it. `entry` must never return: a fiber that is done
// switches away for the last time.
void fiber_prepare(FiberContext& fiber, void* stack, size_t bytes, void (*entry)(void*), void* arg);

// Saves the running code's context in `from` and resumes `to`.
void fiber_switch(FiberContext& from, FiberContext& to);

}  // namespace lathe::codegen::detail
