#include "schedule/tensorize_match.h"

#include <algorithm>

#include "support/error.h"
#include "te/expr_functor.h"
#include "te/expr_printer.h"

namespace lathe::schedule {
namespace {

[[noreturn]] void mismatch(const StageNode& stage, const te::TensorIntrinsic& intrinsic,
                           const std::string& what) {
  throw ScheduleError(
      str("tensorize: stage '", stage.op->name, "' does not match ", intrinsic.name, ": ", what));
}

const char* kind_word(te::IterVarKind k) {
  return k == te::IterVarKind::CommReduce ? "reduction" : "data";
}

std::string describe_loops(const std::vector<IterVar>& loops, const IterVarRanges& ranges) {
  std::string s;
  for (const IterVar& v : loops) {
    auto it = ranges.find(v);
    const int64_t* e = it == ranges.end() ? nullptr : te::as_const_int(it->second.extent);
    s += (s.empty() ? "" : ", ") + v.name() + " (" + kind_word(v->kind) + ", " +
         (e ? std::to_string(*e) : std::string("?")) + ")";
  }
  return "[" + s + "]";
}

// Whether `e` is `pattern` with the declaration's input tensors replaced by
// the stage's: same node kinds, types and constants. Binds each input's
// position to the stage's load; tries a commutative node's operands both ways.
bool same_shape(const te::TensorIntrinsic& intrinsic, const Expr& pattern, const Expr& e,
                std::vector<Expr>& bound) {
  if (pattern.kind() != e.kind() || pattern.type() != e.type()) return false;
  if (const auto* p = pattern.as<te::ProducerLoadNode>()) {
    const auto* l = e.as<te::ProducerLoadNode>();
    for (size_t i = 0; i < intrinsic.inputs.size(); ++i) {
      if (!intrinsic.inputs[i].op().same_as(p->producer)) continue;
      if (bound[i].defined())
        return bound[i].as<te::ProducerLoadNode>()->producer.same_as(l->producer);
      bound[i] = e;
      return true;
    }
    return false;
  }
  if (const auto* p = pattern.as<te::IntImmNode>())
    return p->value == e.as<te::IntImmNode>()->value;
  if (const auto* p = pattern.as<te::CastNode>())
    return same_shape(intrinsic, p->value, e.as<te::CastNode>()->value, bound);
  if (const auto* p = pattern.as<te::BinaryNode>()) {
    const auto* b = e.as<te::BinaryNode>();
    std::vector<Expr> saved = bound;
    if (same_shape(intrinsic, p->a, b->a, bound) && same_shape(intrinsic, p->b, b->b, bound))
      return true;
    bound = saved;
    const bool commutative =
        pattern.kind() == te::ExprKind::Add || pattern.kind() == te::ExprKind::Mul ||
        pattern.kind() == te::ExprKind::Min || pattern.kind() == te::ExprKind::Max;
    if (commutative && same_shape(intrinsic, p->a, b->b, bound) &&
        same_shape(intrinsic, p->b, b->a, bound))
      return true;
    bound = saved;
    return false;
  }
  return false;  // calls, selects, lets ...: no declaration has them
}

// The element offset of `load` (indices in `values`' variables) into its
// producer's row-major storage, with every variable at a constant.
int64_t flat_offset(const te::ProducerLoadNode* load, const te::VarMap<Expr>& values) {
  const std::vector<int64_t>& shape = load->producer->shape;
  int64_t offset = 0;
  for (size_t d = 0; d < load->indices.size(); ++d) {
    Expr index = te::substitute(load->indices[d], values);
    const int64_t* v = te::as_const_int(index);
    LATHE_CHECK(v, "index ", te::to_string(load->indices[d]), " does not fold to a constant");
    offset = offset * (d < shape.size() ? shape[d] : 1) + *v;
  }
  return offset;
}

}  // namespace

IterVarRanges domain_ranges(const StageNode& stage) {
  IterVarRanges ranges;
  for (const IterVar& root : stage.root_iter_vars) ranges[root] = root->dom;
  derive_leaf_ranges(stage, ranges);
  return ranges;
}

TensorizeMatch match_tensorize(const StageNode& stage, const IterVar& at,
                               const te::TensorIntrinsic& intrinsic, const Expr& body,
                               const IterVarRanges& ranges) {
  const te::ComputeOpNode& decl = intrinsic.compute();
  TensorizeMatch match;
  match.intrinsic = &intrinsic;

  // The loops: the declaration's data axes, then its reduce axes.
  std::vector<IterVar> axes = decl.axis;
  axes.insert(axes.end(), decl.reduce_axis.begin(), decl.reduce_axis.end());
  IterVarRanges decl_ranges;
  for (const IterVar& a : axes) decl_ranges[a] = a->dom;
  const auto& leaves = stage.leaf_iter_vars;
  auto pos =
      std::find_if(leaves.begin(), leaves.end(), [&](const IterVar& v) { return v.same_as(at); });
  LATHE_CHECK(pos != leaves.end(), "tensorize: '", at.name(), "' is not a loop of stage '",
              stage.op->name, "'");
  match.region.assign(pos, leaves.end());
  bool loops_match = match.region.size() == axes.size();
  for (size_t i = 0; loops_match && i < axes.size(); ++i) {
    auto it = ranges.find(match.region[i]);
    const int64_t* extent = it == ranges.end() ? nullptr : te::as_const_int(it->second.extent);
    loops_match = match.region[i]->kind == axes[i]->kind && extent &&
                  *extent == *te::as_const_int(axes[i]->dom.extent);
  }
  if (!loops_match)
    mismatch(stage, intrinsic,
             str("it replaces loops ", describe_loops(axes, decl_ranges),
                 ", innermost last, but the loops from '", at.name(), "' inward are ",
                 describe_loops(match.region, ranges), " (split and reorder them to that shape)"));

  // The computation.
  const auto* reduce = body.as<te::ReduceNode>();
  const auto* decl_reduce = decl.body.as<te::ReduceNode>();
  if (!reduce || reduce->combiner != decl_reduce->combiner)
    mismatch(stage, intrinsic,
             str("it computes ", te::to_string(decl.body), ", the stage ", te::to_string(body)));
  if (reduce->condition.defined())
    mismatch(stage, intrinsic,
             str("the stage's reduction has a condition (", te::to_string(reduce->condition),
                 "); pad its input instead"));
  match.input_loads.assign(intrinsic.inputs.size(), Expr());
  if (!same_shape(intrinsic, decl_reduce->source, reduce->source, match.input_loads))
    mismatch(stage, intrinsic,
             str("it computes sum(", te::to_string(decl_reduce->source), "), the stage sum(",
                 te::to_string(reduce->source), ") (types and operations must agree)"));

  // A split that does not divide its axis guards the region's points.
  const SplitGuards guards = split_guards(stage, ranges);
  for (const std::vector<Expr>* list : {&guards.data, &guards.reduce})
    for (const Expr& g : *list)
      for (const IterVar& v : match.region)
        if (te::uses_var(g, v.var()))
          mismatch(stage, intrinsic,
                   str("loop '", v.name(), "' comes from a split that does not divide its axis (",
                       te::to_string(g), " guards it)"));

  // The layout: every point of the region must sit where the declaration's
  // does, relative to the region's first point, wherever the outer loops are.
  const te::VarMap<Expr> roots = root_values(stage, ranges);
  struct Access {
    std::string what;
    std::string declared;
    const te::ProducerLoadNode* stage_load;
    const te::ProducerLoadNode* decl_load;
  };
  std::vector<Access> accesses;
  std::vector<Expr> stage_out, decl_out;
  for (const IterVar& a : stage.op.as_compute()->axis) stage_out.push_back(a.var());
  for (const IterVar& a : decl.axis) decl_out.push_back(a.var());
  const Expr stage_out_load = te::Tensor(stage.op)(stage_out);
  const Expr decl_out_load = intrinsic.output(decl_out);
  accesses.push_back({str("its output '", stage.op->name, "'"), te::to_string(decl_out_load),
                      stage_out_load.as<te::ProducerLoadNode>(),
                      decl_out_load.as<te::ProducerLoadNode>()});
  std::vector<Expr> decl_loads(intrinsic.inputs.size());
  te::visit_expr(decl_reduce->source, [&](const Expr& e) {
    if (const auto* l = e.as<te::ProducerLoadNode>())
      for (size_t i = 0; i < intrinsic.inputs.size(); ++i)
        if (intrinsic.inputs[i].op().same_as(l->producer)) decl_loads[i] = e;
  });
  for (size_t i = 0; i < intrinsic.inputs.size(); ++i) {
    const auto* l = match.input_loads[i].as<te::ProducerLoadNode>();
    accesses.push_back(
        {str("'", l->producer->name, "' (the intrinsic's '", intrinsic.inputs[i].name(), "')"),
         te::to_string(decl_loads[i]), l, decl_loads[i].as<te::ProducerLoadNode>()});
  }

  std::vector<int64_t> extents;
  for (const IterVar& a : axes) extents.push_back(*te::as_const_int(a->dom.extent));
  int64_t points = 1;
  for (int64_t e : extents) points *= e;
  for (int outer_at = 0; outer_at < 2; ++outer_at) {
    // The leaves outside the region at 0, then at 1 where they have that value.
    te::VarMap<Expr> outer;
    for (const IterVar& leaf : leaves) {
      const int64_t* e = te::as_const_int(ranges.at(leaf).extent);
      outer[leaf.var()] = te::make_int(outer_at && e && *e > 1 ? 1 : 0, leaf.var().type());
    }
    // A stage computed at another's loop: its roots start where those
    // loops are (bound inference's mins), outer loops as well.
    for (const IterVar& root : stage.root_iter_vars)
      te::visit_expr(ranges.at(root).min, [&](const Expr& e) {
        if (e.as<te::VarNode>() && !outer.count(te::Var(e)))
          outer[te::Var(e)] = te::make_int(outer_at, e.type());
      });
    for (const Access& access : accesses) {
      int64_t stage_base = 0, decl_base = 0;
      for (int64_t p = 0; p < points; ++p) {
        te::VarMap<Expr> leaf_values = outer, decl_values;
        int64_t rest = p;
        for (size_t i = axes.size(); i-- > 0;) {
          const int64_t coord = rest % extents[i];
          rest /= extents[i];
          leaf_values[match.region[i].var()] = te::make_int(coord, match.region[i].var().type());
          decl_values[axes[i].var()] = te::make_int(coord, axes[i].var().type());
        }
        te::VarMap<Expr> root_at;
        for (const auto& [var, value] : roots) root_at[var] = te::substitute(value, leaf_values);
        const int64_t s = flat_offset(access.stage_load, root_at);
        const int64_t d = flat_offset(access.decl_load, decl_values);
        if (p == 0) {
          stage_base = s;
          decl_base = d;
          continue;
        }
        if (s - stage_base != d - decl_base) {
          std::string point;
          for (size_t i = 0; i < axes.size(); ++i)
            point += (i ? ", " : "") + match.region[i].name() + "=" +
                     te::to_string(leaf_values[match.region[i].var()]);
          mismatch(stage, intrinsic,
                   str(access.what, " is not laid out as the intrinsic's ", access.declared,
                       ": at ", point, " the stage's element is ", s - stage_base,
                       " past the region's first, the intrinsic's ", d - decl_base));
        }
      }
    }
  }
  return match;
}

}  // namespace lathe::schedule
