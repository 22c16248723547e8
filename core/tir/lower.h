// Lowering: a schedule to a PrimFunc through one straight list of named
// passes, recording the IR and the time after each (the studio's live preview
// shows any of them).
#pragma once

#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace lathe::tir {

struct PassSnapshot {
  std::string pass;
  std::string ir;  // printed loop IR after the pass ("unchanged" when it changed nothing)
  double milliseconds = 0;
};

struct LoweredFunc {
  PrimFunc func;
  std::vector<PassSnapshot> passes;
};

struct LowerOptions {
  bool record_ir = true;  // print the IR after every pass
  // The target's canonical text, recorded as the PrimFunc's target; a GPU
  // kind also runs the GPU passes (barriers). Empty: the CPU.
  std::string target = {};
};

// `args` are the kernel's parameters (inputs then outputs), as tvm.lower(s, [A, B, C]).
LoweredFunc lower(schedule::Schedule& sch, const std::vector<te::Tensor>& args,
                  const std::string& name, const LowerOptions& options = {});

}  // namespace lathe::tir
