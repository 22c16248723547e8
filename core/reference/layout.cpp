// Reference kernels for the layout op family: LayoutTransform and
// Conv2dNCHWc, written from the index definitions in ir/ops/layout.h.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "ir/ops/layout.h"
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

// Element copy by size: a layout change moves elements, whatever they hold.
template <typename Word>
void transform_elements(const TensorLayout& src, const TensorLayout& dst, const Tensor& x,
                        Tensor& y) {
  const Shape logical = src.logical_shape(x.shape());
  const Word* in = static_cast<const Word*>(x.raw());
  Word* out = static_cast<Word*>(y.raw());
  std::array<int64_t, 4> i{};
  for (i[0] = 0; i[0] < logical[0]; ++i[0])
    for (i[1] = 0; i[1] < logical[1]; ++i[1])
      for (i[2] = 0; i[2] < logical[2]; ++i[2])
        for (i[3] = 0; i[3] < logical[3]; ++i[3])
          out[dst.offset(i, y.shape())] = in[src.offset(i, x.shape())];
}

void layout_transform(KernelContext& ctx) {
  relayout(ctx.input(0), TensorLayout::parse(ctx.attrs().get_string("src_layout", "")),
           ctx.output(0), TensorLayout::parse(ctx.attrs().get_string("dst_layout", "")));
}

// Conv2dNCHWc's geometry, read once per node.
struct BlockedConv {
  int64_t batch, in_blocks, height, width, in_block;     // X [N, C/xb, H, W, xb]
  int64_t out_blocks, w_in_blocks, kh, kw, w_block, ob;  // W [OC/ob, Cg/ib, KH, KW, ib, ob]
  int64_t out_h, out_w;
  int64_t group, group_channels, group_filters;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  // Element offsets, computed once: of channel c in an image of X, and of
  // channel rc of a group in a block of W.
  std::vector<int64_t> x_offset, w_offset;
};

// Calls f(offset of the input value in its channel plane, tap index ky * kw
// + kx) for each tap of output position (oy, ox) that lies inside the input,
// kernel row by kernel row: positions in the padding would add zero.
template <typename F>
inline void for_each_tap(const BlockedConv& g, int64_t oy, int64_t ox, F&& f) {
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
    if (iy < 0 || iy >= g.height) continue;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
      if (ix < 0 || ix >= g.width) continue;
      f((iy * g.width + ix) * g.in_block, ky * g.kw + kx);
    }
  }
}

// One output position (n, of, oy, ox): the ob accumulators of the block sum
// over input channel, then kernel row, then kernel column, in that order
// (the order of the NCHW reference's patch matrix, so both round alike).
// Positions in the padding are skipped: they would add zero. Any block and
// grouping: the lanes go in runs that share a group, and so read the same
// input channels (one run for group 1, one lane a run when depthwise).
template <typename T>
void conv_position(const BlockedConv& g, const T* px, const T* pw, const T* pb, T* py, T* acc,
                   int64_t n, int64_t of, int64_t oy, int64_t ox) {
  const int64_t ob = g.ob;
  const int64_t plane = g.height * g.width * g.in_block;
  for (int64_t l = 0; l < ob; ++l) acc[l] = pb ? pb[of * ob + l] : T{0};
  for (int64_t l0 = 0, l1 = 0; l0 < ob; l0 = l1) {
    const int64_t group = (of * ob + l0) / g.group_filters;
    l1 = std::min(ob, (group + 1) * g.group_filters - of * ob);
    for (int64_t rc = 0; rc < g.group_channels; ++rc) {
      const int64_t c = group * g.group_channels + rc;
      const T* x_plane = px + n * g.in_blocks * plane + g.x_offset[c];
      const T* w_tap = pw + of * g.w_in_blocks * g.kh * g.kw * g.w_block * ob + g.w_offset[rc];
      for_each_tap(g, oy, ox, [&](int64_t x_at, int64_t tap) {
        const T xv = x_plane[x_at];
        const T* wv = w_tap + tap * g.w_block * ob;
        for (int64_t l = l0; l < l1; ++l) acc[l] += xv * wv[l];
      });
    }
  }
  std::copy(acc, acc + ob, py + (((n * g.out_blocks + of) * g.out_h + oy) * g.out_w + ox) * ob);
}

// The same sums when all LANES lanes of a block read the same input channel
// (group 1, or groups of whole blocks): one input value times a contiguous
// row of LANES weights. The lanes are one GCC vector, so that the
// accumulators stay in registers (GCC 12 at -O2 does not vectorize the
// equivalent lane loop, and the kernel would run 3x slower); each lane
// still adds its products one by one in the order above.
template <int64_t LANES, typename T>
void conv_position_shared(const BlockedConv& g, const T* px, const T* pw, const T* pb, T* py,
                          int64_t n, int64_t of, int64_t oy, int64_t ox) {
  typedef T Lanes __attribute__((vector_size(sizeof(T) * LANES)));
  Lanes acc = {};
  if (pb) std::memcpy(&acc, pb + of * LANES, sizeof(Lanes));
  const int64_t plane = g.height * g.width * g.in_block;
  const int64_t first_channel = of * LANES / g.group_filters * g.group_channels;
  for (int64_t rc = 0; rc < g.group_channels; ++rc) {
    const int64_t c = first_channel + rc;
    const T* x_plane = px + n * g.in_blocks * plane + g.x_offset[c];
    const T* w_tap = pw + of * g.w_in_blocks * g.kh * g.kw * g.w_block * LANES + g.w_offset[rc];
    for_each_tap(g, oy, ox, [&](int64_t x_at, int64_t tap) {
      const T xv = x_plane[x_at];
      Lanes w;
      std::memcpy(&w, w_tap + tap * g.w_block * LANES, sizeof(Lanes));
      acc += xv * w;
    });
  }
  std::memcpy(py + (((n * g.out_blocks + of) * g.out_h + oy) * g.out_w + ox) * LANES, &acc,
              sizeof(Lanes));
}

template <int64_t LANES, typename T>
void conv_all(const BlockedConv& g, const T* px, const T* pw, const T* pb, T* py) {
  std::vector<T> acc(static_cast<size_t>(g.ob));
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t of = 0; of < g.out_blocks; ++of)
      for (int64_t oy = 0; oy < g.out_h; ++oy)
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          if constexpr (LANES > 0)
            conv_position_shared<LANES>(g, px, pw, pb, py, n, of, oy, ox);
          else
            conv_position(g, px, pw, pb, py, acc.data(), n, of, oy, ox);
        }
}

void conv2d_nchwc(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  const Attributes& attrs = ctx.attrs();
  const std::vector<int64_t> strides = attrs.get_ints("strides", {1, 1});
  const std::vector<int64_t> dilations = attrs.get_ints("dilations", {1, 1});
  const std::vector<int64_t> pads = attrs.get_ints("pads", {0, 0, 0, 0});
  BlockedConv g;
  g.batch = xs[0];
  g.in_blocks = xs[1];
  g.height = xs[2];
  g.width = xs[3];
  g.in_block = xs[4];
  g.out_blocks = ws[0];
  g.w_in_blocks = ws[1];
  g.kh = ws[2];
  g.kw = ws[3];
  g.w_block = ws[4];
  g.ob = ws[5];
  g.out_h = y.shape()[2];
  g.out_w = y.shape()[3];
  g.group = attrs.get_int("group", 1);
  g.group_channels = ws[1] * ws[4];
  g.group_filters = ws[0] * ws[5] / g.group;
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.dilation_w = dilations[1];
  g.pad_top = pads[0];
  g.pad_left = pads[1];
  const int64_t plane = g.height * g.width * g.in_block;
  for (int64_t c = 0; c < g.in_blocks * g.in_block; ++c)
    g.x_offset.push_back(c / g.in_block * plane + c % g.in_block);
  for (int64_t rc = 0; rc < g.group_channels; ++rc)
    g.w_offset.push_back(rc / g.w_block * g.kh * g.kw * g.w_block * g.ob + rc % g.w_block * g.ob);
  dispatch_types<float, double>(x.dtype(), "Conv2dNCHWc", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* pw = w.data<T>();
    const T* pb = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
    T* py = y.data<T>();
    const bool shared = g.group_filters % g.ob == 0;
    if (shared && g.ob == 16)
      conv_all<16>(g, px, pw, pb, py);
    else if (shared && g.ob == 8)
      conv_all<8>(g, px, pw, pb, py);
    else if (shared && g.ob == 4)
      conv_all<4>(g, px, pw, pb, py);
    else
      conv_all<0>(g, px, pw, pb, py);
  });
}

}  // namespace

void relayout(const Tensor& x, const TensorLayout& src, Tensor& y, const TensorLayout& dst) {
  switch (dtype_size(x.dtype())) {
    case 1:
      transform_elements<uint8_t>(src, dst, x, y);
      break;
    case 2:
      transform_elements<uint16_t>(src, dst, x, y);
      break;
    case 4:
      transform_elements<uint32_t>(src, dst, x, y);
      break;
    case 8:
      transform_elements<uint64_t>(src, dst, x, y);
      break;
    default:
      fail_unsupported(str("LayoutTransform: no kernel for dtype ", dtype_name(x.dtype())));
  }
}

void register_layout_kernels(OpRegistry& r) {
  r.find_mutable("LayoutTransform")->kernel = layout_transform;
  r.find_mutable("Conv2dNCHWc")->kernel = conv2d_nchwc;
}

}  // namespace lathe::reference
