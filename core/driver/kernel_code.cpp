#include "driver/kernel_code.h"

#include "codegen/codegen.h"
#include "tir/printer.h"

namespace lathe::driver {

std::string loop_ir_text(const tir::PrimFunc& func) {
  return tir::to_string(func);
}

std::string llvm_ir_text(const tir::PrimFunc& func, const Target& target) {
  return codegen::emit_llvm_ir({func}, target);
}

std::string assembly_text(const tir::PrimFunc& func, const Target& target) {
  return codegen::emit_assembly({func}, target);
}

}  // namespace lathe::driver
