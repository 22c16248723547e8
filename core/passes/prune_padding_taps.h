// Kernel taps that read only padding, cut from convolutions. An atrous
// (dilated) conv on a map smaller than its dilation reads zeros with every
// tap but the centre: DeepLab's ASPP at output stride 16 runs 3x3 convs of
// dilation 12, 24 and 36 on 16x16 maps (256 x 256 input), and those of
// dilation 24 and 36 are 1x1 convs that compute nine times the FLOPs.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// For each Conv with constant float32 weights, per spatial axis, the leading
// and trailing kernel taps that no output position reads inside the input
// are dropped: the weight is sliced to the live taps, the padding before and
// after shrinks by the dropped taps' dilated extent, and a kernel left one
// tap wide takes dilation 1. Every output reads the same input elements with
// the same weights, so the result is unchanged. A conv whose shrunk padding
// would be negative, or that reads nothing but padding, stays.
Graph prune_padding_taps(const Graph& graph);

}  // namespace lathe::passes
