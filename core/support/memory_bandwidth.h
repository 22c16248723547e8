// The machine's sustained memory bandwidth at each cache level and DRAM, for
// the roofline: a streaming read kernel and a read+write (STREAM's "scale",
// b[i] = q * a[i]) kernel of our own, run on every thread at a working set
// sized to sit in each level the OS reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lathe {

// One data (or unified) cache level as the OS describes it.
struct CacheLevel {
  int level = 0;               // 1, 2, 3
  int64_t capacity_bytes = 0;  // one instance of the cache
  int shared_by_cpus = 1;      // logical CPUs that share one instance
};

// The data caches of CPU 0, innermost first: /sys/devices/system/cpu/cpu0/cache
// (which also says which CPUs share each one), else sysconf(_SC_LEVEL*_CACHE_SIZE).
// Empty when neither says.
std::vector<CacheLevel> detect_data_caches();

struct BandwidthLevel {
  std::string name;            // "L1", "L2", "L3", "DRAM"
  int64_t capacity_bytes = 0;  // one cache instance (0 for DRAM)
  int shared_by_cpus = 1;
  int64_t working_set_bytes = 0;  // what the measurement streamed, all threads together
  double read_gbps = 0;           // bytes read per second, all threads
  double read_write_gbps = 0;     // bytes read + bytes written per second, all threads
};

struct MemoryBandwidth {
  int threads = 0;
  int vector_bits = 0;                 // widest vector the kernels loaded and stored
  std::vector<BandwidthLevel> levels;  // caches innermost first, then DRAM
};

// Measures every level on `threads` threads (0: all hardware threads), best
// of `samples` runs per level and kernel; about a second in all.
MemoryBandwidth measure_memory_bandwidth(int threads = 0, int samples = 5);

}  // namespace lathe
