// Parallel loops for the CPU: the outermost parallel loop of a nest is the one
// the code generator outlines into a task for the runtime's thread pool; any
// parallel loop nested in it runs serially inside its task, and so does an
// outermost one with too little work to pay for a launch (parallel_grain),
// under an attribute kSmallParallelAttr that says so in the printed IR.
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace lathe::tir {

inline constexpr const char* kSmallParallelAttr = "too_small_to_parallelize";

// A parallel loop's work: the instructions it issues for it
// (count_operations) and the distinct bytes it touches of the kernel's
// parameters `params`, and whether that is worth a thread-pool launch: a few
// microseconds of one core's time at the least.
struct ParallelGrain {
  double operations = 0;
  double bytes = 0;  // counted only where the operations fall short
  bool worth_a_launch = false;
};
ParallelGrain parallel_grain(const Stmt& loop, const std::vector<Buffer>& params);

Stmt lower_parallel(const Stmt& s, const std::vector<Buffer>& params);

}  // namespace lathe::tir
