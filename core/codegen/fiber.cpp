#include "codegen/fiber.h"

#include <cstdint>
#include <cstring>

#include "support/error.h"

#if defined(__x86_64__)

// lathe_fiber_switch(void** save, void* load): pushes the System V callee-
// saved registers and the x87 and SSE control words, saves the stack pointer
// in *save, loads `load` and pops the same from there. lathe_fiber_start is
// where a new fiber's first switch returns to: entry in r12, its argument in
// r13, the stack 16-byte aligned for the call.
asm(R"(
  .text
  .p2align 4
  .globl lathe_fiber_switch
  .hidden lathe_fiber_switch
  .type lathe_fiber_switch, @function
lathe_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $16, %rsp
  fnstcw (%rsp)
  stmxcsr 8(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  fldcw (%rsp)
  ldmxcsr 8(%rsp)
  addq $16, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size lathe_fiber_switch, .-lathe_fiber_switch

  .p2align 4
  .globl lathe_fiber_start
  .hidden lathe_fiber_start
  .type lathe_fiber_start, @function
lathe_fiber_start:
  movq %r13, %rdi
  callq *%r12
  ud2
  .size lathe_fiber_start, .-lathe_fiber_start
)");

extern "C" void lathe_fiber_switch(void** save, void* load);
extern "C" void lathe_fiber_start();

namespace lathe::codegen::detail {

void fiber_prepare(FiberContext& fiber, void* stack, size_t bytes, void (*entry)(void*),
                   void* arg) {
  // The frame lathe_fiber_switch pops, from the lowest address: the x87
  // control word and MXCSR (16 bytes), r15, r14, r13 (arg), r12 (entry),
  // rbx, rbp, and the return address. After its `ret` the stack pointer must
  // be 16-byte aligned, as before a call.
  auto top = (reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t(15);
  const uintptr_t after_return = top - 16;
  auto* frame = reinterpret_cast<uint64_t*>(after_return - 9 * sizeof(uint64_t));
  std::memset(frame, 0, 9 * sizeof(uint64_t));
  uint16_t x87 = 0;
  uint32_t mxcsr = 0;
  asm volatile("fnstcw %0" : "=m"(x87));
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  std::memcpy(&frame[0], &x87, sizeof x87);  // the running thread's, as a new thread's
  std::memcpy(&frame[1], &mxcsr, sizeof mxcsr);
  frame[4] = reinterpret_cast<uint64_t>(arg);    // r13
  frame[5] = reinterpret_cast<uint64_t>(entry);  // r12
  frame[8] = reinterpret_cast<uint64_t>(&lathe_fiber_start);
  fiber.stack_pointer = frame;
}

void fiber_switch(FiberContext& from, FiberContext& to) {
  lathe_fiber_switch(&from.stack_pointer, to.stack_pointer);
}

}  // namespace lathe::codegen::detail

#else

namespace lathe::codegen::detail {

namespace {

// makecontext passes int arguments only: the fiber's address as two halves.
void start_fiber(unsigned high, unsigned low) {
  auto* fiber = reinterpret_cast<FiberContext*>(uintptr_t(high) << 32 | uintptr_t(low));
  fiber->entry(fiber->arg);
}

}  // namespace

void fiber_prepare(FiberContext& fiber, void* stack, size_t bytes, void (*entry)(void*),
                   void* arg) {
  if (getcontext(&fiber.context) != 0) fail("fiber: getcontext failed");
  fiber.context.uc_stack.ss_sp = stack;
  fiber.context.uc_stack.ss_size = bytes;
  fiber.context.uc_link = nullptr;
  fiber.entry = entry;
  fiber.arg = arg;
  const auto address = reinterpret_cast<uintptr_t>(&fiber);
  makecontext(&fiber.context, reinterpret_cast<void (*)()>(&start_fiber), 2,
              unsigned(address >> 32), unsigned(address & 0xffffffffu));
}

void fiber_switch(FiberContext& from, FiberContext& to) {
  swapcontext(&from.context, &to.context);
}

}  // namespace lathe::codegen::detail

#endif
