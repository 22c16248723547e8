// What bound inference and loop-nest generation share about stages: their
// bodies after compute_inline, their consumers, the ranges of their
// iteration variables, and how root variables follow from leaf variables.
#pragma once

#include <unordered_map>
#include <vector>

#include "schedule/relations.h"
#include "te/expr_functor.h"

namespace lathe::tir {

using schedule::StageRef;
using te::Expr;
using te::IterVar;

using schedule::IterVarRanges;
using schedule::SplitGuards;

struct StageInfo {
  StageRef stage;
  Expr body;                        // the op's body with inlined producers substituted
  std::vector<StageRef> consumers;  // stages whose (inlined) bodies read this one
};

// Every non-inlined compute stage, in dependency order, with inlining applied.
std::vector<StageInfo> analyze_stages(schedule::Schedule& sch);

// Relation arithmetic (schedule/relations.h) on a stage handle.
inline int64_t const_extent(const IterVarRanges& r, const IterVar& iv) {
  return schedule::const_extent(r, iv);
}
inline void derive_leaf_ranges(const StageRef& s, IterVarRanges& r) {
  schedule::derive_leaf_ranges(*s, r);
}
inline te::VarMap<Expr> root_values(const StageRef& s, const IterVarRanges& r) {
  return schedule::root_values(*s, r);
}
inline SplitGuards split_guards(const StageRef& s, const IterVarRanges& r) {
  return schedule::split_guards(*s, r);
}

}  // namespace lathe::tir
