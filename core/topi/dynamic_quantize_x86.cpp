// The x86 template of DynamicQuantizeLinear's group
// ("dynamic_quantize_linear.x86"). Its compute (quantize_compute.cpp) is two
// reductions of the whole input to a scalar (its min and max), two scalar
// stages (scale, zero point) and the elementwise quantization. The generic
// template leaves a reduction to a scalar as one scalar loop, which made a
// [64, 512] DynamicQuantizeLinear in DistilBERT cost 40 µs; here each
// reduction's innermost loop is split into 16 partial results (rfactor),
// computed in vectors and combined at the end (min and max are exact in any
// order), and the quantization runs in parallel over rows and in vectors
// along the last axis.
#include <algorithm>

#include "topi/dynamic_quantize_x86.h"
#include "topi/group_schedule.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;
using te::Tensor;

constexpr int64_t kLanes = 16;

// A reduction to a scalar: its innermost reduce loop split into kLanes
// partial results, a vectorized stage of its own.
void reduce_in_vectors(Schedule& s, const Tensor& t) {
  Stage st = s[t];
  const IterVar r = st.op().as_compute()->reduce_axis.back();
  const int64_t* extent = te::as_const_int(r->dom.extent);
  if (!extent || *extent % kLanes != 0) return;
  const IterVar inner = st.split(r, kLanes).second;
  const Tensor partial = s.rfactor(t, inner, 0);
  Stage ps = s[partial];
  std::vector<IterVar> order = ps.reduce_axis();
  const IterVar lane = ps.axis().back();
  order.push_back(lane);
  ps.reorder(order);
  ps.vectorize(lane);
}

// The elementwise quantization: rows in parallel, the last axis in vectors.
void quantize_in_vectors(Schedule& s, const Tensor& t) {
  Stage st = s[t];
  std::vector<IterVar> ax = st.axis();
  if (ax.empty()) return;
  if (ax.size() >= 2) {
    IterVar outer = ax[0];
    for (size_t i = 1; i + 1 < ax.size(); ++i) outer = st.fuse(outer, ax[i]);
    st.parallel(outer);
  }
  if (t.shape().back() % kLanes == 0) st.vectorize(st.split(ax.back(), kLanes).second);
}

SearchSpace dynamic_quantize_template(const Tensor& anchor, const std::vector<Tensor>& outputs,
                                      const VectorUnit&) {
  SearchSpace space;
  space.name = "dynamic_quantize_linear.x86";
  space.apply = [anchor, outputs](Schedule& s, const Config&) {
    // The reductions to a scalar, found from the outputs.
    std::vector<Tensor> stack(outputs.begin(), outputs.end()), reductions;
    OpSet seen;
    while (!stack.empty()) {
      Tensor t = stack.back();
      stack.pop_back();
      const te::ComputeOpNode* c = t.op().as_compute();
      if (!c || !seen.insert(t.op()).second) continue;
      if (c->axis.empty() && !c->reduce_axis.empty()) reductions.push_back(t);
      for (const Tensor& in : t.op().input_tensors()) stack.push_back(in);
    }
    for (const Tensor& r : reductions) reduce_in_vectors(s, r);
    for (const Tensor& out : outputs)
      if (!out.shape().empty()) quantize_in_vectors(s, out);
  };
  return space;
}

}  // namespace

void register_dynamic_quantize_template(OpStrategyRegistry& registry) {
  registry.define_template("DynamicQuantizeLinear", dynamic_quantize_template);
}

}  // namespace lathe::topi
