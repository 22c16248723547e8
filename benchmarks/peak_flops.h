// The machine's peak FP32 FMA throughput, measured with a register-resident
// FMA microkernel on every core in the same run as the benchmark it scales.
#pragma once

namespace lathe::bench {

struct PeakFlops {
  double gflops_per_core = 0;
  double gflops_all_cores = 0;
  int threads = 0;
  int vector_bits = 0;  // widest FMA vector the microkernel used
};

// Best of `trials` runs of the microkernel, on one thread and on `threads`.
PeakFlops measure_peak_flops(int threads, int trials = 3);

}  // namespace lathe::bench
