// The small-input-channel first conv of int8 CNNs (StemConvInteger,
// ir/ops/stem_conv_integer.h), as oneDNN computes it: the data in padded
// NHWC rows, the kernel width and the channels reduced together, four
// consecutive (kx, c) bytes a 32-bit lane of the int8 dot product.
#pragma once

#include <string>

#include "ir/ops/stem_conv_integer.h"
#include "topi/config_space.h"
#include "topi/int8.h"
#include "topi/op_compute.h"

namespace lathe::topi {

// StemConvInteger on `x` (uint8 NCHW [N, C, H, W], its zero point a scalar
// or undefined) and `w` (the packed int8 weights [OC/16, KH, Q, 16, 4], its
// zero point a scalar, one per output channel or undefined); `weight_sum`
// [OC/16, 16] int32 or undefined (then summed from w where x's zero point
// needs it). The data: x copied into padded NHWC rows [N, rows, pixels, C]
// (g.row_count(), g.row_pixels()), "<name>_rows". The product, tagged
// "conv2d_stem_int8":
//   product[n, b, oy, ox, o] = sum over ky, q, l of
//     rows[n, oy·sh + ky·dh, J / C, J % C] · w[b, ky, q, o, l],  J = ox·sw·C + 4q + l
// (l innermost: the dot_16x4_u8s8 intrinsic's lane); the output
// [N, OC/16, OH, OW, 16] int32 corrected by the zero points' terms, tagged
// "stem_conv_integer".
Int8Kernel stem_conv2d_integer(const QuantOperand& x, const QuantOperand& w,
                               const Tensor& weight_sum, const StemConvGeometry& g,
                               const std::string& name = "stem_conv");

// The x86 template of `kernel` ("stem_conv2d_int8.x86"): `kernel.output` of
// the product's shape (its epilogue, the requantization inlined by the
// caller, or the corrected sums), tiled into blocks x rows x pixels
// accumulators of 16 channels, the product computed per tile (compute_at)
// with the dot product tensorized, the tiles of rows in parallel:
//   tile_oc   [outer, blocks] 16-channel blocks per tile (one weight load
//             each per step, shared by the tile's pixels)
//   tile_oh   [outer, rows] output rows per tile
//   tile_ow   [outer, pixels] output pixels of a row per tile (one
//             broadcast each per step, shared by the blocks)
//   unroll_q  unroll the loop over the kernel row's 4-byte groups
// (blocks x rows x pixels <= 28 accumulators). The default: the most
// blocks (up to 4), then the most pixels a row, then rows, that fit in 16
// accumulators (more spill beside the weights and broadcasts).
SearchSpace stem_conv2d_int8_template(const Int8Kernel& kernel,
                                      const std::string& intrinsic = "dot_16x4_u8s8");

// The compute and template of StemConvInteger in the graph compiler.
void register_int8_stem_computes(OpStrategyRegistry& registry);

}  // namespace lathe::topi
