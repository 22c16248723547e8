#include "tir/transform/infer_bound.h"

#include "schedule/schedule.h"
#include "support/error.h"
#include "tir/arith/eval_region.h"
#include "tir/arith/simplify.h"

namespace lathe::tir {
namespace {

using schedule::AttachType;
using schedule::ScheduleError;

// A leaf's loop runs over [0, extent), even when the leaf is a root variable
// whose range has a min: root_values() adds that min to the loop variable.
te::Range loop_range(const IterVarRanges& ranges, const IterVar& leaf) {
  const te::Range& r = ranges.at(leaf);
  return {te::make_int(0, leaf.var().type()), r.extent};
}

const StageInfo& info_of(const std::vector<StageInfo>& stages, const StageRef& s) {
  for (const StageInfo& i : stages)
    if (i.stage == s) return i;
  throw ScheduleError("internal: stage '" + s->op->name + "' not analyzed");
}

// Leaf variables of the stages enclosing `s` through compute_at, innermost
// first, each with the loops that enclose s's computation.
void add_enclosing_loops(const StageRef& s, const IterVarRanges& ranges,
                         te::VarMap<te::Range>& relax) {
  StageRef cur = s;
  while (cur->attach_type == AttachType::Scope) {
    StageRef parent = cur->attach_stage.lock();
    if (!parent) break;
    for (const IterVar& leaf : parent->leaf_iter_vars) {
      relax[leaf.var()] = loop_range(ranges, leaf);
      if (leaf.same_as(cur->attach_ivar)) break;
    }
    cur = parent;
  }
}

// Loops that vary while p's region is live, for p attached at loop l of
// stage t and read by s, where s is t itself or runs inside t through a
// chain of compute_at: the loops inside l down to s, and all of s's own.
void relax_inside_attach_point(const StageRef& p, const StageRef& s, const IterVarRanges& ranges,
                               te::VarMap<te::Range>& relax) {
  StageRef t = p->attach_stage.lock();
  auto relax_after = [&](const StageRef& stage, const IterVar& from, const IterVar& to) {
    bool inside = !from.defined();
    for (const IterVar& leaf : stage->leaf_iter_vars) {
      if (inside) relax[leaf.var()] = loop_range(ranges, leaf);
      if (leaf.same_as(from)) inside = true;
      if (to.defined() && leaf.same_as(to)) return inside;
    }
    return inside;
  };
  if (s == t) {
    relax_after(s, p->attach_ivar, IterVar());
    return;
  }
  relax_after(s, IterVar(), IterVar());
  StageRef cur = s;
  while (cur->attach_type == AttachType::Scope && cur->attach_stage.lock() != t) {
    StageRef parent = cur->attach_stage.lock();
    relax_after(parent, IterVar(), cur->attach_ivar);
    cur = parent;
  }
  if (cur->attach_type != AttachType::Scope || cur->attach_stage.lock() != t ||
      !relax_after(t, p->attach_ivar, cur->attach_ivar))
    throw ScheduleError("compute_at: '" + p->op->name + "' is attached at loop '" +
                        p->attach_ivar.name() + "' of '" + t->op->name + "', which does not " +
                        "enclose its reader '" + s->op->name + "'");
}

// TVM's NeedRelax for shared memory: a shared buffer is the block's, so the
// threadIdx loops that enclose its attach point vary while it is live (its
// threads fetch it together, and each reads what the others fetched). So do
// vthread loops (thread rank too in TVM): the virtual threads of a physical
// thread share the block's buffer, fetched once for all of them.
void relax_enclosing_threads(const StageRef& p, const IterVarRanges& ranges,
                             te::VarMap<te::Range>& relax) {
  StageRef cur = p;
  while (cur->attach_type == AttachType::Scope) {
    StageRef parent = cur->attach_stage.lock();
    if (!parent) break;
    for (const IterVar& leaf : parent->leaf_iter_vars) {
      auto it = parent->attrs.find(leaf);
      if (it != parent->attrs.end() && it->second.annotation == schedule::LoopAnnotation::Bind &&
          (it->second.thread_tag.rfind("threadIdx.", 0) == 0 || it->second.thread_tag == "vthread"))
        relax[leaf.var()] = loop_range(ranges, leaf);
      if (leaf.same_as(cur->attach_ivar)) break;
    }
    cur = parent;
  }
}

// Every variable at its full constant range, to bound what stays symbolic.
te::VarMap<te::Range> all_leaves(const std::vector<StageInfo>& stages,
                                 const IterVarRanges& ranges) {
  te::VarMap<te::Range> all;
  for (const StageInfo& i : stages)
    for (const IterVar& leaf : i.stage->leaf_iter_vars)
      if (ranges.count(leaf)) all[leaf.var()] = loop_range(ranges, leaf);
  return all;
}

te::Range union_range(const te::Range& a, const te::Range& b) {
  Expr lo = arith::simplify(te::min(a.min, b.min));
  Expr hi = arith::simplify(te::max(a.min + a.extent, b.min + b.extent));
  return {lo, arith::simplify(hi - lo)};
}

}  // namespace

IterVarRanges infer_bound(const std::vector<StageInfo>& stages) {
  IterVarRanges ranges;
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const StageRef& p = it->stage;
    const te::ComputeOpNode* c = p->op.as_compute();
    std::vector<te::Range> region;
    if (p->is_output || it->consumers.empty()) {
      for (int64_t d : c->shape) region.push_back(te::Range::from_extent(d));
    } else {
      for (const StageRef& s : it->consumers) {
        // Loops of the consumer inside p's attach point vary while p's region
        // is live; those outside are fixed symbols.
        te::VarMap<te::Range> relax;
        if (p->attach_type == AttachType::Scope) {
          relax_inside_attach_point(p, s, ranges, relax);
          if (p->scope == "shared") relax_enclosing_threads(p, ranges, relax);
        } else {
          for (const IterVar& leaf : s->leaf_iter_vars)
            relax[leaf.var()] = loop_range(ranges, leaf);
          add_enclosing_loops(s, ranges, relax);
        }
        Expr body = te::substitute(info_of(stages, s).body, root_values(s, ranges));
        te::visit_expr(body, [&](const Expr& e) {
          const auto* load = e.as<te::ProducerLoadNode>();
          if (!load || !load->producer.same_as(p->op)) return;
          for (size_t d = 0; d < load->indices.size(); ++d) {
            te::Range r = arith::eval_region(load->indices[d], relax);
            if (region.size() <= d)
              region.push_back(r);
            else
              region[d] = union_range(region[d], r);
          }
        });
      }
      // Extents must be constants; a symbolic one is bounded by its maximum.
      te::VarMap<te::Range> everything = all_leaves(stages, ranges);
      for (te::Range& r : region) {
        r.extent = arith::simplify(r.extent);
        if (!te::as_const_int(r.extent)) {
          te::Range bound = arith::eval_region(r.extent, everything);
          r.extent = arith::simplify(bound.min + bound.extent - te::make_int(1));
        }
        LATHE_CHECK(te::as_const_int(r.extent), "cannot bound the region of '", p->op->name,
                    "' to a constant size");
      }
    }
    for (size_t d = 0; d < c->axis.size(); ++d) ranges[c->axis[d]] = region.at(d);
    for (const IterVar& k : c->reduce_axis) ranges[k] = k->dom;
    derive_leaf_ranges(p, ranges);
  }
  return ranges;
}

}  // namespace lathe::tir
