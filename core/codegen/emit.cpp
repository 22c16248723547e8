// The emitted forms of a module: LLVM IR text before or after optimisation,
// assembly and a relocatable object, through the target machine's code
// generator (which still runs on the legacy pass manager in LLVM 19).
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/codegen.h"
#include "codegen/llvm_codegen.h"
#include "support/error.h"

namespace lathe::codegen {

namespace detail {

std::vector<char> emit_file(BuiltModule& built, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  // Verbose assembly, as llc and Compiler Explorer print it: loop headers with
  // their depth, and register spills and reloads named as such.
  built.machine->Options.MCOptions.AsmVerbose = type == llvm::CodeGenFileType::AssemblyFile;
  if (built.machine->addPassesToEmitFile(passes, os, nullptr, type))
    fail(str("codegen llvm: target '", built.machine->getTargetTriple().str(), "' cannot emit ",
             type == llvm::CodeGenFileType::AssemblyFile ? "assembly" : "object code"));
  passes.run(*built.module);
  return std::vector<char>(buffer.begin(), buffer.end());
}

}  // namespace detail

namespace {

std::vector<char> emit_machine_code(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                    llvm::CodeGenFileType type) {
  detail::BuiltModule built = detail::build_module(funcs, target, /*optimize=*/true);
  return detail::emit_file(built, type);
}

}  // namespace

std::string emit_llvm_ir(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                         IRStage stage) {
  detail::BuiltModule built =
      detail::build_module(funcs, target, stage == IRStage::AfterOptimization);
  std::string text;
  llvm::raw_string_ostream os(text);
  built.module->print(os, nullptr);
  os.flush();
  return text;
}

std::string emit_assembly(const std::vector<tir::PrimFunc>& funcs, const Target& target) {
  const std::vector<char> code =
      emit_machine_code(funcs, target, llvm::CodeGenFileType::AssemblyFile);
  return std::string(code.begin(), code.end());
}

std::vector<char> emit_object(const std::vector<tir::PrimFunc>& funcs, const Target& target) {
  if (target.is_gpu())
    fail(str("codegen llvm: target '", target.to_string(),
             "' makes PTX text (emit_assembly), which the CUDA driver loads; there is no object "
             "file to link"));
  return emit_machine_code(funcs, target, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace lathe::codegen
