// x86 default schedules of the fused groups that nn ops anchor, after TVM's
// x86 strategies (topi/x86/conv2d_avx_common.py, depthwise_conv2d.py,
// dense.py): register-blocked micro-kernels vectorized over the SIMD-width
// channel or column block, outer loops parallel, the elementwise epilogue
// inlined into the group's output stage, which computes the anchor tile by tile.
#pragma once

#include <vector>

#include "schedule/schedule.h"

namespace lathe::topi {

// Conv2dNCHWc and its depthwise form (stages tagged "conv2d_NCHWc" /
// "depthwise_conv2d_NCHWc"), as TVM's conv2d_NCHWc fallback: an output row
// split into blocks of reg_n pixels, each computed by a micro-kernel holding
// reg_n accumulator vectors of the output channel block.
void schedule_conv2d_nchwc_x86(schedule::Schedule& sch, const te::Tensor& anchor,
                               const std::vector<te::Tensor>& outputs);

// Conv on NCHW ("conv2d_nchw" / "depthwise_conv2d_nchw"): vectors along the
// output row, a block of filters per micro-kernel.
void schedule_conv2d_nchw_x86(schedule::Schedule& sch, const te::Tensor& anchor,
                              const std::vector<te::Tensor>& outputs);

// MatMul / Gemm ("matmul"), as TVM's dense_pack: mb x nb register tiles, the
// B panel of each column block packed contiguously once per block.
void schedule_matmul_x86(schedule::Schedule& sch, const te::Tensor& anchor,
                         const std::vector<te::Tensor>& outputs);

}  // namespace lathe::topi
