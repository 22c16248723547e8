// The region an index expression covers while some variables range over their
// loops (TVM's EvalSet), the step of bound inference that turns a consumer's
// accesses into the producer's realize bounds.
#pragma once

#include "te/tensor.h"

namespace lathe::arith {

// The symbolic [min, min + extent) that `index` covers when each variable in
// `dom` ranges over its [min, min + extent); other variables (outer loops)
// stay symbolic. A dom entry may itself use other variables, relaxed or not.
//
// For an index linear in the relaxed variables with constant coefficients
// (after simplification), min and extent are exact: i*64 + j with j in
// [0, 64) gives [i*64, i*64 + 64). floordiv/floormod by positive constants,
// min, max and select are evaluated by interval arithmetic, which can
// over-approximate. Anything else that depends on a relaxed variable falls
// back to constant bounds; when none exist the Range's min and extent are
// undefined and the caller must fall back to the tensor's full extent.
te::Range eval_region(const te::Expr& index, const te::VarMap<te::Range>& dom);

}  // namespace lathe::arith
