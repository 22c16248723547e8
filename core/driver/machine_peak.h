// The machine's peak FP32 throughput on the threads generated kernels run on,
// for "% of peak" next to a measured kernel (the studio's schedule editor).
#pragma once

namespace lathe::driver {

// GFLOPS of support/machine_peak.h's FMA microkernel on
// runtime::default_num_threads() threads: the highest of every measurement
// this process made, since other work on a shared machine can only make a
// measurement lower. The first call measures three times, later calls once
// more (tens of milliseconds, every core busy): never call it on a GUI
// thread. Safe to call from several threads.
double machine_peak_gflops();

// The same for int8 operations (support/machine_peak.h's measure_peak_int8):
// what the roofline of an int8 kernel is drawn against.
double machine_peak_int8_gops();

}  // namespace lathe::driver
