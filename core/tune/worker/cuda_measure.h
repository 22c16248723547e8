// The measure worker's GPU half: a cuda candidate (tune/cuda_kernel_object.h)
// loaded on GPU 0 by the runtime's cuda DeviceAPI, run on device copies of
// the task's buffers and timed with CUDA events, as TVM's time_evaluator on
// a cuda device. In the worker process, so that a kernel that faults (which
// poisons the CUDA context for good) ends that process and not the tuner.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace lathe::runtime {
class CudaDeviceAPI;
}

namespace lathe::tune {

struct CudaMeasurement {
  std::vector<double> costs_ms;
  std::vector<int> runs;
  std::vector<std::vector<char>> outputs;  // when asked
};

class CudaMeasurer {
 public:
  // The host buffers stay the worker's; device copies are made on the first
  // measurement after each call (so a worker that never sees a cuda
  // candidate never opens the driver).
  void set_buffers(const std::vector<runtime::NDArray>* host, int num_inputs);

  // Throws lathe::Error / runtime::Error: no driver, the PTX refused by the
  // driver's JIT (its log), a launch error. `number` grows until a repeat
  // lasts min_repeat_ms.
  CudaMeasurement measure(const std::vector<char>& object, int number, int repeat,
                          double min_repeat_ms, bool return_outputs);
  // Whether the last measure got past loading (the driver, the buffers' upload,
  // the JIT, the kernel's lookup): an error after that is the kernel's run,
  // which may leave the context unusable.
  bool loaded() const { return loaded_; }

 private:
  void upload();

  const std::vector<runtime::NDArray>* host_ = nullptr;
  int num_inputs_ = 0;
  std::shared_ptr<runtime::CudaDeviceAPI> device_;
  std::vector<runtime::NDArray> buffers_;  // on the device; empty until uploaded
  std::vector<void*> pointers_;
  bool loaded_ = false;
};

}  // namespace lathe::tune
