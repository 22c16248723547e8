// What the tuner sends the measure worker to run a cuda kernel on the GPU
// simulator instead of a GPU (MeasureRequest::object): the simulated kernels
// built for the host (codegen::emit_simulated_gpu_object) behind a magic
// line. The worker runs the kernel once and returns its outputs, so that a
// kernel that writes out of bounds ends the worker, not the studio or the
// tool that asked.
#pragma once

#include <vector>

#include "codegen/gpu_simulator.h"

namespace lathe::tune {

// "LATHE-SIMULATED-CUDA-KERNEL 1\n" + one JSON line (each kernel's name,
// launch, whether it synchronizes, its shared buffer, parameter count) + the ELF
// object.
std::vector<char> encode_simulated_kernel_object(const codegen::SimulatedGpuObject& object);
// Whether `bytes` starts with the magic line.
bool is_simulated_kernel_object(const std::vector<char>& bytes);
// Throws lathe::Error naming what is malformed.
codegen::SimulatedGpuObject decode_simulated_kernel_object(const std::vector<char>& bytes);

}  // namespace lathe::tune
