// Loop-nest generation (TVM's ScheduleOps): one loop nest per stage from its
// leaf variables, with reductions split into init and update, producers placed
// at their compute_at loops inside a realize of the region they compute.
#pragma once

#include "tir/stmt.h"
#include "tir/transform/stage_loops.h"

namespace lathe::tir {

Stmt schedule_ops(const std::vector<StageInfo>& stages, const IterVarRanges& ranges);

}  // namespace lathe::tir
