// The LLVM back end's public face: target strings, JIT-compiled kernels and
// the emitted forms (LLVM IR, assembly, object code) of lowered PrimFuncs.
// No LLVM header reaches past this file: the LLVM state lives behind pimpl.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/target.h"
#include "tir/stmt.h"

namespace lathe::codegen {

// A kernel entry point as compiled: `void name(void** args)`, one pointer per
// PrimFunc parameter in order, each to that buffer's first element.
using KernelFunction = void (*)(void** args);

class JitModule;  // the JIT state of one compiled module (jit.cpp)

// One callable kernel. Copies share the compiled code, which is freed when
// the last copy of every kernel of its module is gone.
class CompiledKernel {
 public:
  CompiledKernel() = default;
  // Checks the buffer count, then calls the kernel on the calling thread
  // (parallel loops inside use the runtime's thread pool).
  void run(const std::vector<void*>& buffers) const;
  KernelFunction function() const { return function_; }
  const std::string& name() const { return name_; }
  int num_params() const { return num_params_; }
  bool defined() const { return function_ != nullptr; }

 private:
  friend class CompiledModule;
  std::shared_ptr<JitModule> module_;
  KernelFunction function_ = nullptr;
  std::string name_;
  int num_params_ = 0;
};

// Several PrimFuncs JIT-compiled as one LLVM module (one optimisation run,
// one allocation of code memory).
class CompiledModule {
 public:
  CompiledModule() = default;
  bool has_kernel(const std::string& name) const;
  CompiledKernel kernel(const std::string& name) const;  // throws for an unknown name
  std::vector<std::string> kernel_names() const;

 private:
  friend CompiledModule jit_compile(const std::vector<tir::PrimFunc>&, const Target&);
  friend CompiledModule load_object(const std::vector<char>&,
                                    const std::vector<std::pair<std::string, int>>&);
  std::shared_ptr<JitModule> module_;
  std::vector<std::pair<std::string, int>> kernels_;  // name, parameter count
};

// Throws lathe::Error when code for `target` cannot run on a CPU with
// `cpu_features` (runtime::decode_cpu_features' names): a target for another
// triple, or one whose instruction sets the CPU lacks, compared as the package
// loader compares them (runtime::missing_cpu_features of target.isa_features(),
// so features no generated code contains, as invpcid or rdseed, never count).
// jit_compile checks against runtime::host_cpu_features(); tests pass other
// machines' CPUID.
void check_jit_target(const Target& target, const std::set<std::string>& cpu_features);

// Lowers, optimises (new pass manager, -opt-level) and JIT-compiles. Throws
// lathe::Error for TIR that the CPU back end cannot compile (GPU thread
// bindings, unlowered ProducerLoad/Reduce, undefined variables ...) and for a
// target check_jit_target refuses on this machine.
CompiledModule jit_compile(const std::vector<tir::PrimFunc>& funcs, const Target& target);
CompiledKernel jit_compile(const tir::PrimFunc& func, const Target& target);

// Text and binary forms of the same module the JIT would run.
enum class IRStage { BeforeOptimization, AfterOptimization };
std::string emit_llvm_ir(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                         IRStage stage = IRStage::AfterOptimization);
std::string emit_assembly(const std::vector<tir::PrimFunc>& funcs, const Target& target);
// An ELF relocatable object (position independent), ready to link into a
// shared library that resolves lathe_parallel_for/lathe_alloc/lathe_free and
// libm from its host process.
std::vector<char> emit_object(const std::vector<tir::PrimFunc>& funcs, const Target& target);

// Loads an object emit_object produced into the JIT (resolving lathe_parallel_for & co. and libm
// from this process) and returns its kernels. Throws lathe::Error for bytes that are not such an
// object, and for a kernel it does not define. The object is not checked against the host CPU:
// code for features this machine lacks dies of SIGILL when it runs (the tuner's worker process
// reports that as a runtime error).
CompiledModule load_object(
    const std::vector<char>& object,
    const std::vector<std::pair<std::string, int>>& kernels /* name, parameter count */);

// Symbol names the generated code uses, for a package linker or a loader.
inline constexpr const char* kParallelForSymbol = "lathe_parallel_for";
inline constexpr const char* kAllocSymbol = "lathe_alloc";
inline constexpr const char* kFreeSymbol = "lathe_free";

}  // namespace lathe::codegen
