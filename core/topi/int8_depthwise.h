// The depthwise int8 convolution on channel-blocked uint8 activations
// (DepthwiseConvIntegerNCHWc, ir/ops/depthwise_conv_integer_nchwc.h), so
// that MobileNet-style blocks (1x1, depthwise, 1x1) keep their activations
// in NCHW{b}c uint8 from one convolution to the next.
//
// A depthwise conv has no channel reduction for the int8 dot product
// (vpdpbusd sums 4 neighbouring reduction elements per lane) to take, so
// each tap is an int32 multiply-add of widened operands, vectorized over
// the channel block: per tap and pixel one load of b uint8 lanes, widened,
// times the tap's weight vector (widened once per tap). The compute is
// tagged as the float depthwise_conv2d_NCHWc (reduce axes ry, rx; its input
// a "pad" stage), so the float depthwise template (topi/nn_schedule_x86.h:
// row blocks of reg_n pixels, the padding inlined) schedules it with the
// requantize epilogue computed tile by tile.
#pragma once

#include "topi/int8.h"

namespace lathe::topi {

// x uint8 [N, C/b, H, W, b], w int8 [C/b, KH, KW, b], `weight_sum` int32
// [C/b, b] (Σw per channel; needed when x's zero point is not zero), zero
// points as in int8.h (x's a scalar, w's a scalar or [C]). The result int32
// [N, C/b, OH, OW, b]: Σ x·(w − wz) − xz·(Σw − KH·KW·wz), the padding
// holding xz. `x_zero` / `w_zero` hold the zero points' values where they are
// compile-time constants (then read as literals), else are null.
Tensor depthwise_conv2d_integer_packed(const QuantOperand& x, const QuantOperand& w,
                                       const Tensor& weight_sum, const Conv2dParams& p,
                                       const lathe::Tensor* x_zero, const lathe::Tensor* w_zero,
                                       const std::string& name = "depthwise_conv_integer");

// GroupedConvIntegerNCHWc (its groups nested in the 16-channel blocks): x
// uint8 [N, C/16, H, W, 16], w the block-diagonal int8 [C/16, 1, KH, KW, 4,
// 16, 4], `weight_sum` [C/16, 16] (needed when x's zero point is not zero).
// The kernel's stages as conv2d_integer_packed's, the product output block k
// reading input block k (tagged "conv2d_NCHWc_int8": the int8 dot-product
// template tensorizes it as it does a dense conv of 16 input channels).
Int8Kernel grouped_conv2d_integer_packed(const QuantOperand& x, const Tensor& w,
                                         const Tensor& weight_sum, const Conv2dParams& p,
                                         const std::string& name = "grouped_conv_integer");

}  // namespace lathe::topi
