// A 3-D convolution as a 2-D one over its output's depth slices, so that
// video and volume models run on the blocked 2-D conv kernels (and the
// layout pass, tuning templates and plugins that serve them) rather than on
// the generic loop nest, which reached 8 % of this machine's roof.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// A float32 Conv over three spatial axes, X [N, C, D, H, W], W [M, C/g, KD,
// KH, KW], becomes
//   Pad(X, depth) -> KD Slices along depth, tap kd: rows kd*dd, +sd, ... (Do of them)
//   -> Concat [N, C, KD*Do, H, W] -> Reshape [N, g, C/g, KD, Do, H, W]
//   -> Transpose [N, Do, g, KD, C/g, H, W] -> Reshape [N*Do, C*KD, H, W]
//   -> Conv(., Reshape(Transpose(W, [M, KD, C/g, KH, KW]), [M, KD*C/g, KH, KW]), B)
//      2-D: the H and W window
//   -> Reshape [N, Do, M, Ho, Wo] -> Transpose [N, M, Do, Ho, Wo]
// Each depth tap becomes an input channel: channel (gi*KD + kd)*C/g + c of
// batch row n*Do + d holds X[n, gi*C/g + c, d*sd + kd*dd - pd_begin], and
// weight channel kd*C/g + c is W[., c, kd], so the sums are the 3-D conv's; a
// group's channels stay contiguous, so the 2-D conv keeps the group count,
// and within a group a tap's channels keep their order, so that in the
// blocked layout the copy moves whole vectors. The input is copied KD times
// (the depth im2col) for one 2-D conv with KD times the channels, where KD
// separate convs would each write the whole output. The
// last Transpose keeps the Conv's name and output value. A depth-only window
// (KD x 1 x 1, no stride or padding across H and W: a (2+1)-D network's
// temporal conv) needs no copy: Reshape [N, C, D, H*W] -> Conv with a KD x 1
// window -> Reshape [N, M, Do, H, W], the last keeping the Conv's name.
// Other Convs stay.
Graph lower_conv3d(const Graph& graph);

}  // namespace lathe::passes
