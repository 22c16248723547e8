// What the tuner sends the measure worker for a cuda candidate, in the place
// of a CPU candidate's ELF object (MeasureRequest::object): the kernel's PTX
// and the launch its lowering recorded (grid, block, static shared bytes),
// behind a magic line, so that the session, its records and its rivals treat
// CPU and GPU candidates alike and only the worker tells them apart.
#pragma once

#include <string>
#include <vector>

#include "runtime/graph_json.h"

namespace lathe::tune {

struct CudaKernelObject {
  std::string kernel;  // the .entry to launch
  runtime::KernelLaunch launch;
  std::string ptx;
};

// "LATHE-CUDA-KERNEL 1\n" + one JSON line (kernel, launch) + the PTX text.
std::vector<char> encode_cuda_kernel_object(const CudaKernelObject& object);
// Whether `bytes` starts with the magic line.
bool is_cuda_kernel_object(const std::vector<char>& bytes);
// Throws lathe::Error naming what is malformed.
CudaKernelObject decode_cuda_kernel_object(const std::vector<char>& bytes);

}  // namespace lathe::tune
