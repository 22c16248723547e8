// A generic default schedule for a TE computation on the CPU, after TVM's
// schedule_injective and generic fallbacks: producers that only move data are
// inlined; every remaining stage runs its outer data-parallel loops in
// parallel and its innermost data axis in SIMD-width vectors. It is the
// default config of the generic template (topi/generic_template.h).
#pragma once

#include "schedule/schedule.h"

namespace lathe::topi {

// Vector width in float32 lanes used by default schedules.
constexpr int64_t kDefaultVectorLanes = 16;

void apply_default_schedule(schedule::Schedule& sch);

}  // namespace lathe::topi
