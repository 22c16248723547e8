// Ansor's sketch rules for GPUs as schedule primitives (TVM auto_scheduler's
// sketch_policy_rules for cuda, and the thread binding of its
// InitThreadBind): multi-level tiling "SSSRRSRS" with the outer spatial levels
// bound to blockIdx, vthread and threadIdx, the accumulators in registers (a
// local cache_write), the operands of each step of the outer reduce level
// fetched into shared memory by all the block's threads (cooperative
// fetching); a cross-thread reduction for a reduction with little spatial
// parallelism; and a group without reduction fused and spread over blocks of
// threads. The vthread level (tir/transform/inject_virtual_thread.h) gives
// each thread several register tiles a stride apart, interleaved in its
// code: the threads of a warp read neighbouring shared-memory words for each
// tile instead of words a whole tile apart (fewer bank conflicts).
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "te/tensor.h"

namespace lathe::tune::sketch {

// One stage's tile sizes, per axis outermost first: S0 S1 S2 S3 S4 for a
// spatial axis, R0 R1 R2 for a reduce axis.
using GpuTiles = std::vector<std::vector<int64_t>>;

// Every compute stage that is neither an output nor `keep` inlined.
void inline_all_but(schedule::Schedule& sch, const te::Operation& keep);

// Multi-level tiling of `reduction` (after inline_all_but), whose values the
// group's one output reads at its own point (or which is that output):
//   output:  S0 (fused: blockIdx.x)  S1 (fused: vthread)  S2 (fused:
//            threadIdx.x)  S3  S4
//   local accumulators at the thread: R0  R1  S3  R2  S4 (one set per
//   virtual thread)
//   the reduction's operands fetched into "shared" at the innermost R0 loop by
//   every thread of the block (fused, split by the block's threads).
// `unroll` unrolls the S4 and R2 loops of the accumulation.
void tile_reduction_gpu(schedule::Schedule& sch, const te::Operation& reduction,
                        const GpuTiles& spatial, const GpuTiles& reduce, bool unroll);

// Ansor's RuleCrossThreadReduction: the output's elements, `per_block` to a
// block on threadIdx.y; each element's reduce axes fused, split by
// `threads_k` (a power of two) and bound to threadIdx.x, the partial sums
// combined across the threads (warp shuffles, shared memory).
void cross_thread_reduction(schedule::Schedule& sch, const te::Operation& reduction,
                            int64_t threads_k, int64_t per_block);

// A group without reduction: the output's axes fused, `threads` a block on
// threadIdx.x, each thread `per_thread` elements `threads` apart (so a warp
// reads consecutive ones each step).
void spread_elementwise(schedule::Schedule& sch, int64_t threads, int64_t per_thread);

}  // namespace lathe::tune::sketch
