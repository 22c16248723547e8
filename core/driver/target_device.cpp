#include "driver/target_device.h"

#include <exception>

#include "runtime/cuda_driver.h"
#include "support/error.h"

namespace lathe::driver {

std::string why_kernels_cannot_run(const Target& target) {
  if (!target.is_gpu()) {
    if (target.is_host()) return "";
    return str("'", target.to_string(), "' is not this machine's CPU (", Target::host().to_string(),
               "), so its kernels cannot run here");
  }
  try {
    const std::unique_ptr<runtime::CudaDriver> cuda = runtime::CudaDriver::open();
    if (cuda->device_count() == 0) return str(cuda->library(), " found no CUDA device");
  } catch (const std::exception& e) {
    return str("no GPU to run '", target.to_string(), "' kernels on: ", e.what());
  }
  return "";
}

std::string why_peak_unknown(const Target& target) {
  if (!target.is_gpu()) return "";
  return str("the peak FLOPS and memory bandwidth of a '", target.to_string(),
             "' device are unknown: -arch names an instruction set, not a board (sm_90 is an "
             "H100 or an H200, with different bandwidths), and no device is measured here");
}

}  // namespace lathe::driver
