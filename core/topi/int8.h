// Integer convolution and matrix multiplication (ONNX's ConvInteger and
// MatMulInteger: uint8 or int8 operands with optional zero points, int32
// results, exact), computed with the int8 dot product of x86 — vpdpbusd
// (te/tensor_intrinsic.h) — as TVM's conv2d_NCHWc_int8 and dense_vnni and
// oneDNN do:
//   - activations in uint8: an int8 one is shifted by +128 (its zero point
//     too), so that the dot product's unsigned operand holds it;
//   - weights in int8: a uint8 one is shifted by -128 (its zero point too);
//   - the input channels (the reduction) packed four to a 32-bit lane, the
//     weights as [OC/16, C/ib, KH, KW, ib/4, 16, 4] (dense: [N/16, K/4, 16, 4]);
//   - the zero points applied after the int8 products, from sums:
//       sum (x - xz)(w - wz) = sum x w - wz sum x - xz sum w + K xz wz
//     with sum w per output channel and sum x per output pixel (only where
//     the weights' zero point is not zero). The spatial padding holds the
//     activation's zero point, so that a padded tap adds zero, as ONNX
//     Runtime pads; the padding of the channels to a whole block holds zero
//     in both operands.
#pragma once

#include <string>
#include <vector>

#include "topi/nn.h"
#include "topi/op_compute.h"

namespace lathe::topi {

// The dot product the packed kernels tensorize on (dot_16x4_u8s8): 16
// int32 lanes, each the sum of 4 products of 8-bit pairs.
inline constexpr int64_t kInt8Lanes = 16;
inline constexpr int64_t kInt8Group = 4;

// ConvInteger and MatMulInteger for any shape (quantize_compute.cpp): the
// operands shifted into int32 by their zero points, then Conv's and MatMul's
// computes. What the graph compiler uses where the packed kernels below do
// not apply (grouped convolutions that are not depthwise, a batched B).
std::vector<te::Tensor> generic_conv_integer(const ComputeContext& ctx);
std::vector<te::Tensor> generic_matmul_integer(const ComputeContext& ctx);

// An operand and its zero point: undefined for none, else a tensor of one
// element ([] or [1]) or, for weights, one per output channel.
struct QuantOperand {
  Tensor value;
  Tensor zero_point;
};

// The stages of one integer kernel, for schedules and tests.
struct Int8Kernel {
  Tensor output;       // int32, the op's layout ([N, OC, OH, OW]; [..., M, N])
  Tensor data;         // the activations packed to uint8 (padded, blocked)
  Tensor weights;      // the weights packed to int8 for vpdpbusd
  Tensor product;      // the int32 sums of products: the tensorized stage
  Tensor data_sum;     // sum of activations per output point; undefined when unneeded
  Tensor weight_sum;   // sum of weights per output channel; undefined when unneeded
  int64_t lanes = 16;  // output channels per dot-product call
};

// ConvInteger (groups == 1): x [N, C, H, W], w [OC, C, KH, KW], uint8 or
// int8 each. `ic_block` is the input channels per block, a multiple of 4
// (rounded up to one); channels are padded to whole blocks.
Int8Kernel conv2d_integer_nchwc(const QuantOperand& x, const QuantOperand& w, const Conv2dParams& p,
                                int64_t ic_block = 16, const std::string& name = "conv_integer");

// ConvIntegerNCHWc (ir/ops/conv_integer_nchwc.h): x uint8 [N, C/ib, H, W,
// ib], w already packed as conv2d_integer_nchwc packs it (int8 [OC/16, C/ib,
// KH, KW, ib/4, 16, 4]), `weight_sum` the weights' sums [OC/16, 16] int32
// (undefined: computed from w where x's zero point needs them). The output
// [N, OC/16, OH, OW, 16] int32, blocked as the product: no unpacking stage.
Int8Kernel conv2d_integer_packed(const QuantOperand& x, const QuantOperand& w,
                                 const Tensor& weight_sum, const Conv2dParams& p,
                                 const std::string& name = "conv_integer");

// The tensorized stage alone, on operands already packed as
// conv2d_integer_nchwc packs them: data [N, C/ib, H + pads, W + pads, ib]
// uint8 (`p`'s padding already in it: only strides and dilations are read),
// weights [OC/16, C/ib, KH, KW, ib/4, 16, 4] int8; the result
// [N, OC/16, OH, OW, 16] int32, tagged "conv2d_NCHWc_int8".
Tensor conv2d_nchwc_int8(const Tensor& data, const Tensor& weights, const Conv2dParams& p,
                         const std::string& name = "conv_int8");

// Depthwise ConvInteger (groups == C == OC, w [C, 1, KH, KW]): no channel
// reduction for vpdpbusd to take, so an int32 multiply-add of widened
// operands, vectorized over output columns. Returns [N, C, OH, OW] int32.
Tensor depthwise_conv2d_integer(const QuantOperand& x, const QuantOperand& w, const Conv2dParams& p,
                                const std::string& name = "depthwise_conv_integer");

// MatMulInteger with a 2-D B: a [..., M, K], b [K, N]; the result [..., M, N].
Int8Kernel matmul_integer(const QuantOperand& a, const QuantOperand& b,
                          const std::string& name = "matmul_integer");

}  // namespace lathe::topi

#include "topi/config_space.h"

namespace lathe::topi {

// x86 templates of the integer kernels, their tensorized stage on the
// dot-product intrinsic `intrinsic` (default "dot_16x4_u8s8"; its
// implementation — vpdpbusd, AVX-VNNI or AVX2 — is the target's, chosen by
// the code generator). The packing, sum and output stages run in parallel
// at the root.
// ConvInteger ("conv2d_int8.x86"):
//   tile_ow    [outer, reg_n] of the output row: reg_n pixels per
//              micro-kernel, each an accumulator of 16 output channels that
//              one 64-byte weight load serves
//   unroll_kw  unroll the kernel-width loop
// MatMulInteger ("dense_int8.x86"):
//   tile_y     [outer, rows] rows per register tile
//   tile_x     [outer, chunks] 16-column chunks per register tile
//   (rows x chunks accumulators: at most 24)
SearchSpace conv2d_int8_template(const Int8Kernel& kernel,
                                 const std::string& intrinsic = "dot_16x4_u8s8");
// ConvIntegerNCHWc with its epilogue ("conv2d_int8_fused.x86"): `kernel`'s
// output is the group's output, of the product's shape, whose elementwise
// stages (the zero points' correction, the requantization) the caller has
// inlined. The output's rows run in parallel, each in tiles of tile_oh rows
// x reg_n pixels x 16 channels, the product computed per tile (compute_at)
// and requantized from registers: no int32 buffer of the whole output.
// The default tile is two channel blocks (where the channels divide) by the
// longest run of pixels and the most rows whose accumulators fit `unit`'s
// vector registers.
//   tile_ow    [outer, reg_n] of the output row
//   tile_oh    [outer, rows] output rows per tile
//   tile_oc    [outer, blocks] 16-channel blocks per tile
//              (rows x reg_n x blocks accumulators, in registers)
//   unroll_kw  unroll the kernel-width loop
SearchSpace conv2d_int8_fused_template(const Int8Kernel& kernel,
                                       const VectorUnit& unit = VectorUnit::avx512(),
                                       const std::string& intrinsic = "dot_16x4_u8s8");
SearchSpace matmul_int8_template(const Int8Kernel& kernel,
                                 const std::string& intrinsic = "dot_16x4_u8s8");
// The same register tiles computed inside the loops of `epilogue`, the
// group's one output that reads the product elementwise (its correction and
// float rescale inlined): each tile's int32 sums are rescaled while in cache
// and no whole int32 product is written. Undefined space (no apply) where
// the epilogue's shape is not [..., rows, N] over the product's rows.
SearchSpace matmul_int8_tile_epilogue_template(const Int8Kernel& kernel, const Tensor& epilogue,
                                               const std::string& intrinsic = "dot_16x4_u8s8");
// The strides, dilations and pads of a packed int8 conv op (ConvIntegerNCHWc
// and its depthwise and grouped kinds), which the layout passes write out
// explicitly (ONNX's defaults where one is missing).
Conv2dParams packed_conv2d_params(const Attributes& attrs);
// The stages of an int8 kernel, found from the group's anchor (its output):
// the tensorizable product (tagged conv2d_NCHWc_int8, conv2d_stem_int8 or dense_int8), the
// packed operands it reads and the sums of the zero-point terms. Throws
// naming the anchor when no product is there.
Int8Kernel int8_kernel_of(const Tensor& anchor);
// The group's stages between the anchor and its outputs inlined, the
// outputs left to the caller.
void inline_epilogue(schedule::Schedule& s, const Tensor& anchor,
                     const std::vector<Tensor>& outputs);
// `space` followed by schedule_int8_epilogue: the group's outputs scheduled
// after the kernel.
SearchSpace with_epilogue(SearchSpace space, const Tensor& anchor,
                          const std::vector<Tensor>& outputs);
// `space` (a template whose root is the group's one output, the product
// computed per tile inside it) with the anchor and the stages between it
// and the output inlined first.
SearchSpace with_tile_epilogue(SearchSpace space, const Tensor& anchor,
                               const std::vector<Tensor>& outputs);
// The group's epilogue: its stages between the anchor and the outputs
// inlined, each output in parallel over its outer axes and in vectors of 16
// along its last where that divides it.
void schedule_int8_epilogue(schedule::Schedule& s, const Tensor& anchor,
                            const std::vector<Tensor>& outputs);
// Depthwise ConvInteger: channels in parallel, output columns in vectors.
void schedule_depthwise_conv2d_integer_x86(schedule::Schedule& s, const Tensor& output,
                                           int64_t vector_lanes = 16);

}  // namespace lathe::topi
