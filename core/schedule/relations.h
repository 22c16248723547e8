// Arithmetic of a stage's iteration-variable relations: the ranges of the
// variables splits and fuses make, the value of each root variable in terms of
// the leaves, and the guards non-dividing splits need. Shared by rfactor and
// by lowering (bound inference, loop-nest generation).
#pragma once

#include <unordered_map>
#include <vector>

#include "schedule/schedule.h"
#include "te/expr_functor.h"

namespace lathe::schedule {

// Range of every iteration variable of a stage. Leaf and relation-made
// variables run over [0, extent); root variables over [min, min + extent).
using IterVarRanges = std::unordered_map<IterVar, te::Range, te::IterVarHash, te::IterVarEqual>;

// Constant extent of an iteration variable; throws when it is not constant.
int64_t const_extent(const IterVarRanges& ranges, const IterVar& iv);

// Fills the ranges of the stage's relation-made variables from its root ranges:
// split inner = factor, outer = ceil(extent / factor); fuse = product.
void derive_leaf_ranges(const StageNode& stage, IterVarRanges& ranges);

// Each root variable's value in terms of leaf variables: min + outer * factor + inner ...
te::VarMap<Expr> root_values(const StageNode& stage, const IterVarRanges& ranges);

// Conditions that keep non-dividing splits inside their parent's range, split
// into those on data axes and those on reduction axes.
struct SplitGuards {
  std::vector<Expr> data, reduce;
};
SplitGuards split_guards(const StageNode& stage, const IterVarRanges& ranges);

}  // namespace lathe::schedule
