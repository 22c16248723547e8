// The cuda template of direct 2-D convolution (schedule_cuda_templates.h),
// after TVM's topi/cuda/conv2d_direct.py.
#include <algorithm>

#include "schedule/schedule.h"
#include "topi/group_schedule.h"
#include "topi/schedule_cuda.h"
#include "topi/schedule_cuda_templates.h"

namespace lathe::topi {

namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// Static shared memory a block may have without opting in (48 KiB), less a
// margin for the bounding boxes' rounding.
constexpr int64_t kSharedBudget = 44 * 1024;
// Blocks the default tiles aim for at least (about one per multiprocessor
// of a large GPU).
constexpr int64_t kBlocksToFill = 128;

struct ConvShape {
  int64_t n, f, oh, ow, c, kh, kw;  // c: the input channels of one output
  int64_t in_h, in_w;               // the padded input's
  int64_t stride_h, stride_w;       // from the output and the padded input
};

// Bytes of the shared tiles of one step of `tile_c` input channels for a
// block of `tile_f` output channels and tile_h x tile_w output pixels: the
// input window they read and the weights' slab.
int64_t shared_bytes(const ConvShape& s, int64_t tile_f, int64_t tile_h, int64_t tile_w,
                     int64_t tile_c) {
  const int64_t rows = std::min(s.in_h, (std::min(tile_h, s.oh) - 1) * s.stride_h + s.kh);
  const int64_t cols = std::min(s.in_w, (std::min(tile_w, s.ow) - 1) * s.stride_w + s.kw);
  const int64_t c = std::min(tile_c, s.c);
  return 4 * (c * rows * cols + std::min(tile_f, s.f) * c * s.kh * s.kw);
}

IterVar fuse_all(Stage& stage, const std::vector<IterVar>& axes) {
  IterVar fused = axes[0];
  for (size_t i = 1; i < axes.size(); ++i) fused = stage.fuse(fused, axes[i]);
  return fused;
}

}  // namespace

SearchSpace cuda_conv2d_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                 const VectorUnit& vector_unit) {
  const te::Tensor conv = find_tagged(anchor, {"conv2d_nchw"});
  if (!conv.defined() || outputs.size() != 1 || outputs[0].shape() != conv.shape())
    return cuda_default_template(anchor, outputs, vector_unit);
  const std::vector<te::Tensor> inputs = conv.op().input_tensors();
  const te::Tensor& padded = inputs[0];
  const te::Tensor& weight = inputs[1];
  const auto& os = conv.shape();
  const auto& ps = padded.shape();
  const auto& ws = weight.shape();
  ConvShape s{os[0], os[1], os[2], os[3], ws[1], ws[2], ws[3], ps[2], ps[3], 1, 1};
  // Grouped convolutions read a different slab of channels per group: the
  // default schedule (one thread per output) does them.
  if (ps[1] != ws[1] || s.c * s.kh * s.kw < 8)
    return cuda_default_template(anchor, outputs, vector_unit);
  if (s.oh > 1) s.stride_h = std::max<int64_t>(1, (s.in_h - s.kh) / (s.oh - 1));
  if (s.ow > 1) s.stride_w = std::max<int64_t>(1, (s.in_w - s.kw) / (s.ow - 1));

  SearchSpace space;
  space.name = "conv2d_direct.cuda";
  space.knobs.push_back(choice_knob("tile_f", {8, 16, 32, 64}));
  space.knobs.push_back(choice_knob("block_f", {1, 2, 4, 8}));
  space.knobs.push_back(choice_knob("tile_h", {1, 2, 4, 8}));
  space.knobs.push_back(choice_knob("tile_w", {4, 7, 8, 14, 16, 28, 32}));
  // Steps of input channels that divide them: a last partial step would be
  // peeled by loop_partition into a second copy of the loop, with shared
  // tiles of its own. A few channels (an RGB image) are one step.
  std::vector<int64_t> steps;
  for (int64_t c : {1, 2, 4, 8, 16})
    if (s.c % c == 0) steps.push_back(c);
  if (s.c < 16 && steps.back() != s.c) steps.push_back(s.c);
  space.knobs.push_back(choice_knob("tile_c", steps));
  // Whether the kernel window's loops (ry, rx) of a step are unrolled: more
  // independent loads in flight against more registers and code. Untuned: not.
  space.knobs.push_back(choice_knob("unroll_window", {0, 1}));
  // The block's threads: on y the tile's channels (at most the output's)
  // over block_f, on x its pixels (at most the image's rows and columns).
  // The output's thread loops and the fetches' have these same extents: a
  // shorter output loop would be guarded, and the barriers of the channel
  // steps inside it unreachable for some threads.
  auto threads_of = [s](int64_t tile_f, int64_t block_f, int64_t tile_h, int64_t tile_w) {
    return (std::min(tile_f, s.f) + block_f - 1) / block_f * std::min(tile_h, s.oh) *
           std::min(tile_w, s.ow);
  };
  space.constraint = [knobs = space.knobs, s, threads_of](const Config& c) {
    const int64_t tile_f = knob_int(knobs, c, "tile_f"), block_f = knob_int(knobs, c, "block_f");
    const int64_t tile_h = knob_int(knobs, c, "tile_h"), tile_w = knob_int(knobs, c, "tile_w");
    const int64_t threads = threads_of(tile_f, block_f, tile_h, tile_w);
    return block_f <= tile_f && threads >= 32 && threads <= 1024 &&
           shared_bytes(s, tile_f, tile_h, tile_w, knob_int(knobs, c, "tile_c")) <= kSharedBudget;
  };
  // 32 output channels (4 a thread) x about 32 pixels (rows of up to 16),
  // 8 input channels a step; fewer channels a block where the blocks would
  // not fill the GPU, fewer input channels where the tiles would not fit.
  const int64_t tile_w = s.ow <= 7 ? 7 : s.ow <= 14 ? 14 : 16;
  int64_t tile_h = std::max<int64_t>(1, 32 / tile_w), tile_f = 32, tile_c = 1;
  for (int64_t c : steps)
    if (c <= 8) tile_c = c;
  auto blocks = [&] {
    return s.n * ((s.f + tile_f - 1) / tile_f) * ((s.oh + tile_h - 1) / tile_h) *
           ((s.ow + tile_w - 1) / tile_w);
  };
  while (blocks() < kBlocksToFill && tile_f > 8) tile_f /= 2;
  // At least a warp of threads: taller tiles where the image is small.
  while (threads_of(tile_f, std::min<int64_t>(4, tile_f), tile_h, tile_w) < 32 && tile_h < 8 &&
         tile_h < s.oh)
    tile_h *= 2;
  // Fewer output channels, then fewer input channels a step, until the
  // tiles fit.
  while (shared_bytes(s, tile_f, tile_h, tile_w, tile_c) > kSharedBudget) {
    if (tile_f > 16) {
      tile_f /= 2;
    } else {
      auto smaller = std::find(steps.begin(), steps.end(), tile_c);
      if (smaller == steps.begin()) break;
      tile_c = *(smaller - 1);
    }
  }
  space.default_config = require_config(space, {{"tile_f", {tile_f}},
                                                {"block_f", {std::min<int64_t>(4, tile_f)}},
                                                {"tile_h", {tile_h}},
                                                {"tile_w", {tile_w}},
                                                {"tile_c", {tile_c}},
                                                {"unroll_window", {0}}});
  if (!space.valid(space.default_config))
    return cuda_default_template(anchor, outputs, vector_unit);

  space.apply = [knobs = space.knobs, conv_op = conv.op(), padded, weight, s, threads_of](
                    Schedule& sch, const Config& config) {
    const int64_t tile_f = knob_int(knobs, config, "tile_f");
    const int64_t block_f = knob_int(knobs, config, "block_f");
    const int64_t tile_h = knob_int(knobs, config, "tile_h");
    const int64_t tile_w = knob_int(knobs, config, "tile_w");
    const int64_t tile_c = knob_int(knobs, config, "tile_c");
    Stage product;
    for (Stage st : sch.stages()) {
      if (!st.op().as_compute()) continue;
      if (st.op().same_as(conv_op))
        product = st;
      else if (!st.node().is_output)
        st.compute_inline();  // the padding, the bias, activation and residual
    }
    const bool product_is_output = product.node().is_output;
    const te::Tensor local = sch.cache_write(te::Tensor(conv_op), "local");
    if (!product_is_output) product.compute_inline();
    Stage output;
    for (Stage st : sch.stages())
      if (st.node().is_output) output = st;
    Stage accumulate = sch[local];

    // Blocks: (batch, output-channel tiles, pixel tiles); threads: channel
    // groups of block_f on y, the tile's pixels on x (a row's consecutive).
    const std::vector<IterVar> axes = output.axis();
    auto [fo, fi] = output.split(axes[1], tile_f);
    auto [ft, fr] = output.split(fi, block_f);
    auto [yo, yi] = output.split(axes[2], tile_h);
    auto [xo, xi] = output.split(axes[3], tile_w);
    output.reorder({axes[0], fo, yo, xo, ft, yi, xi, fr});
    const IterVar tiles = output.fuse(yo, xo);
    const IterVar pixel = output.fuse(yi, xi);
    output.bind(axes[0], "blockIdx.z");
    output.bind(fo, "blockIdx.y");
    output.bind(tiles, "blockIdx.x");
    output.bind(ft, "threadIdx.y");
    output.bind(pixel, "threadIdx.x");
    accumulate.compute_at(output, pixel);

    // Each thread: block_f accumulators in registers, over steps of tile_c
    // input channels whose tiles the block fetches into shared memory.
    const std::vector<IterVar> acc = accumulate.axis();
    const std::vector<IterVar> red = accumulate.reduce_axis();
    auto [rco, rci] = accumulate.split(red[0], tile_c);
    accumulate.reorder({acc[0], acc[2], acc[3], rco, rci, red[1], red[2], acc[1]});
    accumulate.unroll(acc[1]);
    if (knob_int(knobs, config, "unroll_window")) {
      accumulate.unroll(red[1]);
      accumulate.unroll(red[2]);
    }
    const int64_t threads_x = std::min(tile_h, s.oh) * std::min(tile_w, s.ow);
    const int64_t threads_y = threads_of(tile_f, block_f, tile_h, tile_w) / threads_x;
    for (const te::Tensor& operand : {padded, weight}) {
      const te::Tensor shared = sch.cache_read(operand, "shared", {local.op()});
      Stage fetch = sch[shared];
      fetch.compute_at(accumulate, rco);
      auto [rest, lanes] = fetch.split(fuse_all(fetch, fetch.axis()), threads_x * threads_y);
      auto [fy, fx] = fetch.split(lanes, threads_x);
      fetch.bind(fy, "threadIdx.y");
      fetch.bind(fx, "threadIdx.x");
    }
  };
  return space;
}

}  // namespace lathe::topi
