// Cross-thread reductions (TVM's tvm_thread_allreduce and its
// lower_thread_allreduce): a reduction whose reduce loop k_thread is bound to
// threadIdx.x or threadIdx.y is lowered by schedule_ops to, inside that bound
// loop,
//
//   partial[0] = identity
//   for <the serial reduce loops>: partial[0] = combine(partial[0], source)
//   attr thread_allreduce_<sum|max|min|prod> = k_thread { red[0] = partial[0] }
//   if (<data guards> && k_thread == 0) out[index] = red[0]   // output or shared
//
// where the attribute's store means: store the combination of its value over
// the threads of the block that differ only in k_thread's index — every one
// of them gets it. Code generation for a GPU implements it, over threadIdx.x,
// with warp shuffles (butterfly, so all lanes end with the result) and, for
// more than a warp, the warps' partials through shared memory between two
// barriers; over threadIdx.y, or an x extent that is not a power of two,
// every thread's value through shared memory between two barriers. Every thread of the block must
// reach it: the bound loop's extent is the block's extent for that tag. A stage that is neither an
// output nor shared keeps the result in every thread's own (local) copy, so that its readers in
// other thread loops of the same block find it without a barrier.
#pragma once

#include <string>

namespace lathe::tir {

// The attribute's key is this prefix and the reducer's name (te::reducer_name).
inline constexpr const char* kThreadAllReduceAttr = "thread_allreduce_";

inline bool is_thread_allreduce(const std::string& key) {
  return key.rfind(kThreadAllReduceAttr, 0) == 0;
}

}  // namespace lathe::tir
