// Per-loop costs on the printed loop IR, for the studio's Schedule tab: the
// loop IR as loop_ir_text prints it, and for each `for` line its cost
// (tir/analysis/loop_costs), a one-line note for the end of that line, and
// the explanation a reader hovering the loop gets, led by the reason of its
// spill mark when it has one.
#pragma once

#include <string>
#include <vector>

#include "driver/target.h"
#include "tir/analysis/loop_costs.h"
#include "tir/stmt.h"

namespace lathe::driver {

struct MachineRoof;  // driver/machine_roof.h

using tir::LoopCost;
using tir::LoopCostMachine;
using tir::LoopSpill;

struct LoopNote {
  int line = 0;  // of the `for`, from 0, in AnnotatedLoopIR::loop_ir
  LoopCost cost;
  // "×56 · 31% · 1.2 MB (L2)": trip count, share of the kernel's estimated
  // time, one iteration's working set and the smallest level holding it.
  std::string note;
  // Why the loop is marked ("one iteration's working set 1.3 MB (A 1.0 MB,
  // B 0.3 MB) exceeds L2 (1 MB): A is re-read 64 times from L3"); empty when
  // it is not.
  std::string spill_reason;
  // Everything about the loop, spill reason first: the working set per
  // buffer, the reuse distance of each access it carries, its FLOPs and time.
  std::string explanation;
};

struct AnnotatedLoopIR {
  std::string loop_ir;  // loop_ir_text(func)
  std::vector<LoopNote> loops;
  double estimated_ms = 0;  // the whole kernel, cold
};

AnnotatedLoopIR annotated_loop_ir(const tir::PrimFunc& func, const LoopCostMachine& machine);

// The machine's roof (driver/machine_roof) and the register file of the
// kernels' target, as the loop costs read them.
LoopCostMachine loop_cost_machine(const MachineRoof& roof, const VectorUnit& registers);

// This machine, as kept per machine (driver::machine_roof: measured once, about
// two seconds with every core busy when nothing is kept, so never call it on a
// GUI thread), read on the first call and kept for the process. Safe to call
// from several threads.
const LoopCostMachine& this_loop_cost_machine(const Target& target);

}  // namespace lathe::driver
