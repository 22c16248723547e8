// The depthwise part of the int8 layout pass (passes/alter_int8_conv_layout.h):
// which depthwise ConvIntegers run blocked, as DepthwiseConvIntegerNCHWc
// (ir/ops/depthwise_conv_integer_nchwc.h), and their weights packed for it.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// The channel block of a depthwise conv of `channels` channels: the
// largest multiple of 4 up to 16 dividing it (the block the int8 layout
// pass gives a dense conv reading those channels, so the two meet without
// a transform); 0 when there is none.
int64_t depthwise_block(int64_t channels);

// Whether `node` is a 2-D depthwise ConvInteger (group == C == OC, weight
// [C, 1, KH, KW]) the pass runs blocked: 8-bit data, a constant int8
// weight, constant zero points, channels in blocks of 4 to 16.
bool packable_depthwise(const Graph& graph, const Node& node);

// W [C, 1, KH, KW] int8 as [C/b, KH, KW, b].
Tensor pack_depthwise_weight(const Tensor& w, int64_t block);

// Σw per output channel over its group and window as [C/b, b] int32
// (depthwise: b its block; grouped: 16).
Tensor depthwise_weight_sums(const Tensor& w, int64_t block);

// Whether `node` is a grouped ConvInteger the pass runs as the
// block-diagonal GroupedConvIntegerNCHWc: C == OC channels a multiple of 16
// in groups of g > 1 channels with 16 % g == 0, 8-bit data, a constant int8
// weight whose zero point is zero (or none), a constant data zero point.
bool packable_grouped(const Graph& graph, const Node& node);

// W [C, g, KH, KW] int8 as the block-diagonal [C/16, 1, KH, KW, 4, 16, 4].
Tensor pack_grouped_weight(const Tensor& w);

}  // namespace lathe::passes
