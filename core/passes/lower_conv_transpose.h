// ConvTranspose as a dense convolution plus a pixel interleave (the
// "sub-pixel" form): the fast Conv kernels do the arithmetic, and no output
// point visits the kernel taps that cannot reach it.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// A float32 ConvTranspose with constant weights, group 1 and unit dilations
// over 1 to 3 spatial axes, strides s and kernel K, becomes
//   Conv(X, W', B')                      W': [prod(s) * M, C, J...], J = ceil(K / s)
//   -> Reshape [N, s..., M, L...] -> Transpose [N, M, L0, s0, L1, s1, ...]
//   -> Reshape [N, M, L0 * s0, ...] -> Slice (when the padding crops)
// Output position o reads input i through tap k when o + pad = i * s + k.
// Writing o + pad = q * s + r (phase r < s) leaves taps k = r + s * j, so
// each phase is an ordinary convolution over J taps; the phases become
// prod(s) groups of output channels, phase-major, and the interleave puts
// phase r of row q at q * s + r. Taps past K are zero in W'. The result's
// value is the ConvTranspose's output value; the node keeps its name.
// Other ConvTransposes stay as they are.
Graph lower_conv_transpose(const Graph& graph);

}  // namespace lathe::passes
