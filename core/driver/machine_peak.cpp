// The peak, refined with every call.
#include "driver/machine_peak.h"

#include <algorithm>
#include <mutex>

#include "runtime/thread_pool.h"
#include "support/machine_peak.h"

namespace lathe::driver {

double machine_peak_gflops() {
  static std::mutex mutex;
  static double peak = 0;
  // One measurement at a time: two at once would share the cores.
  const std::lock_guard<std::mutex> lock(mutex);
  const int trials = peak > 0 ? 1 : 3;
  peak =
      std::max(peak, measure_peak_flops(runtime::default_num_threads(), trials).gflops_all_cores);
  return peak;
}

double machine_peak_int8_gops() {
  static std::mutex mutex;
  static double peak = 0;
  const std::lock_guard<std::mutex> lock(mutex);
  const int trials = peak > 0 ? 1 : 3;
  peak = std::max(peak, measure_peak_int8(runtime::default_num_threads(), trials).gops_all_cores);
  return peak;
}

}  // namespace lathe::driver
