// The template of Conv on NCHW, the layout of convolutions the layout pass
// leaves alone (grouped ones); declared in topi/nn_schedule_x86.h.
#include "topi/default_schedule.h"
#include "topi/generic_template.h"
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using te::IterVar;

// Default filters per micro-kernel; options go up to kMaxFilterBlock.
constexpr int64_t kFilterBlock = 8, kMaxFilterBlock = 16;

// Output: (n, filter block, row) in parallel, rows in vectors of xb pixels;
// the micro-kernel: fb x xb accumulators, each input vector used by fb filters.
void apply_conv_nchw(Schedule& sch, const te::Tensor& conv, const std::vector<te::Tensor>& outputs,
                     int64_t fb, int64_t xb, int64_t vector_lanes) {
  OpSet done = {conv.op()};
  for (const te::Tensor& in : conv.op().input_tensors()) {
    if (tag_of(in) != "pad" || is_output(outputs, in)) continue;
    schedule_pad(sch[in], false);
    done.insert(in.op());
  }
  TileStages t = tile_stages(sch, conv, outputs, done);
  std::vector<IterVar> ax = t.loops.axis();
  auto [fo, fi] = t.loops.split(ax[1], fb, "ff_outer", "ff_inner");
  auto [xo, xi] = t.loops.split(ax[3], xb, "xx_outer", "xx_inner");
  t.loops.reorder({ax[0], fo, ax[2], xo, fi, xi});
  IterVar rows = t.loops.fuse(t.loops.fuse(ax[0], fo), ax[2]);
  t.loops.parallel(rows);
  t.loops.vectorize(xi);

  attach_path(t.path, sch, t.loops, xo);
  t.acc.compute_at(t.loops, xo);
  std::vector<IterVar> a = t.acc.axis();
  std::vector<IterVar> order = {a[0], a[2]};
  for (const IterVar& r : t.acc.reduce_axis()) order.push_back(r);
  order.push_back(a[1]);
  order.push_back(a[3]);
  t.acc.reorder(order);
  t.acc.unroll(a[1]);
  t.acc.vectorize(a[3]);
  schedule_remaining(sch, done, vector_lanes);
}

}  // namespace

SearchSpace conv2d_nchw_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                 const VectorUnit& vector_unit) {
  te::Tensor conv = find_tagged(anchor, {"conv2d_nchw", "depthwise_conv2d_nchw"});
  if (!conv.defined()) return generic_template(anchor, outputs, vector_unit);
  const int64_t lanes = vector_unit.lanes();
  const std::vector<int64_t>& shape = conv.shape();  // n, f, y, x
  const int64_t fb = largest_divisor(shape[1], kFilterBlock);
  const int64_t xb = largest_divisor(shape[3], lanes);
  SearchSpace space;
  space.name = "conv2d_nchw.x86";
  space.knobs = {choice_knob("tile_f", divisors(shape[1], kMaxFilterBlock)),
                 choice_knob("tile_x", divisors(shape[3], lanes))};
  space.default_config = require_config(space, {{"tile_f", {fb}}, {"tile_x", {xb}}});
  space.apply = [conv, outputs, lanes, knobs = space.knobs](Schedule& sch, const Config& config) {
    apply_conv_nchw(sch, conv, outputs, knob_int(knobs, config, "tile_f"),
                    knob_int(knobs, config, "tile_x"), lanes);
  };
  return space;
}

}  // namespace lathe::topi
