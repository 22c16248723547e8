#include "tir/transform/schedule_ops.h"

#include <set>
#include <unordered_set>

#include "schedule/tensorize_match.h"
#include "support/error.h"
#include "te/expr_functor.h"
#include "te/tensor_intrinsic.h"
#include "tir/arith/prove.h"
#include "tir/transform/inject_prefetch.h"
#include "tir/transform/thread_allreduce.h"

namespace lathe::tir {
namespace {

using schedule::AttachType;
using schedule::LoopAnnotation;

class NestBuilder {
 public:
  NestBuilder(const std::vector<StageInfo>& stages, const IterVarRanges& ranges)
      : stages_(stages), ranges_(ranges) {
    te::VarMap<te::Range> loops;
    for (const auto& [iv, range] : ranges) loops[iv.var()] = range;
    loop_bounds_ = arith::bounds_of_ranges(loops);
    for (const StageInfo& info : stages)
      if (info.stage->attach_type == AttachType::Scope) attached_.insert(info.stage->op);
  }

  Stmt build() {
    Stmt rest;
    for (auto it = stages_.rbegin(); it != stages_.rend(); ++it) {
      if (it->stage->attach_type != AttachType::Root) continue;
      Stmt nest = stage_nest(*it);
      rest = it->stage->is_output ? make_seq({nest, rest}) : realize(*it, make_seq({nest, rest}));
    }
    return rest;
  }

 private:
  Stmt realize(const StageInfo& info, Stmt body) {
    const te::ComputeOpNode* c = info.stage->op.as_compute();
    std::vector<te::Range> bounds;
    for (const IterVar& iv : c->axis) bounds.push_back(ranges_.at(iv));
    return make_producer_realize(info.stage->op, bounds, std::move(body), info.stage->scope);
  }

  // Statements of the stages attached at `leaf` of `stage`, wrapping `body`.
  Stmt wrap_attached(const StageRef& stage, const IterVar& leaf, Stmt body) {
    for (auto it = stages_.rbegin(); it != stages_.rend(); ++it) {
      const StageRef& p = it->stage;
      if (p->attach_type != AttachType::Scope || p->attach_stage.lock() != stage ||
          !p->attach_ivar.same_as(leaf))
        continue;
      body = realize(*it, make_seq({stage_nest(*it), body}));
    }
    return body;
  }

  Stmt make_loop(const StageRef& stage, const IterVar& leaf, Stmt body) {
    ForKind kind = ForKind::Serial;
    std::string tag;
    const schedule::IterVarAttr* attr = nullptr;
    if (auto it = stage->attrs.find(leaf); it != stage->attrs.end()) attr = &it->second;
    if (attr) {
      switch (attr->annotation) {
        case LoopAnnotation::Parallel:
          kind = ForKind::Parallel;
          break;
        case LoopAnnotation::Vectorize:
          kind = ForKind::Vectorized;
          break;
        case LoopAnnotation::Unroll:
          kind = ForKind::Unrolled;
          break;
        case LoopAnnotation::Bind:
          kind = ForKind::ThreadBinding;
          tag = attr->thread_tag;
          break;
        case LoopAnnotation::Tensorize:  // only the init's loops over it are made
        case LoopAnnotation::None:
          break;
      }
    }
    // Loops run from zero; a root variable's min is added in root_values().
    const te::Range& r = ranges_.at(leaf);
    Stmt loop = make_for(leaf.var(), te::make_int(0, leaf.var().type()), r.extent, kind,
                         std::move(body), tag);
    if (attr) {
      for (const auto& [key, value] : attr->pragmas) loop = make_attr("pragma_" + key, value, loop);
      for (const schedule::PrefetchSpec& p : attr->prefetches)
        loop = mark_prefetch(p.tensor, p.offset, loop);
    }
    return loop;
  }

  // Loops over `leaves` (outermost first) around `body`, with attached stages.
  Stmt nest(const StageRef& stage, const std::vector<IterVar>& leaves, Stmt body,
            bool with_attached) {
    for (auto it = leaves.rbegin(); it != leaves.rend(); ++it) {
      if (with_attached) body = wrap_attached(stage, *it, body);
      body = make_loop(stage, *it, body);
    }
    return body;
  }

  static Stmt guard(const std::vector<Expr>& conditions, Stmt body) {
    if (conditions.empty()) return body;
    Expr cond = conditions[0];
    for (size_t i = 1; i < conditions.size(); ++i) cond = cond && conditions[i];
    return make_if(cond, std::move(body));
  }

  // TVM's MakeBoundCheck: an attached stage computes the region its consumer
  // reads at the attach point, which a consumer split that does not divide
  // its axis (197 rows in tiles of 4) pushes past the stage's own domain.
  // Where a point out there would read an input out of bounds, the stage
  // skips it (the consumer's own guard never reads it). Where every read
  // stays in bounds (a column tile that reads a padded panel) the stage
  // computes the whole tile into its buffer, which the region sizes, and the
  // loop stays a vector loop.
  void add_domain_guards(const StageRef& stage, const te::ComputeOpNode& c, const Expr& body,
                         const te::VarMap<Expr>& roots, std::vector<Expr>& guards) const {
    if (stage->attach_type != AttachType::Scope) return;
    for (const IterVar& iv : c.axis) {
      const te::Range& inferred = ranges_.at(iv);
      const Expr lo = iv->dom.min, hi = iv->dom.min + iv->dom.extent;
      const bool below = !arith::can_prove(inferred.min >= lo, loop_bounds_);
      const bool above = !arith::can_prove(inferred.min + inferred.extent <= hi, loop_bounds_);
      if ((!below && !above) || reads_in_bounds_past(c, iv, body, roots)) continue;
      if (below) guards.push_back(roots.at(iv.var()) >= lo);
      if (above) guards.push_back(roots.at(iv.var()) < hi);
    }
  }

  // Whether the body's reads stay in bounds while `axis` runs over its
  // inferred region and every other data axis within its own domain.
  bool reads_in_bounds_past(const te::ComputeOpNode& c, const IterVar& axis, const Expr& body,
                            const te::VarMap<Expr>& roots) const {
    te::VarMap<Expr> values = roots;
    arith::BoundMap bounds = loop_bounds_;
    for (const IterVar& iv : c.axis) {
      if (iv.same_as(axis)) continue;
      const int64_t* min = te::as_const_int(iv->dom.min);
      const int64_t* extent = te::as_const_int(iv->dom.extent);
      if (!min || !extent) return false;
      const te::Var inside(iv.var().name() + "_in_domain", iv.var().type());
      values[iv.var()] = inside;
      bounds[inside] = arith::IntBounds::from_extent(*min, *extent);
    }
    return reads_in_bounds(te::substitute(body, values), bounds);
  }

  // Whether every tensor read of `body` (in loop variables) is provably within
  // its tensor's shape. An attached stage's buffer holds the region its
  // readers read (bound inference sized it so), whatever its shape.
  bool reads_in_bounds(const Expr& body, const arith::BoundMap& bounds) const {
    bool in_bounds = true;
    te::visit_expr(body, [&](const Expr& e) {
      const auto* load = e.as<te::ProducerLoadNode>();
      if (!load || !in_bounds || attached_.count(load->producer)) return;
      const std::vector<int64_t>& shape = load->producer->shape;
      for (size_t d = 0; d < load->indices.size() && in_bounds; ++d)
        in_bounds = d < shape.size() &&
                    arith::const_bounds(load->indices[d], bounds).within(0, shape[d] - 1);
    });
    return in_bounds;
  }

  // In a kernel, a 'local' buffer, and an intermediate one computed inside
  // the thread loops, is each thread's own: a data loop of its stage bound
  // to a thread or block index would leave each thread filling only its
  // share of its own copy, and reading the rest unwritten. (A reduce loop
  // bound to threads is a cross-thread reduction, which every thread's copy
  // receives whole; an intermediate at the root is the verifier's to refuse.)
  static void check_per_thread_binds(const StageRef& stage) {
    if (stage->is_output || stage->scope == "shared") return;
    if (stage->scope != "local" && stage->attach_type != AttachType::Scope) return;
    for (const IterVar& leaf : stage->leaf_iter_vars) {
      auto it = stage->attrs.find(leaf);
      if (leaf->kind == te::IterVarKind::CommReduce || it == stage->attrs.end() ||
          it->second.annotation != LoopAnnotation::Bind || it->second.thread_tag == "vthread")
        continue;
      throw schedule::ScheduleError(
          str("stage '", stage->op->name, "' binds its loop '", leaf.name(), "' to ",
              it->second.thread_tag, ", but its buffer (scope '", stage->scope,
              "') is each thread's own: each thread would fill only its share of its copy; make ",
              "it a 'shared' cache to fill it together, or leave its data loops unbound"));
    }
  }

  // A reduction into 'shared' memory attached inside a loop bound to a
  // thread index, whose own loops do not bind that index again, is run
  // whole by every thread of the block: all of them would add into the same
  // elements at once.
  static void check_shared_reduction(const StageInfo& info) {
    const StageRef& stage = info.stage;
    if (stage->scope != "shared" || !info.body.as<te::ReduceNode>()) return;
    auto bound_tag = [](const StageRef& s, const IterVar& leaf) -> std::string {
      auto it = s->attrs.find(leaf);
      if (it == s->attrs.end() || it->second.annotation != LoopAnnotation::Bind) return "";
      return it->second.thread_tag;
    };
    std::set<std::string> own;
    for (const IterVar& leaf : stage->leaf_iter_vars) own.insert(bound_tag(stage, leaf));
    for (StageRef cur = stage; cur->attach_type == AttachType::Scope;) {
      StageRef parent = cur->attach_stage.lock();
      if (!parent) break;
      for (const IterVar& leaf : parent->leaf_iter_vars) {
        const std::string tag = bound_tag(parent, leaf);
        if (tag.rfind("threadIdx.", 0) == 0 && !own.count(tag))
          throw schedule::ScheduleError(
              str("stage '", stage->op->name, "' accumulates into 'shared' memory inside loop '",
                  leaf.name(), "' of '", parent->op->name, "', bound to ", tag,
                  ", without binding a loop of its own to ", tag,
                  ": every thread of the block would add into the same elements; bind its data ",
                  "loops to ", tag, " (each thread its share), or make it 'local'"));
        if (leaf.same_as(cur->attach_ivar)) break;
      }
      cur = parent;
    }
  }

  Stmt stage_nest(const StageInfo& info) {
    const StageRef& stage = info.stage;
    check_per_thread_binds(stage);
    check_shared_reduction(info);
    const te::ComputeOpNode* c = stage->op.as_compute();
    te::VarMap<Expr> roots = root_values(stage, ranges_);
    SplitGuards guards = split_guards(stage, ranges_);
    add_domain_guards(stage, *c, info.body, roots, guards.data);
    std::vector<Expr> index;
    for (const IterVar& iv : c->axis) index.push_back(roots.at(iv.var()));
    const auto* reduce = info.body.as<te::ReduceNode>();
    const std::vector<IterVar>& leaves = stage->leaf_iter_vars;
    if (!reduce) {
      Stmt store = make_producer_store(stage->op, te::substitute(info.body, roots), index);
      return nest(stage, leaves, guard(guards.data, store), true);
    }
    // Reduction: the init runs just outside the first reduction loop, over the
    // data loops that the reduction loops enclose.
    size_t first_reduce = leaves.size();
    for (size_t i = 0; i < leaves.size(); ++i)
      if (leaves[i]->kind == te::IterVarKind::CommReduce) {
        first_reduce = i;
        break;
      }
    std::vector<IterVar> outer(leaves.begin(), leaves.begin() + static_cast<long>(first_reduce));
    std::vector<IterVar> inner(leaves.begin() + static_cast<long>(first_reduce), leaves.end());
    std::vector<IterVar> init_loops;
    for (const IterVar& v : inner)
      if (v->kind != te::IterVarKind::CommReduce) init_loops.push_back(v);

    if (const IterVar* bound = thread_reduce_leaf(stage))
      return cross_thread_nest(info, *bound, roots, guards, index, *reduce);
    te::DataType t = stage->op->dtype;
    Stmt init = make_producer_store(stage->op, te::reducer_identity(reduce->combiner, t), index);
    if (const IterVar* at = tensorized_leaf(stage))
      return tensorized_nest(info, *at, roots, guards, index, init, first_reduce);
    init = nest(stage, init_loops, guard(guards.data, init), false);

    Expr source = te::substitute(reduce->source, roots);
    Expr current = Tensor(stage->op)(index);
    Stmt update = make_producer_store(
        stage->op, te::reducer_combine(reduce->combiner, current, source), index);
    std::vector<Expr> conditions = guards.data;
    conditions.insert(conditions.end(), guards.reduce.begin(), guards.reduce.end());
    if (reduce->condition.defined()) conditions.push_back(te::substitute(reduce->condition, roots));
    update = nest(stage, inner, guard(conditions, update), true);
    return nest(stage, outer, make_seq({init, update}), true);
  }

  // The reduce loop bound to a thread index, if any (a cross-thread reduction).
  static const IterVar* thread_reduce_leaf(const StageRef& stage) {
    const IterVar* found = nullptr;
    for (const IterVar& leaf : stage->leaf_iter_vars) {
      auto it = stage->attrs.find(leaf);
      if (leaf->kind != te::IterVarKind::CommReduce || it == stage->attrs.end() ||
          it->second.annotation != LoopAnnotation::Bind)
        continue;
      if (found)
        throw schedule::ScheduleError(
            str("stage '", stage->op->name, "': reduce loops '", (*found).name(), "' and '",
                leaf.name(), "' are both bound to threads; fuse them into one before binding"));
      if (it->second.thread_tag != "threadIdx.x" && it->second.thread_tag != "threadIdx.y")
        throw schedule::ScheduleError(
            str("stage '", stage->op->name, "': reduce loop '", leaf.name(), "' is bound to ",
                it->second.thread_tag,
                "; a cross-thread reduction runs over threadIdx.x or threadIdx.y"));
      found = &leaf;
    }
    return found;
  }

  // TVM's MakeCrossThreadReduction (tir/transform/thread_allreduce.h): each
  // thread of the bound reduce loop folds its share of the serial reduce
  // loops into a local partial, the threads combine theirs, one writes.
  Stmt cross_thread_nest(const StageInfo& info, const IterVar& bound, const te::VarMap<Expr>& roots,
                         const SplitGuards& guards, const std::vector<Expr>& index,
                         const te::ReduceNode& reduce) {
    const StageRef& stage = info.stage;
    std::vector<IterVar> outer, serial;
    bool in_reduction = false;
    for (const IterVar& leaf : stage->leaf_iter_vars) {
      if (leaf->kind == te::IterVarKind::CommReduce)
        in_reduction = true;
      else if (in_reduction)
        throw schedule::ScheduleError(
            str("stage '", stage->op->name, "': data loop '", leaf.name(),
                "' is inside the reduce loops of a cross-thread reduction; reorder it outside"));
      if (leaf.same_as(bound)) continue;
      (leaf->kind == te::IterVarKind::CommReduce ? serial : outer).push_back(leaf);
    }
    const te::DataType t = stage->op->dtype;
    const Var partial(stage->op->name + "_partial", te::DataType::Handle());
    const Var combined(stage->op->name + "_red", te::DataType::Handle());
    const Expr zero = te::make_int(0);
    const Expr current = te::load(t, partial, zero);
    Stmt init = make_store(partial, te::reducer_identity(reduce.combiner, t), zero);
    std::vector<Expr> conditions = guards.data;
    conditions.insert(conditions.end(), guards.reduce.begin(), guards.reduce.end());
    if (reduce.condition.defined()) conditions.push_back(te::substitute(reduce.condition, roots));
    Stmt update = make_store(
        partial,
        te::reducer_combine(reduce.combiner, current, te::substitute(reduce.source, roots)), zero);
    update = nest(stage, serial, guard(conditions, update), true);
    Stmt allreduce =
        make_attr(std::string(kThreadAllReduceAttr) + te::reducer_name(reduce.combiner),
                  bound.var(), make_store(combined, current, zero));
    // An output or a shared buffer is written once; a local one by every
    // thread into its own copy.
    std::vector<Expr> store_conditions = guards.data;
    if (stage->is_output || stage->scope == "shared")
      store_conditions.push_back(bound.var() == te::make_int(0, bound.var().type()));
    Stmt store =
        guard(store_conditions, make_producer_store(stage->op, te::load(t, combined, zero), index));
    Stmt body = make_seq({init, update, allreduce, store});
    body = make_allocate(combined, t, {te::make_int(1)}, body, "local");
    body = make_allocate(partial, t, {te::make_int(1)}, body, "local");
    body = make_loop(stage, bound, wrap_attached(stage, bound, body));
    return nest(stage, outer, body, true);
  }

  // The loop a tensorize attribute marks, if any.
  static const IterVar* tensorized_leaf(const StageRef& stage) {
    for (const IterVar& leaf : stage->leaf_iter_vars)
      if (auto it = stage->attrs.find(leaf);
          it != stage->attrs.end() && it->second.annotation == LoopAnnotation::Tensorize)
        return &leaf;
    return nullptr;
  }

  // A reduction whose loops from `at` inward are one tensor intrinsic's call
  // (schedule/tensorize_match.h), on the first elements of the regions the
  // loops would have covered. When the region holds the reduction's first
  // loop, the init of the region's outputs goes just before the call.
  Stmt tensorized_nest(const StageInfo& info, const IterVar& at, const te::VarMap<Expr>& roots,
                       const SplitGuards& guards, const std::vector<Expr>& index,
                       const Stmt& init_store, size_t first_reduce) {
    const StageRef& stage = info.stage;
    const std::string& name = stage->attrs.at(at).tensor_intrin;
    const te::TensorIntrinsic* intrinsic = te::find_tensor_intrinsic(name);
    LATHE_CHECK(intrinsic, "no tensor intrinsic '", name, "'");
    const schedule::TensorizeMatch match =
        schedule::match_tensorize(*stage, at, *intrinsic, info.body, ranges_);
    te::VarMap<Expr> first;  // the region's loops at their first iteration
    for (const IterVar& v : match.region) first[v.var()] = te::make_int(0, v.var().type());
    auto at_first = [&](const Expr& e) { return te::substitute(te::substitute(e, roots), first); };
    std::vector<Expr> operands;
    std::vector<Expr> out_index;
    for (const Expr& i : index) out_index.push_back(te::substitute(i, first));
    operands.push_back(Tensor(stage->op)(out_index));
    for (const Expr& load : match.input_loads) operands.push_back(at_first(load));
    std::vector<Expr> conditions = guards.data;
    conditions.insert(conditions.end(), guards.reduce.begin(), guards.reduce.end());
    Stmt call = guard(conditions, make_evaluate(te::tensor_intrinsic_call(
                                      te::tensor_intrinsic_id(*intrinsic), operands)));

    const std::vector<IterVar>& leaves = stage->leaf_iter_vars;
    const size_t t = static_cast<size_t>(&at - leaves.data());
    std::vector<IterVar> outer(leaves.begin(), leaves.begin() + static_cast<long>(t));
    if (t < first_reduce) {
      std::vector<IterVar> region_data;
      for (const IterVar& v : match.region)
        if (v->kind != te::IterVarKind::CommReduce) region_data.push_back(v);
      Stmt init = nest(stage, region_data, guard(guards.data, init_store), false);
      return nest(stage, outer, make_seq({init, call}), true);
    }
    std::vector<IterVar> init_loops;
    for (size_t i = first_reduce; i < leaves.size(); ++i)
      if (leaves[i]->kind != te::IterVarKind::CommReduce) init_loops.push_back(leaves[i]);
    Stmt init = nest(stage, init_loops, guard(guards.data, init_store), false);
    std::vector<IterVar> reduce_outer(leaves.begin() + static_cast<long>(first_reduce),
                                      leaves.begin() + static_cast<long>(t));
    std::vector<IterVar> data_outer(leaves.begin(),
                                    leaves.begin() + static_cast<long>(first_reduce));
    Stmt update = nest(stage, reduce_outer, call, true);
    return nest(stage, data_outer, make_seq({init, update}), true);
  }

  using Tensor = te::Tensor;
  const std::vector<StageInfo>& stages_;
  const IterVarRanges& ranges_;
  arith::BoundMap loop_bounds_;  // every loop variable's values
  std::unordered_set<te::Operation, te::OperationHash, te::OperationEqual> attached_;
};

}  // namespace

Stmt schedule_ops(const std::vector<StageInfo>& stages, const IterVarRanges& ranges) {
  return NestBuilder(stages, ranges).build();
}

}  // namespace lathe::tir
