// Channel padding for the int8 layout pass (passes/alter_int8_conv_layout.h):
// a ConvInteger whose filters are no multiple of 16 (MobileNetV2's 24) gets
// zero filters up to the next multiple, and the activations it feeds keep
// the padded channels up to the convolutions that read them, whose weights
// get zero input channels. The packed kernels then take every conv of the
// chain, and its uint8 activations stay NCHW16c, with no slice or layout
// transform between them.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// Pads each region of values [N, OC, H, W] (OC not a multiple of 16) that
//   - only ConvIntegers produce (group 1, constant int8 weight, constant
//     weight zero point or none), through elementwise or broadcast nodes
//     whose other inputs are scalar or per-channel constants ([OC, 1, 1],
//     [1, OC, 1, 1]) or values of the region (a residual QLinearAdd), and
//     and global pools of region values (an SE block's squeeze, its gate
//     [N, OC, 1, 1] a region value too),
//   - read by such elementwise nodes and pools and ConvIntegers (group 1,
//     constant int8 weight, a weight zero point of zeros or none) — other
//     readers (a Flatten, a conv with a weight zero point) read a Slice back
//     to OC channels, and a region only they read is left as it is — and no
//     graph output; grouped ConvIntegers of OC channels in and out (RegNet's
//     groups of 8: padded by whole groups of zero filters) both read and
//     write the region's values,
// to [N, P, H, W], P the next multiple of 16: the producers' weights (and
// per-channel zero points) get P − OC zero filters, the per-channel
// constants the last channel's value again (the padded lanes hold some
// finite value), and the consumers' weights P − OC zero input channels, so
// that the padded lanes add nothing to any result (the consumers' weight
// zero points being zero, (x − xz)·0 is 0 whatever a padded lane holds).
// Regions that do not qualify are left as they are.
Graph pad_int8_conv_filters(const Graph& graph);

}  // namespace lathe::passes
