#include "ir/ops/col2im_geometry.h"

#include "support/error.h"

namespace lathe {

Col2ImGeometry col2im_geometry(const Attributes& attrs, const std::vector<int64_t>& image_shape,
                               const std::vector<int64_t>& block_shape) {
  const size_t n = image_shape.size();
  LATHE_CHECK(n >= 1, "Col2Im image_shape must name at least one axis");
  LATHE_CHECK(block_shape.size() == n, "Col2Im block_shape has ", block_shape.size(),
              " values for the ", n, " of image_shape");
  Col2ImGeometry g;
  g.image = image_shape;
  g.block = block_shape;
  auto per_axis = [&](const char* name, int64_t fallback, size_t count) {
    std::vector<int64_t> v = attrs.has(name) ? attrs.get_ints(name) : std::vector<int64_t>();
    if (v.empty()) v.assign(count, fallback);
    LATHE_CHECK(v.size() == count, "Col2Im ", name, " has ", v.size(), " values, expected ", count);
    return v;
  };
  g.dilations = per_axis("dilations", 1, n);
  g.strides = per_axis("strides", 1, n);
  const std::vector<int64_t> pads = per_axis("pads", 0, 2 * n);
  g.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  g.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  for (size_t d = 0; d < n; ++d) {
    LATHE_CHECK(g.image[d] > 0 && g.block[d] > 0, "Col2Im axis ", d,
                ": image and block sizes must be positive, got ", g.image[d], " and ", g.block[d]);
    LATHE_CHECK(g.dilations[d] > 0 && g.strides[d] > 0, "Col2Im axis ", d,
                ": dilations and strides must be positive");
    LATHE_CHECK(g.pad_begin[d] >= 0 && g.pad_end[d] >= 0, "Col2Im axis ", d,
                ": pads must not be negative");
    const int64_t span = g.dilations[d] * (g.block[d] - 1) + 1;
    const int64_t padded = g.image[d] + g.pad_begin[d] + g.pad_end[d];
    LATHE_CHECK(padded >= span, "Col2Im axis ", d, ": the block spans ", span,
                " but the padded image has ", padded);
    g.blocks.push_back((padded - span) / g.strides[d] + 1);
    g.block_size *= g.block[d];
    g.positions *= g.blocks.back();
  }
  return g;
}

}  // namespace lathe
