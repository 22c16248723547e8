// The CPU layout pass (TVM's AlterOpLayout for x86 conv2d_NCHWc): 2-D float32
// convolutions run on channel-blocked data, and layout-agnostic elementwise
// and broadcast ops and the pools after them run blocked too, so that the transforms back
// to NCHW move down the graph to where a layout-sensitive op needs them.
#pragma once

#include "ir/graph.h"
#include "support/vector_unit.h"

namespace lathe::passes {

// Every float32 2-D or 1-D Conv whose group is 1, depthwise (group = C =
// OC), or whose groups nest with its channel blocks (group_nesting: a block
// inside a group, or whole groups inside a block) becomes (a 1-D conv as a 2-D one of height 1: its
// values [N, C, W] pass through Reshape to [N, C, 1, W] around the transforms)
//   LayoutTransform(X: NCHW -> NCHW{xb}c)
//   -> Conv2dNCHWc(X', LayoutTransform(W: OIHW -> OIHW{ib}i{ob}o), Reshape(B, [OC/ob, ob]))
//   -> LayoutTransform(NCHW{ob}c -> NCHW)
// with xb = channel_block(C), ob = channel_block(OC), ib = channel_block(C / group),
// blocks of at most one vector of `vector_unit` (16 channels on AVX-512, 8 on AVX2).
// A dense conv whose filters would block under half a vector (58 = 29 x 2)
// computes zero filters up to the next multiple of a vector when that adds
// at most a quarter and its weight and bias are constants; a Slice after its
// back transform drops them, and nothing sinks through that transform.
// The Conv2dNCHWc keeps the Conv's node name and the back transform produces
// the Conv's output value. An ElemWise or Broadcast op reading such back
// transforms (all with one block; its other inputs scalars, per-channel
// constants, or NCHW values of the output's shape, which get a forward
// transform) then runs blocked with its own back transform after it. So does
// a float32 2-D MaxPool, AveragePool, GlobalAveragePool or GlobalMaxPool of
// such a back transform (not MaxPool with Indices): it gets the attribute
// layout = "NCHW{b}c" (as TVM's pool2d layout), which its inference,
// reference kernel and compute read. A channel Concat reading such back
// transforms (one block; its other inputs NCHW with whole blocks of
// channels, which get a forward transform) concatenates the blocked values
// along the block axis. Run
// fold_constants after it to pack constant weights, and
// cancel_layout_transforms to drop the pairs that meet.
Graph alter_conv_layout(const Graph& graph, const VectorUnit& vector_unit = {});

}  // namespace lathe::passes
