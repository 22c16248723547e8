// What bound inference and loop-nest generation share about stages: their
// bodies after compute_inline, their consumers, the ranges of their
// iteration variables, and how root variables follow from leaf variables.
#pragma once

#include <unordered_map>
#include <vector>

#include "schedule/schedule.h"
#include "te/expr_functor.h"

namespace lathe::tir {

using schedule::StageRef;
using te::Expr;
using te::IterVar;

// Range of every iteration variable of every stage. Leaf and relation-made
// variables run over [0, extent); root variables over [min, min + extent).
using IterVarRanges = std::unordered_map<IterVar, te::Range, te::IterVarHash, te::IterVarEqual>;

struct StageInfo {
  StageRef stage;
  Expr body;                        // the op's body with inlined producers substituted
  std::vector<StageRef> consumers;  // stages whose (inlined) bodies read this one
};

// Every non-inlined compute stage, in dependency order, with inlining applied.
std::vector<StageInfo> analyze_stages(schedule::Schedule& sch);

// Constant extent of an iteration variable; throws when it is not constant.
int64_t const_extent(const IterVarRanges& ranges, const IterVar& iv);

// Fills the ranges of the stage's relation-made variables from its root ranges:
// split inner = factor, outer = ceil(extent / factor); fuse = product.
void derive_leaf_ranges(const StageRef& stage, IterVarRanges& ranges);

// Each root variable's value in terms of leaf variables: min + outer * factor + inner ...
te::VarMap<Expr> root_values(const StageRef& stage, const IterVarRanges& ranges);

// Conditions that keep non-dividing splits inside their parent's range, split
// into those on data axes and those on reduction axes.
struct SplitGuards {
  std::vector<Expr> data, reduce;
};
SplitGuards split_guards(const StageRef& stage, const IterVarRanges& ranges);

}  // namespace lathe::tir
