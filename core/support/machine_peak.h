// What the machine can do at best, measured in the same run as the work it
// scales: the peak FP32 FMA throughput of a register-resident microkernel on
// every core. The benchmarks print ratios to it, and the studio's schedule
// editor its "% of peak" (through driver/machine_peak.h).
#pragma once

namespace lathe {

struct PeakFlops {
  double gflops_per_core = 0;
  double gflops_all_cores = 0;
  int threads = 0;
  int vector_bits = 0;  // widest FMA vector the microkernel used
};

// Best of `trials` runs of the microkernel, on one thread and on `threads`.
PeakFlops measure_peak_flops(int threads, int trials = 3);

}  // namespace lathe
