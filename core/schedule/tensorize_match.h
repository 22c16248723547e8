// Matching a tensor intrinsic's declaration (te/tensor_intrinsic.h) against
// the loops of a stage, as TVM's tensorize does: the loops from the
// tensorized one inward must be the declaration's axes (kinds and extents,
// in its order), the stage's body the declared computation with its tensors
// in the inputs' places, and every tensor's region laid out in memory as the
// declaration's (so that the intrinsic's one instruction reads what the
// loops would). The schedule primitive matches when it is applied, against
// the root domains, for an error at its line; lowering matches again against
// the inferred bounds, and uses what the match bound.
#pragma once

#include <string>
#include <vector>

#include "schedule/relations.h"
#include "te/tensor_intrinsic.h"

namespace lathe::schedule {

struct TensorizeMatch {
  const te::TensorIntrinsic* intrinsic = nullptr;
  // The stage's loops the intrinsic replaces, outermost first.
  std::vector<IterVar> region;
  // The stage's reads bound to the intrinsic's inputs, in the declaration's
  // order: ProducerLoads of `body`, in the stage's root variables.
  std::vector<Expr> input_loads;
};

// `at` is the outermost loop of the region, `body` the stage's computation
// (the op's body, or lowering's with inlined producers), `ranges` every
// iteration variable's range. Throws ScheduleError saying what differs.
TensorizeMatch match_tensorize(const StageNode& stage, const IterVar& at,
                               const te::TensorIntrinsic& intrinsic, const Expr& body,
                               const IterVarRanges& ranges);

// The ranges of a stage's variables from its op's own domains (what they are
// before bound inference narrows an attached stage's).
IterVarRanges domain_ranges(const StageNode& stage);

}  // namespace lathe::schedule
