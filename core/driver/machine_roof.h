// The machine a roofline is drawn for: its FMA peak and the bandwidth of each
// memory level. Measuring takes about two seconds with every core busy, so
// the result is kept in a small JSON file per machine and reused by
// `lathe run --profile` and the studio; it is measured again on demand, and
// whenever the machine's identity (CPU model, caches, threads) no longer
// matches the one the file was measured on.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/memory_bandwidth.h"

namespace lathe::driver {

// What decides whether a kept measurement still describes this machine.
struct MachineIdentity {
  std::string cpu;                 // the CPU's model name, as /proc/cpuinfo gives it
  std::vector<CacheLevel> caches;  // support/memory_bandwidth's detect_data_caches()
  int threads = 0;                 // the threads kernels run on

  // One line naming all of the above ("AMD EPYC 9R14 | L1 48K/1 L2 1024K/1 L3
  // 32768K/2 | 2 threads"): the file keeps it and is trusted only when it is equal.
  std::string key() const;
};

// This machine, with the threads generated kernels run on
// (runtime::default_num_threads(), which $LATHE_NUM_THREADS sets).
MachineIdentity this_machine();

struct MachineRoof {
  MachineIdentity machine;
  double peak_gflops = 0;  // support/machine_peak's FMA microkernel on machine.threads
  // Its int8 dot product (measure_peak_int8), the roof of int8 kernels; 0
  // where the CPU has none or a file kept from before it was measured.
  double peak_int8_gops = 0;
  MemoryBandwidth bandwidth;  // every level, on machine.threads
  std::string measured_at;    // UTC, ISO 8601
  bool from_cache = false;    // read from the file rather than measured by this call
  // A GPU's roof (driver/gpu_roof.h): its name, e.g. "cuda:0 NVIDIA H100 80GB HBM3";
  // empty for this machine's CPU. Its peak and DRAM bandwidth then come from the
  // driver's device attributes, and machine.caches holds its L2.
  std::string device = {};
};

// Measures the peak (driver::machine_peak_gflops) and the bandwidths now, on
// machine.threads: about two seconds with every core busy, so never on a GUI thread.
MachineRoof measure_machine_roof(const MachineIdentity& machine);

// $XDG_CACHE_HOME/lathe, else ~/.cache/lathe (the XDG default).
std::filesystem::path machine_cache_dir();
// dir/machine-<16 hex digits of FNV-1a of machine.key()>.json
std::filesystem::path machine_cache_file(const std::filesystem::path& dir,
                                         const MachineIdentity& machine);

// The roof kept in `file` when it was measured on `machine` (an equal key);
// nullopt for a missing, unreadable or foreign file, which is then measured again.
std::optional<MachineRoof> read_machine_roof(const std::filesystem::path& file,
                                             const MachineIdentity& machine);
// Replaces `file` whole (a temporary file renamed over it), creating its
// folder; throws Error naming the file when it cannot.
void write_machine_roof(const std::filesystem::path& file, const MachineRoof& roof);

enum class Remeasure { IfMissing, Always };
using MeasureMachine = std::function<MachineRoof(const MachineIdentity&)>;

// `roof` with, number by number, the larger of its own and `kept`'s: the
// peak and each level's bandwidths (levels matched by name and capacity).
void keep_best_of(MachineRoof& roof, const MachineRoof& kept);

// The roof kept for `machine` in `dir`, or, when there is none, it belongs to
// another identity or `remeasure` is Always, the roof `measure` returns, kept
// for next time. Measured again over a kept roof of the same machine, each
// number is the best of the two (keep_best_of): on a shared machine a
// measurement under load is low, never high, and a roof below what kernels
// reach would put them above 100 % of it. Deleting the file starts afresh. A folder that cannot be
// written is no error: the roof is only measured again next time.
MachineRoof machine_roof(const std::filesystem::path& dir, const MachineIdentity& machine,
                         Remeasure remeasure, const MeasureMachine& measure);
// This machine's, kept in machine_cache_dir(), measured by measure_machine_roof.
MachineRoof machine_roof(Remeasure remeasure = Remeasure::IfMissing);
// This machine's as kept in machine_cache_dir(), measuring nothing: nullopt
// when none is kept (what the studio shows before anything was measured).
std::optional<MachineRoof> kept_machine_roof();

}  // namespace lathe::driver
