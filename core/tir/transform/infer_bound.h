// Bound inference (TVM's InferBound): the range of every iteration variable of
// every stage, consumers first, from the regions of each tensor that its
// consumers read at the tensor's attach point.
#pragma once

#include "tir/transform/stage_loops.h"

namespace lathe::tir {

IterVarRanges infer_bound(const std::vector<StageInfo>& stages);

}  // namespace lathe::tir
