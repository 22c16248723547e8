// s[C].tensorize(var, "dot_16x4_u8s8"): the loops from `var` inward become
// one call of a declared tensor intrinsic. Matched here against the stage's
// loops as they are now, so that a mismatch is reported at the call's line;
// lowering matches again against the bounds it infers (schedule_ops.cpp).
#include "schedule/apply.h"
#include "schedule/tensorize_match.h"
#include "support/error.h"

namespace lathe::schedule::apply {

AppliedStep tensorize(Schedule&, Stage stage, const std::vector<Argument>& args,
                      const std::vector<std::string>&) {
  const IterVar& var = args[0].axis;
  const std::string& name = args[1].text;
  check_leaf(stage, var, "tensorize");
  const te::TensorIntrinsic* intrinsic = te::find_tensor_intrinsic(name);
  if (!intrinsic)
    schedule_error(str("tensorize: no tensor intrinsic '", name, "'; declared are ",
                       te::tensor_intrinsic_names()));
  const te::ComputeOpNode* c = stage.op().as_compute();
  if (!c) schedule_error(str("tensorize: stage '", stage.name(), "' computes nothing"));
  IterVarRanges ranges;
  try {
    ranges = domain_ranges(stage.node());
  } catch (const ScheduleError&) {
    throw;
  } catch (const Error& e) {
    schedule_error(str("tensorize: the loops of stage '", stage.name(),
                       "' have no constant extents (", e.what(), ")"));
  }
  match_tensorize(stage.node(), var, *intrinsic, c->body, ranges);
  IterVarAttr& attr = stage.ref()->attrs[var];
  attr.annotation = LoopAnnotation::Tensorize;
  attr.tensor_intrin = name;
  return {};
}

}  // namespace lathe::schedule::apply
