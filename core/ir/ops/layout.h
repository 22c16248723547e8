// Blocked tensor layouts for the CPU convolution (TVM's conv2d_NCHWc): the
// names LayoutTransform's attributes use, their shapes and element offsets.
// Shared by the op's inference, its reference kernel and the layout pass.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/tensor.h"

namespace lathe {

// "NCHW", "NCHW16c" (data: [N, C/16, H, W, 16]), "OIHW" and "OIHW8i16o"
// (weights: [O/16, I/8, KH, KW, 8, 16]). Logical indices are always
// (n, c, h, w) or (o, i, kh, kw).
struct TensorLayout {
  enum class Kind { NCHW, NCHWc, OIHW, OIHWio };
  Kind kind = Kind::NCHW;
  int64_t block = 1;      // NCHWc: channels per block; OIHWio: input channels per block
  int64_t out_block = 1;  // OIHWio: output channels per block

  // Throws naming the text when it is not one of the forms above.
  static TensorLayout parse(std::string_view text);
  std::string to_string() const;
  bool is_weight() const { return kind == Kind::OIHW || kind == Kind::OIHWio; }
  int physical_rank() const;

  // The stored shape of a tensor of this layout whose logical (4-D) shape is
  // `logical`; throws when a block does not divide its channel count.
  Shape physical_shape(const Shape& logical) const;
  // The logical 4-D shape of a stored shape; throws when the rank is wrong.
  Shape logical_shape(const Shape& physical) const;
  // Row-major element offset of logical index `i` in a tensor of this layout
  // whose stored shape is `physical`.
  int64_t offset(const std::array<int64_t, 4>& i, const Shape& physical) const;
};

// The channel block the layout pass uses: the largest divisor of `channels`
// that is at most `max_block`, one vector of the target (16 float32 lanes on
// AVX-512: 3 -> 3, 12 -> 12, 64 -> 16; 8 on AVX2), except that half a vector
// replaces a divisor that is no multiple of it where half divides too
// (24 -> 8, 1000 -> 8, not 12 and 10): odd-sized vectors load and store in
// pieces.
int64_t channel_block(int64_t channels, int64_t max_block = 16);

// How a grouped conv's channel blocks meet its groups on the blocked kernel,
// for data blocked by `data_block`, weights by `in_block` x `out_block`:
// - BlockInGroup: each output block lies in one group and the group's input
//   channels are whole data blocks (`in_block` of them a step): every lane of
//   an output vector reads the same input value, a broadcast;
// - GroupsInBlock: whole groups of equal input and output width lie in each
//   block of data and output alike: a group's lanes read one value of the
//   output block's own input block, one vector load and a shuffle.
// None for group 1, depthwise (its own kernel) and the rest, which would
// gather. The layout pass blocks grouped convs that nest; the compute reads
// their input without dividing channels by the block.
enum class GroupNesting { None, BlockInGroup, GroupsInBlock };
GroupNesting group_nesting(int64_t group, int64_t group_channels, int64_t group_filters,
                           int64_t data_block, int64_t in_block, int64_t out_block);

std::string nchwc_layout(int64_t block);                         // "NCHW16c"
std::string oihwio_layout(int64_t in_block, int64_t out_block);  // "OIHW8i16o"

}  // namespace lathe
