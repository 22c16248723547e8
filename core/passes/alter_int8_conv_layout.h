// The int8 layout pass (TVM's AlterOpLayout for conv2d_NCHWc_int8, beside
// the float alter_conv_layout): a ConvInteger whose weight is a constant
// runs on channel-blocked operands, its weight packed once, here, for the
// int8 dot product.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// Every 2-D ConvInteger with 8-bit data of C channels (C a multiple of 4;
// int8 data is first shifted into uint8 by +128, its zero point too),
// a constant int8 weight [OC, C, KH, KW] (OC a multiple of 16), group 1 and
// a per-tensor or constant zero point of the weight becomes
//   LayoutTransform(X: NCHW -> NCHW{ib}c)
//   -> ConvIntegerNCHWc(X', W packed, Σw, x_zero_point, w_zero_point)
//   -> LayoutTransform(NCHW16c -> NCHW)
// A conv of fewer than 16 input channels, not a multiple of 4 (an RGB
// stem), becomes StemConvInteger(X, W packed [OC/16, KH, Q, 16, 4], Σw,
// x_zero_point, w_zero_point) instead (passes/int8_stem_layout.h): its
// kernel width and channels reduced together, no channel padded.
// A conv that reads from or feeds a grouped (depthwise) ConvInteger through
// elementwise requantize steps only is left as it is: the depthwise kernel
// runs in NCHW, so it would pay a layout transform on that side every call.
// ib is the largest multiple of 4 up to 16 dividing C, the weight packed
// to [OC/16, C/ib, KH, KW, ib/4, 16, 4] and Σw [OC/16, 16] (when there is
// an x_zero_point) as constants. The ConvIntegerNCHWc keeps the node's name,
// the back transform produces its output value. alter_conv_layout, run
// after it, moves the back transforms down through the requantize epilogue
// (Add, Cast, Mul, QuantizeLinear, DequantizeLinear: elementwise with
// per-channel constants) and pools, and cancel_layout_transforms drops the
// pairs that then meet between consecutive convolutions, so uint8
// activations stay blocked from one convolution to the next.
Graph alter_int8_conv_layout(const Graph& graph);

}  // namespace lathe::passes
