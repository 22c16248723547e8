// The machine's peak FP32 FMA throughput on the threads generated kernels
// use, for the schedule editor's "% of peak", measured with the benchmarks'
// microkernel (benchmarks/peak_flops.h), so the studio and bench_kernels mean
// the same peak.
#pragma once

namespace lathe::studio {

// GFLOPS on runtime::default_num_threads() threads: the highest of every
// measurement this process made, since other work on a shared machine can
// only make a measurement lower. The first call measures three times, later
// calls once more (tens of milliseconds, every core busy): never call it on
// the GUI thread. Safe to call from several threads.
double machinePeakGflops();

}  // namespace lathe::studio
