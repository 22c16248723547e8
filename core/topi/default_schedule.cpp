#include "topi/default_schedule.h"

namespace lathe::topi {

void apply_default_schedule(schedule::Schedule& sch) {
  for (schedule::Stage stage : sch.stages()) {
    const te::ComputeOpNode* c = stage.op().as_compute();
    if (!c) continue;
    bool reduction = !c->reduce_axis.empty();
    if (!stage.node().is_output && !reduction) {
      stage.compute_inline();
      continue;
    }
    std::vector<te::IterVar> axis = c->axis;
    if (axis.empty()) continue;
    // Innermost data axis in vectors when it divides evenly.
    te::IterVar inner = axis.back();
    int64_t extent = c->shape.back();
    te::IterVar lanes;
    if (extent % kDefaultVectorLanes == 0) {
      auto [o, i] = stage.split(inner, kDefaultVectorLanes);
      axis.back() = o;
      lanes = i;
    }
    // Reductions run inside the data loops, vector lanes innermost.
    if (reduction) {
      std::vector<te::IterVar> order = axis;
      order.insert(order.end(), c->reduce_axis.begin(), c->reduce_axis.end());
      if (lanes.defined()) order.push_back(lanes);
      stage.reorder(order);
    }
    // Outer data axes fused into one parallel loop.
    te::IterVar outer = axis[0];
    for (size_t i = 1; i + 1 < axis.size(); ++i) outer = stage.fuse(outer, axis[i]);
    stage.parallel(outer);
    if (lanes.defined()) stage.vectorize(lanes);
  }
}

}  // namespace lathe::topi
