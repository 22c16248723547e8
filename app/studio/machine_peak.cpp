// The peak, refined with every call.
#include "studio/machine_peak.h"

#include <algorithm>
#include <mutex>

#include "peak_flops.h"
#include "runtime/thread_pool.h"

namespace lathe::studio {

double machinePeakGflops() {
  static std::mutex mutex;
  static double peak = 0;
  // One measurement at a time: two at once would share the cores.
  const std::lock_guard<std::mutex> lock(mutex);
  const int trials = peak > 0 ? 1 : 3;
  peak = std::max(
      peak, bench::measure_peak_flops(runtime::default_num_threads(), trials).gflops_all_cores);
  return peak;
}

}  // namespace lathe::studio
