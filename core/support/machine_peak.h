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

// The int8 peak (machine_peak_int8.cpp): giga-operations per second of the
// int8 dot product the kernels' tensor intrinsic uses (vpdpbusd, else its
// AVX2 sequence), a u8*s8 product counting 2 (a multiply and an add).
// Zero, with isa "none", on a CPU without AVX2.
struct PeakInt8 {
  double gops_per_core = 0;
  double gops_all_cores = 0;
  int threads = 0;
  const char* isa = "none";  // "avx512_vnni", "avx_vnni", "avx2"
};
PeakInt8 measure_peak_int8(int threads, int trials = 3);

}  // namespace lathe
