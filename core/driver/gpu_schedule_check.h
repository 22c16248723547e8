// The GPU verifier's refusals as problems of the schedule text that made the
// kernel: the schedule editor underlines the line that binds the loop (or the
// threads, or the shared cache) the verifier names, as it does a parse error.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu_launch.h"
#include "driver/target.h"
#include "schedule/schedule_text.h"
#include "tir/stmt.h"

namespace lathe::driver {

// Where in `schedule_text` the verifier's problem comes from, with its
// message: the `bind` of the loop it names (else the line that defines the
// loop), every `bind` to the thread tag it names (all threadIdx binds for too
// many threads per block), every "shared" cache for too much shared memory;
// else the te.create_schedule line, the statement a missing bind belongs after.
std::vector<schedule::ScheduleDiagnostic> gpu_verify_diagnostics(
    const std::string& schedule_text, const codegen::GpuVerifyError& error);

// Verifies `func`, lowered from `schedule_text`, for the GPU `target` and
// returns its launch; throws schedule::ScheduleTextError with the
// diagnostics above when the verifier refuses it.
codegen::GpuLaunch verify_gpu_schedule(const std::string& schedule_text, const tir::PrimFunc& func,
                                       const Target& target);

}  // namespace lathe::driver
