#include "topi/generic_template.h"

#include <algorithm>

#include "support/int_math.h"
#include "te/expr_functor.h"
#include "tir/arith/simplify.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// Stages the generic schedule tiles: outputs and reductions (the rest inline).
bool kept_at_root(const Stage& st) {
  const te::ComputeOpNode* c = st.op().as_compute();
  return c && (st.node().is_output || !c->reduce_axis.empty());
}

bool is_reduction(const Stage& st) {
  return !st.op().as_compute()->reduce_axis.empty();
}

// Whether the stage's innermost reduce loop walks some input along its
// contiguous axis (the last index of a read is that loop's variable) while no
// read is contiguous along the innermost data axis: rows reduced along their
// length, as softmax and layer norm do. Vectors over the data axis would
// gather there, one element per row; vectors along the row need an rfactor.
bool reduces_along_rows(const Stage& st) {
  const te::ComputeOpNode* c = st.op().as_compute();
  if (c->reduce_axis.empty()) return false;
  const te::Var r = c->reduce_axis.back().var();
  const te::Var inner = c->axis.empty() ? te::Var() : c->axis.back().var();
  bool along_reduce = false, along_data = false;
  te::visit_expr(c->body, [&](const te::Expr& e) {
    const auto* load = e.as<te::ProducerLoadNode>();
    if (!load || load->indices.empty()) return;
    along_reduce |= load->indices.back().same_as(r);
    along_data |= inner.defined() && load->indices.back().same_as(inner);
  });
  return along_reduce && !along_data;
}

// A stage's body with the ops in `inlined` substituted at their reads: the
// loads lowering will emit, whose indices say which input a stage gathers.
class InlinedReads : public te::ExprMutator {
 public:
  explicit InlinedReads(std::vector<te::Operation> inlined) : inlined_(std::move(inlined)) {}

 protected:
  te::Expr visit_producer_load(const te::ProducerLoadNode* n, const te::Expr& e) override {
    const te::Expr base = te::ExprMutator::visit_producer_load(n, e);
    const auto* load = base.as<te::ProducerLoadNode>();
    for (const te::Operation& op : inlined_) {
      if (!op.same_as(load->producer)) continue;
      const te::ComputeOpNode* c = op.as_compute();
      te::VarMap<te::Expr> map;
      for (size_t i = 0; i < c->axis.size(); ++i) map[c->axis[i].var()] = load->indices[i];
      return mutate(te::substitute(c->body, map));  // it may read inlined ops itself
    }
    return base;
  }

 private:
  std::vector<te::Operation> inlined_;
};

// The ops of `sch` inlined so far.
std::vector<te::Operation> inlined_ops(Schedule& sch) {
  std::vector<te::Operation> ops;
  for (Stage st : sch.stages())
    if (st.node().attach_type == schedule::AttachType::Inline) ops.push_back(st.op());
  return ops;
}

// Where an injective stage transposes: an input's contiguous index follows
// a data axis `a` other than the stage's innermost (the innermost such axis
// where it follows several), while the innermost walks
// another index of that input (NCHW{b}c -> NCHW: the output's rows run along
// w, the input's lines along c % b). Vectors over the innermost axis then
// gather one element from each cache line, and the line's other elements
// belong to other iterations of `a`, which the plain order puts a whole
// output plane apart: each line comes from the next cache level once per
// element. A tile of `block` iterations of `a` just outside the vectors uses
// every element of the lines it gathers. `block` is the modulus when the
// index is `a % m`, else the elements of a 64-byte line (or fewer, where they
// divide a's extent). `body` is the stage's body with its inlined producers
// substituted (InlinedReads): a transpose of a layout transform may read its
// source along the lines after all.
struct TransposeTile {
  int axis = -1;  // -1: the stage does not transpose
  int64_t block = 0;
};

TransposeTile transpose_tile(const te::ComputeOpNode* c, const te::Expr& body) {
  TransposeTile tile;
  if (c->axis.size() < 2 || !c->reduce_axis.empty()) return tile;
  const te::Var inner = c->axis.back().var();
  // Indices simplified over the axes' extents: a reshape's row-major
  // flattening names every axis, (t * 576 + k) % 576 only k.
  arith::BoundMap bounds;
  for (size_t i = 0; i < c->axis.size(); ++i)
    bounds[c->axis[i].var()] = arith::IntBounds::from_extent(0, c->shape[i]);
  bool contiguous_read = false;  // some input is read along its lines by the vectors
  te::visit_expr(body, [&](const te::Expr& e) {
    const auto* load = e.as<te::ProducerLoadNode>();
    if (!load || load->indices.empty()) return;
    std::vector<te::Expr> indices;
    for (const te::Expr& index : load->indices) indices.push_back(arith::simplify(index, bounds));
    const te::Expr& last = indices.back();
    if (te::uses_var(last, inner)) {
      contiguous_read = true;
      return;
    }
    bool inner_elsewhere = false;
    for (size_t i = 0; i + 1 < indices.size(); ++i)
      inner_elsewhere |= te::uses_var(indices[i], inner);
    if (!inner_elsewhere || tile.axis >= 0) return;
    // Where the index mixes several axes (a reshape's row-major flattening),
    // the innermost of them moves along the line.
    int axis = -1;
    for (size_t i = 0; i + 1 < c->axis.size(); ++i)
      if (te::uses_var(last, c->axis[i].var())) axis = static_cast<int>(i);
    if (axis < 0) return;
    const int64_t extent = c->shape[static_cast<size_t>(axis)];
    int64_t block = 0;
    const auto* mod = last.as<te::BinaryNode>();
    if (mod && last.kind() == te::ExprKind::Mod) {
      const int64_t* m = te::as_const_int(mod->b);
      if (m && *m > 1 && extent % *m == 0) block = *m;
    } else {
      const int64_t line = std::max<int64_t>(1, 64 / std::max(1, load->type.bytes()));
      for (int64_t b = line; b > 1 && !block; b /= 2)
        if (extent % b == 0) block = b;
    }
    if (block > 1) tile = {axis, block};
  });
  // A stage that also streams an input along the vectors (a transposed
  // residual added to a row-major one) keeps the plain order: the tile would
  // cut that input's rows into strided pieces, and measured slower.
  if (contiguous_read) return {};
  return tile;
}

// Whether a loop of `extent` splits into vectors of `lanes`: where they
// divide it, or where it holds at least two of them, the rest a scalar tail
// (loop partitioning peels it off: 197 = 12 x 16 + 5).
bool splits_into_vectors(int64_t extent, int64_t lanes) {
  return extent % lanes == 0 || extent >= 2 * lanes;
}

// What the space's options are made from: the shapes of the stages it tiles.
struct GroupShape {
  std::vector<std::vector<int64_t>> injective, reduction;  // stage shapes
  bool small_reduce = false;         // some reduce loop is at most kSmallReduceExtent
  bool transposes = false;           // some injective stage has a transpose_tile
  std::vector<int64_t> last_reduce;  // each reduction's innermost reduce extent
  std::vector<int64_t> row_reduce;   // those of reductions along rows (reduces_along_rows)
};

GroupShape group_shape(const std::vector<te::Tensor>& outputs) {
  std::vector<te::Operation> ops;
  for (const te::Tensor& t : outputs) ops.push_back(t.op());
  Schedule probe(ops);
  GroupShape g;
  std::vector<te::Operation> inlined;  // as the template's apply will inline them
  for (Stage st : probe.stages())
    if (st.op().as_compute() && !kept_at_root(st)) inlined.push_back(st.op());
  InlinedReads reads(std::move(inlined));
  for (Stage st : probe.stages()) {
    if (!kept_at_root(st) || st.op()->shape.empty()) continue;
    (is_reduction(st) ? g.reduction : g.injective).push_back(st.op()->shape);
    g.transposes |=
        !is_reduction(st) && splits_into_vectors(st.op()->shape.back(), 4) &&
        transpose_tile(st.op().as_compute(), reads.mutate(st.op().as_compute()->body)).axis >= 0;
    for (const IterVar& r : st.reduce_axis()) {
      const int64_t* extent = te::as_const_int(r->dom.extent);
      if (extent && *extent <= kSmallReduceExtent) g.small_reduce = true;
      if (extent && r.same_as(st.reduce_axis().back())) {
        g.last_reduce.push_back(*extent);
        if (reduces_along_rows(st)) g.row_reduce.push_back(*extent);
      }
    }
  }
  return g;
}

struct GenericKnobs {
  StageKnobs stage;
  int64_t rfactor_lanes = 0;  // 0: reductions stay whole
};

GenericKnobs decode(const std::vector<Knob>& knobs, const Config& config) {
  GenericKnobs g;
  StageKnobs& k = g.stage;
  auto has = [&](const char* name) {
    return std::any_of(knobs.begin(), knobs.end(), [&](const Knob& x) { return x.name == name; });
  };
  k.vector_lanes = knob_int(knobs, config, "vector_lanes");
  k.parallel_axes = static_cast<int>(knob_int(knobs, config, "parallel_axes"));
  if (has("unroll_inner")) k.unroll_inner = knob_int(knobs, config, "unroll_inner");
  k.transpose_tile = !has("transpose_tile") || knob_int(knobs, config, "transpose_tile") != 0;
  if (has("unroll_reduce")) k.unroll_reduce = knob_int(knobs, config, "unroll_reduce") != 0;
  if (has("reduce_outer")) k.reduce_outer = knob_int(knobs, config, "reduce_outer") != 0;
  if (has("rfactor_lanes")) g.rfactor_lanes = knob_int(knobs, config, "rfactor_lanes");
  return g;
}

// A reduction whose innermost reduce loop splits into `lanes` split into a
// stage of `lanes` partial results per output (the loop's inner part as a
// vectorized data axis, as TVM's rfactor schedules of row reductions), which
// the stage then combines: vectors even where the reduction runs along the
// input's contiguous axis.
void rfactor_in_vectors(Schedule& sch, Stage st, int64_t lanes, int parallel_axes) {
  const te::ComputeOpNode* c = st.op().as_compute();
  const IterVar r = c->reduce_axis.back();
  const int64_t* extent = te::as_const_int(r->dom.extent);
  if (!extent || !splits_into_vectors(*extent, lanes)) return;
  const IterVar inner = st.split(r, lanes).second;
  te::Tensor rf = sch.rfactor(te::Tensor(st.op()), inner, static_cast<int>(c->axis.size()));
  Stage rs = sch[rf];
  std::vector<IterVar> axis = rs.axis(), order = axis;
  order.pop_back();
  for (const IterVar& k : rs.reduce_axis()) order.push_back(k);
  order.push_back(axis.back());
  rs.reorder(order);
  const int depth = std::min(parallel_axes, static_cast<int>(axis.size()) - 1);
  if (depth > 0) {
    IterVar fused = axis[0];
    for (int i = 1; i < depth; ++i) fused = rs.fuse(fused, axis[static_cast<size_t>(i)]);
    rs.parallel(fused);
  }
  rs.vectorize(axis.back());
}

}  // namespace

void schedule_root_stage(Schedule& sch, Stage st, const StageKnobs& k) {
  const te::ComputeOpNode* c = st.op().as_compute();
  if (!c || c->axis.empty() || st.node().attach_type != schedule::AttachType::Root) return;
  const bool reduction = !c->reduce_axis.empty();
  std::vector<IterVar> axis = c->axis;
  int64_t inner_extent = c->shape.back();
  IterVar lanes, unrolled;
  if (k.vector_lanes > 1 && splits_into_vectors(inner_extent, k.vector_lanes)) {
    auto [o, i] = st.split(axis.back(), k.vector_lanes);
    axis.back() = o;
    lanes = i;
    inner_extent = ceildiv(inner_extent, k.vector_lanes);
  }
  // A transposing stage (transpose_tile) runs a block of the axis its
  // input's lines follow between the outer loops and the vectors, unrolled.
  // Only where the innermost axis is in vectors: the gathers are what it
  // saves, and short scalar rows (NCHW -> NCHW2c) measured slower tiled.
  IterVar tile;
  if (!reduction && k.transpose_tile && lanes.defined()) {
    const TransposeTile t = transpose_tile(c, InlinedReads(inlined_ops(sch)).mutate(c->body));
    if (t.axis >= 0) {
      auto [o, i] = st.split(axis[static_cast<size_t>(t.axis)], t.block);
      axis[static_cast<size_t>(t.axis)] = o;
      tile = i;
      std::vector<IterVar> order = axis;
      order.push_back(tile);
      if (lanes.defined()) order.push_back(lanes);
      st.reorder(order);
    }
  }
  if (!reduction && !tile.defined() && k.unroll_inner > 1 && inner_extent % k.unroll_inner == 0) {
    auto [o, i] = st.split(axis.back(), k.unroll_inner);
    axis.back() = o;
    unrolled = i;
  }
  // Reductions run inside the data loops (all of them, or all but the
  // innermost when reduce_outer), vector lanes innermost.
  if (reduction) {
    const bool outer = k.reduce_outer && axis.size() > 1;
    std::vector<IterVar> order(axis.begin(), axis.end() - (outer ? 1 : 0));
    order.insert(order.end(), c->reduce_axis.begin(), c->reduce_axis.end());
    if (outer) order.push_back(axis.back());
    if (lanes.defined()) order.push_back(lanes);
    st.reorder(order);
  }
  // Outer data axes fused into one parallel loop; the innermost stays out of
  // it unless it is the only one.
  const int depth = std::min(k.parallel_axes, std::max(1, static_cast<int>(axis.size()) - 1));
  if (depth > 0) {
    IterVar fused = axis[0];
    for (int i = 1; i < depth; ++i) fused = st.fuse(fused, axis[static_cast<size_t>(i)]);
    st.parallel(fused);
  }
  if (lanes.defined()) st.vectorize(lanes);
  if (unrolled.defined()) st.unroll(unrolled);
  if (tile.defined()) st.unroll(tile);
  if (reduction && k.unroll_reduce) {
    for (const IterVar& r : c->reduce_axis) {
      const int64_t* extent = te::as_const_int(r->dom.extent);
      if (extent && *extent <= kSmallReduceExtent) st.unroll(r);
    }
  }
}

void schedule_remaining(Schedule& sch, const OpSet& done, int64_t vector_lanes) {
  StageKnobs knobs;
  knobs.vector_lanes = vector_lanes;
  for (Stage st : sch.stages()) {
    if (done.count(st.op()) || done.count(st.node().origin_op)) continue;
    schedule_root_stage(sch, st, knobs);
  }
}

SearchSpace generic_template(const te::Tensor& /*anchor*/, const std::vector<te::Tensor>& outputs,
                             const VectorUnit& vector_unit) {
  const GroupShape g = group_shape(outputs);
  std::vector<std::vector<int64_t>> shapes = g.injective;
  shapes.insert(shapes.end(), g.reduction.begin(), g.reduction.end());

  SearchSpace space;
  space.name = g.reduction.empty() ? "injective.x86" : "reduction.x86";
  // Vector widths some stage's innermost axis splits into; one register of
  // the target (16 float32 lanes on AVX-512, 8 on AVX2, 4 on SSE), the
  // default, only then (where none does, the default is scalar: 1).
  const int64_t register_lanes = vector_unit.lanes();
  std::vector<int64_t> lanes = {1};
  for (int64_t v : {4, 8, 16})
    if (std::any_of(shapes.begin(), shapes.end(),
                    [&](const auto& s) { return splits_into_vectors(s.back(), v); }))
      lanes.push_back(v);
  int max_depth = 0;
  for (const auto& s : shapes) max_depth = std::max(max_depth, std::max(1, int(s.size()) - 1));
  std::vector<int64_t> depths;
  for (int d = 0; d <= max_depth; ++d) depths.push_back(d);
  space.knobs = {choice_knob("vector_lanes", lanes), choice_knob("parallel_axes", depths)};
  std::vector<std::pair<std::string, std::vector<int64_t>>> defaults = {
      {"vector_lanes",
       {std::count(lanes.begin(), lanes.end(), register_lanes) ? register_lanes : 1}},
      {"parallel_axes", {max_depth}}};

  // Unroll factors that divide some injective stage's innermost loop for some
  // vector width.
  if (!g.injective.empty()) {
    std::vector<int64_t> unrolls = {1};
    for (int64_t u : {2, 4, 8}) {
      bool fits = false;
      for (const auto& s : g.injective)
        for (int64_t v : lanes) fits |= (s.back() % v == 0 ? s.back() / v : s.back()) % u == 0;
      if (fits) unrolls.push_back(u);
    }
    space.knobs.push_back(choice_knob("unroll_inner", unrolls));
    defaults.push_back({"unroll_inner", {1}});
  }
  if (g.transposes) {
    space.knobs.push_back(choice_knob("transpose_tile", {0, 1}));
    defaults.push_back({"transpose_tile", {1}});
  }
  std::vector<int64_t> rfactors = {0};
  for (int64_t v : {4, 8, 16})
    if (std::any_of(g.last_reduce.begin(), g.last_reduce.end(),
                    [&](int64_t e) { return splits_into_vectors(e, v); }))
      rfactors.push_back(v);
  // Rows reduced along their length split into one register of partial
  // sums by default (the widest such split up to the register's lanes that
  // every such row splits into), the short combining loop unrolled.
  int64_t row_rfactor = 0;
  for (int64_t v : rfactors)
    if (v > 0 && v <= register_lanes && !g.row_reduce.empty() &&
        std::all_of(g.row_reduce.begin(), g.row_reduce.end(),
                    [&](int64_t e) { return splits_into_vectors(e, v); }))
      row_rfactor = v;
  if (rfactors.size() > 1) {
    space.knobs.push_back(choice_knob("rfactor_lanes", rfactors));
    defaults.push_back({"rfactor_lanes", {row_rfactor}});
  }
  // After rfactor the combining stage's reduce loop is short too.
  if (g.small_reduce || rfactors.size() > 1) {
    space.knobs.push_back(choice_knob("unroll_reduce", {0, 1}));
    defaults.push_back({"unroll_reduce", {row_rfactor > 0 ? 1 : 0}});
  }
  if (std::any_of(g.reduction.begin(), g.reduction.end(),
                  [](const auto& s) { return s.size() > 1 && s.back() > 1; })) {
    space.knobs.push_back(choice_knob("reduce_outer", {0, 1}));
    defaults.push_back({"reduce_outer", {0}});
  }
  space.default_config = require_config(space, defaults);
  space.apply = [knobs = space.knobs](Schedule& sch, const Config& config) {
    const GenericKnobs k = decode(knobs, config);
    for (Stage st : sch.stages()) {
      if (!st.op().as_compute()) continue;
      if (!kept_at_root(st)) {
        st.compute_inline();
        continue;
      }
      if (is_reduction(st) && k.rfactor_lanes > 0)
        rfactor_in_vectors(sch, st, k.rfactor_lanes, k.stage.parallel_axes);
      schedule_root_stage(sch, st, k.stage);
    }
  };
  return space;
}

}  // namespace lathe::topi
