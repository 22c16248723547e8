// Running a compiled model: the runtime's graph executor, its timings and
// per-kernel profile, and packages loaded from disk, as `lathe run` and the
// studio's benchmark and export pages use them.
#pragma once

#include "runtime/graph_executor.h"
#include "runtime/ndarray.h"
#include "runtime/package.h"
#include "runtime/thread_pool.h"

namespace lathe::driver {

// Aliases rather than copies: the runtime is the library that packages run
// on (a user's C program links it too), and its executor and summaries are
// what the driver's clients hold; the driver adds nothing between them.
using runtime::benchmark;
using runtime::DataType;
using runtime::default_num_threads;
using runtime::format_time_summary;
using runtime::GraphExecutor;
using runtime::KernelProfile;
using runtime::num_elements;
using runtime::Package;
using runtime::shape_to_string;
using runtime::TimeSummary;

}  // namespace lathe::driver
