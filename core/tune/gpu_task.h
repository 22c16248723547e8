// Tuning a cuda task (issue 35): its template space is the cuda kind's (the
// one `lathe compile --target cuda` takes the default of), a candidate is
// lowered for the target, verified (threads per block, shared memory,
// bindings) and emitted as PTX, and the measure worker runs it on the GPU
// (tune/cuda_kernel_object.h, tune/worker/cuda_measure.h).
#pragma once

#include "codegen/codegen.h"
#include "topi/config_space.h"
#include "tune/group_computation.h"

namespace lathe::tune {

struct Candidate;
struct KernelFixture;
class MeasureWorker;

// The cuda template of the group's anchor op (OpStrategy::template_for), else
// the kind's default (topi/schedule_cuda.h). Throws for a target that is not a GPU.
topi::SearchSpace gpu_template_search_space(const GroupComputation& computation,
                                            const codegen::Target& target);

// Verifies the candidate's lowered function for `target` and emits its PTX
// into c.object (a cuda kernel object with the launch). A function the GPU
// verifier refuses is an "instantiation" error: what every GPU space's
// constraint adds to its own, so that no such config reaches the device; the
// NVPTX back end's refusal is a "compile" error.
void compile_gpu_candidate(Candidate& c, const codegen::Target& target);

// The simulator runs a block's threads one after another on one core: a large
// model's heaviest kernel takes seconds, a kernel that never ends is killed.
inline constexpr double kSimulationTimeoutS = 300;

// Runs a GPU kernel once on the GPU simulator (codegen/gpu_simulator.h) in
// the measure worker (tune/simulated_kernel_object.h) on `data`'s inputs, its
// outputs starting as 0xff bytes (NaN as floats: an element it never writes
// cannot pass for a computed zero), and returns its largest normalized error
// against the reference outputs. Throws lathe::Error for a kernel the device
// refuses and, with the worker's message, for one a GPU could not run (a
// barrier some threads miss), one that crashed the worker, or a simulation
// longer than kSimulationTimeoutS. `worker` holds measure_buffers(data).
double simulated_output_error(MeasureWorker& worker, const KernelFixture& data,
                              const tir::PrimFunc& func, const codegen::Target& target);
// The same in a worker of its own.
double simulated_output_error(const KernelFixture& data, const tir::PrimFunc& func,
                              const codegen::Target& target);

// Throws lathe::Error "no CUDA driver: …" (CudaDriver::open's reason) or "no
// CUDA device" where the tuner cannot measure cuda kernels on this machine.
void require_cuda_device(const codegen::Target& target);

}  // namespace lathe::tune
