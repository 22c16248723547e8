// What the GPU simulator's kernels (cuda TIR compiled for the host,
// codegen_gpu_simulation.h) call: the C entry points through which a thread
// reaches its block's barrier and its warp's shuffles. The JIT resolves them
// to this process (jit.cpp).
#pragma once

#include <cstdint>

extern "C" {

// One simulated GPU thread as its kernel's code sees it: a kernel is
// `void f(void** buffers, LatheGpuThread* thread)` and reads its indices here.
struct LatheGpuThread {
  int32_t index[6];  // threadIdx.x, .y, .z, blockIdx.x, .y, .z
  void* shared;      // the block's shared memory (the kernel's arrays at fixed offsets)
};

// bar.sync 0: waits until every thread of the block has arrived.
void lathe_gpusim_barrier(LatheGpuThread* thread);
// shfl.sync.bfly.b32: `value` of the lane `offset` away (lane ^ offset),
// once every lane of `lane_mask` in the warp has arrived with the same mask
// and offset.
int32_t lathe_gpusim_shuffle_xor(LatheGpuThread* thread, int32_t value, uint32_t lane_mask,
                                 uint32_t offset);
}

namespace lathe::codegen {
inline constexpr const char* kGpuSimBarrierSymbol = "lathe_gpusim_barrier";
inline constexpr const char* kGpuSimShuffleXorSymbol = "lathe_gpusim_shuffle_xor";
}  // namespace lathe::codegen
