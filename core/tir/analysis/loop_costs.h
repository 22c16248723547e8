// What each loop of a lowered kernel costs, for the studio's annotated loop
// IR: its trip count, the working set of one iteration per buffer and the
// smallest cache level that holds it, the reuse distance of the accesses
// whose reuse it carries, its share of the kernel's estimated time, and a
// spill mark where one iteration overflows a cache level that the reuse it
// carries needed. All from the memory-traffic model (memory_traffic.h) and
// the FLOP count the roofline uses, attributed to loops.
//
// Reuse distance, approximated over affine indices: an access reuses an
// element across consecutive iterations of an enclosing loop whose variable
// its index does not use (temporal reuse: an accumulator across a reduction,
// weights across pixels), or uses with a stride that one loop inside it
// reaches within its extent (a sliding window: a conv's input across output
// columns, reached by the kernel's taps). Between two uses lies one
// iteration of that loop, so the distance is the loop's one-iteration
// working set (distinct bytes, as the model counts them). Directly nested
// loops that all leave the index alone are one reuse, carried by the
// innermost of them: the element's last use in one iteration of the outer
// loop and its first use in the next are adjacent. Loops outside a buffer's
// allocation carry none of its reuse (each iteration starts it afresh); a
// variable used through / or % ends the search (no affine view of the reuse).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/memory_bandwidth.h"
#include "tir/analysis/memory_traffic.h"
#include "tir/stmt.h"

namespace lathe::tir {

// The machine the costs are estimated for.
struct LoopCostMachine {
  double peak_gflops = 0;
  // The vector register file (registers x width): what misses it, L1 serves.
  int64_t register_file_bytes = 0;
  // Cache levels innermost first (their capacities and bandwidths), then DRAM.
  MemoryBandwidth bandwidth;
};

struct AccessReuse {
  std::string buffer;
  bool store = false;
  double distance_bytes = 0;  // distinct bytes touched between two uses of an element
  std::string hits_in;        // the smallest cache level that holds that distance, or "DRAM"
};

// One iteration overflows a cache level while the loop carries reuse: what
// the next iteration uses again has left that level.
struct LoopSpill {
  std::string level;  // the outermost cache level overflowed
  int64_t capacity_bytes = 0;
  std::string
      served_by;  // where the re-reads come from: the next level holding an iteration, or DRAM
  struct Reread {
    std::string buffer;
    double times = 0;  // reads of each of its bytes per execution of the loop
  };
  // Buffers read 1.5 times or more over that hold 1/32 of an iteration's
  // working set or more, most re-read first.
  std::vector<Reread> rereads;
};

struct LoopCost {
  std::string loop_var;
  int depth = 0;           // loops around it
  int parent = -1;         // index of the enclosing loop, -1 at the top
  int64_t trip_count = 1;  // per execution
  double executions = 1;   // how often the loop runs: its ancestors' trip counts multiplied
  std::vector<BufferFootprint> buffers;  // one iteration, in the order first accessed
  double working_set_bytes = 0;
  std::string fits_in;  // smallest cache level holding one iteration, or "DRAM"
  // The accesses whose reuse it carries, one per buffer and direction.
  std::vector<AccessReuse> reuse;
  double flops = 0;              // over all executions
  double estimated_seconds = 0;  // the roofline's time for its FLOPs and its share of the traffic
  double time_share = 0;         // of the kernel's estimated time, at most 1
  std::optional<LoopSpill> spill;
};

struct LoopCosts {
  std::vector<LoopCost> loops;   // in pre-order, the order the printer prints them
  double estimated_seconds = 0;  // the whole kernel's, cold (support/roofline)
};

LoopCosts loop_costs(const PrimFunc& func, const LoopCostMachine& machine);

}  // namespace lathe::tir
