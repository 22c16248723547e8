// Col2Im's geometry (opset 18): the inverse of im2col. Input [N, C * prod(block),
// L] holds, for each of the L block positions, the block's C * prod(block)
// values; each is added into the image at the position its block offset and
// position select. Shared by inference, the reference kernel (a scatter) and
// the compiled kernel (a gather over block offsets), so all three read the
// same attributes the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attributes.h"

namespace lathe {

struct Col2ImGeometry {
  std::vector<int64_t> image, block, dilations, strides, pad_begin, pad_end;
  std::vector<int64_t> blocks;  // block positions along each image axis
  int64_t block_size = 1;       // prod(block)
  int64_t positions = 1;        // prod(blocks): L
};

// Checks the attributes against image_shape and block_shape (both 1-D of the
// same length) and counts the block positions. Throws lathe::Error naming what
// does not fit.
Col2ImGeometry col2im_geometry(const Attributes& attrs, const std::vector<int64_t>& image_shape,
                               const std::vector<int64_t>& block_shape);

}  // namespace lathe
