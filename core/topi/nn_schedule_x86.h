// x86 tuning templates of the fused groups that nn ops anchor, after TVM's
// x86 strategies (topi/x86/conv2d_avx_common.py, conv2d_avx_1x1.py,
// depthwise_conv2d.py, dense.py, batch_matmul.py): register-blocked
// micro-kernels vectorized over the SIMD-width channel or column block, outer
// loops parallel, the elementwise epilogue inlined into the group's output
// stage, which computes the anchor tile by tile. Each template's knobs are
// made from the computation's shapes; its default config is the schedule the
// compiler uses untuned. A group whose anchor lacks the expected reduction
// gets the generic template (topi/generic_template.h).
#pragma once

#include <vector>

#include "topi/config_space.h"

namespace lathe::topi {

// Conv2dNCHWc ("conv2d_NCHWc"), as TVM's conv2d_NCHWc: an output row split
// into blocks of reg_n pixels, each computed by a micro-kernel holding
// reg_n x tile_oc x tile_oh accumulator vectors of the output channel block.
//   tile_ow    [parallel part, chunks, reg_n] of the output row: the outer
//              part joins the parallel loop, reg_n pixels per micro-kernel
//   tile_oc    output channel blocks per micro-kernel: each broadcast input
//              value meets that many kernel vectors
//   tile_oh    output rows per micro-kernel (each kernel vector reused)
//   tile_ic    [outer, inner] of the input channel chunks: the reduction runs
//              ic_outer, kh, kw, ic_inner, ic_block ([C, 1] is ic, kh, kw;
//              [1, C] is kh, kw, ic)
//   unroll_kw  unroll the kernel-width loop
// Its depthwise form ("depthwise_conv2d_NCHWc"), "depthwise_conv2d_NCHWc.x86":
//   tile_ow    as above
//   unroll_kernel  0: none, 1: the kernel-width loop, 2: both kernel loops
//   pad_root   compute the padded input once at the root instead of inlining
//              it (a branch per tap)
SearchSpace conv2d_nchwc_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                  const VectorUnit& vector_unit);

// Conv on NCHW ("conv2d_nchw" / "depthwise_conv2d_nchw"): vectors along the
// output row, a block of filters per micro-kernel.
//   tile_f  filters per micro-kernel (each input vector used by all of them)
//   tile_x  output pixels per vector
SearchSpace conv2d_nchw_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                 const VectorUnit& vector_unit);

// MatMul / Gemm / batched MatMul ("matmul"), as TVM's dense_pack: tile_y x
// tile_x register tiles. A batch of few-row products against one shared B
// folds the batch axes into the rows.
//   tile_y         rows per register tile (whole batches when folded)
//   tile_x         columns per panel: one or several vectors
//   tile_k         the reduction split by this, the inner part unrolled
//   pack_b         B copied into a contiguous panel per column panel (a
//                  transposed B: read through its stage rather than inline)
//   parallel_rows  the row tiles run in parallel too, not only the panels
SearchSpace matmul_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                            const VectorUnit& vector_unit);

}  // namespace lathe::topi
