#include "schedule/relations.h"

#include <algorithm>

#include "support/error.h"
#include "support/int_math.h"

namespace lathe::schedule {
int64_t const_extent(const IterVarRanges& ranges, const IterVar& iv) {
  auto it = ranges.find(iv);
  LATHE_CHECK(it != ranges.end(), "no range inferred for axis '", iv.name(), "'");
  const int64_t* e = te::as_const_int(it->second.extent);
  LATHE_CHECK(e, "axis '", iv.name(), "' has no constant extent");
  return *e;
}

void derive_leaf_ranges(const StageNode& stage, IterVarRanges& ranges) {
  for (const auto& rel : stage.relations) {
    if (const auto* s = std::get_if<SplitRelation>(&rel)) {
      int64_t parent = const_extent(ranges, s->parent);
      int64_t inner = s->factor ? std::min(s->factor, parent) : ceildiv(parent, s->nparts);
      int64_t outer = ceildiv(parent, std::max<int64_t>(inner, 1));
      ranges[s->outer] = te::Range::from_extent(outer);
      ranges[s->inner] = te::Range::from_extent(inner);
    } else if (const auto* one = std::get_if<SingletonRelation>(&rel)) {
      ranges[one->iter] = te::Range::from_extent(1);
    } else {
      const auto& f = std::get<FuseRelation>(rel);
      ranges[f.fused] =
          te::Range::from_extent(const_extent(ranges, f.outer) * const_extent(ranges, f.inner));
    }
  }
}

te::VarMap<Expr> root_values(const StageNode& stage, const IterVarRanges& ranges) {
  // Values of every variable in terms of leaves, computed back from the leaves.
  std::unordered_map<IterVar, Expr, te::IterVarHash, te::IterVarEqual> value;
  for (const IterVar& leaf : stage.leaf_iter_vars) value[leaf] = leaf.var();
  for (auto it = stage.relations.rbegin(); it != stage.relations.rend(); ++it) {
    if (const auto* s = std::get_if<SplitRelation>(&*it)) {
      int64_t inner = const_extent(ranges, s->inner);
      value[s->parent] =
          value.at(s->outer) * te::make_int(inner, s->outer.var().type()) + value.at(s->inner);
    } else if (std::holds_alternative<SingletonRelation>(*it)) {
      continue;  // no root axis depends on it
    } else {
      const auto& f = std::get<FuseRelation>(*it);
      Expr inner_extent = te::make_int(const_extent(ranges, f.inner));
      value[f.outer] = value.at(f.fused) / inner_extent;
      value[f.inner] = value.at(f.fused) % inner_extent;
    }
  }
  te::VarMap<Expr> roots;
  for (const IterVar& root : stage.root_iter_vars) {
    Expr min = ranges.at(root).min;
    Expr v = value.at(root);
    roots[root.var()] = te::is_const_int(min, 0) ? v : min + v;
  }
  return roots;
}

SplitGuards split_guards(const StageNode& stage, const IterVarRanges& ranges) {
  std::unordered_map<IterVar, Expr, te::IterVarHash, te::IterVarEqual> value;
  for (const IterVar& leaf : stage.leaf_iter_vars) value[leaf] = leaf.var();
  SplitGuards guards;
  for (auto it = stage.relations.rbegin(); it != stage.relations.rend(); ++it) {
    if (const auto* s = std::get_if<SplitRelation>(&*it)) {
      int64_t parent = const_extent(ranges, s->parent);
      int64_t inner = const_extent(ranges, s->inner);
      int64_t outer = const_extent(ranges, s->outer);
      value[s->parent] = value.at(s->outer) * te::make_int(inner) + value.at(s->inner);
      if (outer * inner != parent) {
        Expr guard = value[s->parent] < te::make_int(parent);
        (s->parent->kind == te::IterVarKind::CommReduce ? guards.reduce : guards.data)
            .push_back(guard);
      }
    } else if (std::holds_alternative<SingletonRelation>(*it)) {
      continue;
    } else {
      const auto& f = std::get<FuseRelation>(*it);
      Expr inner_extent = te::make_int(const_extent(ranges, f.inner));
      value[f.outer] = value.at(f.fused) / inner_extent;
      value[f.inner] = value.at(f.fused) % inner_extent;
    }
  }
  return guards;
}

}  // namespace lathe::schedule
