#include "topi/group_schedule.h"

#include <algorithm>
#include <deque>
#include <functional>

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// The group output that computes the anchor tile by tile: one of the anchor's
// shape other than the anchor itself (the fused epilogue's last stage).
te::Tensor epilogue_output(const std::vector<te::Tensor>& outputs, const te::Tensor& reduction) {
  if (is_output(outputs, reduction)) return te::Tensor();
  for (const te::Tensor& o : outputs)
    if (o.shape() == reduction.shape() && o.op().as_compute() &&
        o.op().as_compute()->reduce_axis.empty())
      return o;
  return te::Tensor();
}

// Inlines every injective stage that is neither an output nor in `keep`.
void inline_injective(Schedule& sch, const OpSet& keep) {
  for (Stage st : sch.stages()) {
    const te::ComputeOpNode* c = st.op().as_compute();
    if (!c || st.node().is_output || !c->reduce_axis.empty() || keep.count(st.op()) ||
        keep.count(st.node().origin_op))
      continue;
    st.compute_inline();
  }
}

// The stages between the reduction and the epilogue output `out` (both
// excluded), consumers first. compute_at needs the tile loops' stage to read
// the reduction directly or through attached stages, so these stay stages of
// their own, attached tile by tile, instead of being inlined.
std::vector<te::Tensor> epilogue_path(const te::Tensor& reduction, const te::Tensor& out) {
  std::vector<te::Tensor> path;
  if (!out.defined()) return path;
  OpSet seen, on_path;
  std::function<bool(const te::Tensor&)> reaches = [&](const te::Tensor& t) {
    if (t.op().same_as(reduction.op())) return true;
    if (!t.op().as_compute()) return false;
    if (seen.count(t.op())) return on_path.count(t.op()) > 0;
    seen.insert(t.op());
    bool any = false;
    for (const te::Tensor& in : t.op().input_tensors()) any |= reaches(in);
    if (any) {
      on_path.insert(t.op());
      if (!t.op().same_as(out.op())) path.push_back(t);
    }
    return any;
  };
  reaches(out);
  std::reverse(path.begin(), path.end());  // post-order is producers first
  return path;
}

}  // namespace

const std::string& tag_of(const te::Tensor& t) {
  static const std::string none;
  const te::ComputeOpNode* c = t.op().as_compute();
  return c ? c->tag : none;
}

te::Tensor find_tagged(const te::Tensor& anchor, std::initializer_list<std::string_view> tags) {
  std::deque<te::Tensor> queue = {anchor};
  OpSet seen;
  while (!queue.empty()) {
    te::Tensor t = queue.front();
    queue.pop_front();
    if (!t.op().as_compute() || !seen.insert(t.op()).second) continue;
    for (std::string_view tag : tags)
      if (tag_of(t) == tag) return t;
    for (const te::Tensor& in : t.op().input_tensors()) queue.push_back(in);
  }
  return te::Tensor();
}

bool is_output(const std::vector<te::Tensor>& outputs, const te::Tensor& t) {
  for (const te::Tensor& o : outputs)
    if (o.op().same_as(t.op())) return true;
  return false;
}

int64_t reduce_extent(const te::Tensor& t, size_t index) {
  const te::ComputeOpNode* c = t.op().as_compute();
  if (!c || index >= c->reduce_axis.size()) return 1;
  const int64_t* extent = te::as_const_int(c->reduce_axis[index]->dom.extent);
  return extent ? *extent : 1;
}

void schedule_pad(Stage pad, bool vector_inner) {
  std::vector<IterVar> axis = pad.axis();
  IterVar outer = axis[0];
  for (size_t i = 1; i + 2 < axis.size(); ++i) outer = pad.fuse(outer, axis[i]);
  pad.parallel(outer);
  if (vector_inner && pad.op()->shape.back() > 1) pad.vectorize(axis.back());
}

void vectorize_pixel_blocks(Stage out, const IterVar& ow_inner, int64_t pixels,
                            const IterVar& block) {
  const int64_t lanes = pixels % 4 == 0 ? 4 : pixels % 2 == 0 ? 2 : 1;
  auto [ow_vectors, ow_lanes] = out.split(ow_inner, lanes, "ow_vectors", "ow_lanes");
  out.vectorize(out.fuse(ow_lanes, block));
  out.unroll(ow_vectors);
}

TileStages tile_stages(Schedule& sch, const te::Tensor& reduction,
                       const std::vector<te::Tensor>& outputs, OpSet& done) {
  te::Tensor out = epilogue_output(outputs, reduction);
  TileStages t;
  t.path = epilogue_path(reduction, out);
  for (const te::Tensor& p : t.path) done.insert(p.op());
  inline_injective(sch, done);
  if (out.defined()) {
    t.loops = sch[out];
    t.acc = sch[reduction];
  } else {
    te::Tensor cc = sch.cache_write(reduction, "local");
    t.loops = sch[reduction];
    t.acc = sch[cc];
    done.insert(cc.op());
  }
  done.insert(t.loops.op());
  done.insert(reduction.op());
  return t;
}

void attach_path(const std::vector<te::Tensor>& path, Schedule& sch, Stage loops, const IterVar& at,
                 int64_t vector_lanes) {
  for (const te::Tensor& t : path) {
    Stage st = sch[t];
    st.compute_at(loops, at);
    if (t.shape().back() <= 1) continue;
    if (vector_lanes > 0)
      st.vectorize(st.split(st.axis().back(), vector_lanes, "lanes_outer", "lanes").second);
    else
      st.vectorize(st.axis().back());
  }
}

}  // namespace lathe::topi
