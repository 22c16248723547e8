// A generic default schedule for a TE computation on the CPU, after TVM's
// schedule_injective and generic fallbacks: producers that only move data are
// inlined; every remaining stage runs its outer data-parallel loops in
// parallel and its innermost data axis in SIMD-width vectors. It is the
// default config of the generic template (topi/generic_template.h).
#pragma once

#include "schedule/schedule.h"
#include "support/vector_unit.h"

namespace lathe::topi {

// The generic template's default config for the schedule's outputs, with
// vectors of `vector_unit`.
void apply_default_schedule(schedule::Schedule& sch, const VectorUnit& vector_unit = {});

}  // namespace lathe::topi
