// One lowered kernel in each printed form that `lathe schedule --emit` and
// the studio's code preview show: loop IR, LLVM IR and assembly. What the
// user reads is what the compiler used: each form comes from its one printer.
#pragma once

#include <string>

#include "driver/target.h"
#include "tir/stmt.h"

namespace lathe::driver {

std::string loop_ir_text(const tir::PrimFunc& func);
// After LLVM's O3 pipeline for `target`, as the object is built from it.
std::string llvm_ir_text(const tir::PrimFunc& func, const Target& target);
std::string assembly_text(const tir::PrimFunc& func, const Target& target);

}  // namespace lathe::driver
