// From PrimFuncs to an optimised LLVM module: the target machine, the
// translation, verification, and the new pass manager's O0-O3 pipeline.
#include <llvm-c/Target.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

#include "codegen/codegen_nvptx.h"
#include "codegen/llvm_codegen.h"
#include "support/error.h"

namespace lathe::codegen::detail {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // The cuda kind: NVPTX is in Debian's libLLVM-19 beside the native target.
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::unique_ptr<CodeGenLLVM> make_codegen(llvm::Module& module, const Target& target) {
  switch (target.kind) {
    case TargetKind::Llvm:
      return std::make_unique<CodeGenCPU>(module, target);
    case TargetKind::Cuda:
      return std::make_unique<CodeGenNVPTX>(module, target);
  }
  fail(str("codegen llvm: no code generator for target '", target.to_string(), "'"));
}

llvm::TargetOptions target_options(const Target& target) {
  llvm::TargetOptions options;
  // As TVM: the back end may contract a*b+c into an FMA even without
  // fast-math; the few ulps it changes never matter to a network, the speed does.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  if (target.fast_math) {
    options.UnsafeFPMath = true;
    options.NoInfsFPMath = true;
    options.NoNaNsFPMath = true;
    options.NoSignedZerosFPMath = true;
    options.ApproxFuncFPMath = true;
  }
  return options;
}

llvm::CodeGenOptLevel codegen_opt_level(const Target& target) {
  switch (target.opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& target) {
  initialize_llvm();
  const std::string triple = target.triple();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvm_target)
    fail(str("codegen llvm: target '", target.to_string(), "': triple '", triple,
             "' is not available (Lathe initialises the native LLVM target and NVPTX): ", error));
  std::unique_ptr<llvm::TargetMachine> machine(llvm_target->createTargetMachine(
      triple, target.cpu(), target.features(), target_options(target), llvm::Reloc::PIC_,
      std::nullopt, codegen_opt_level(target)));
  if (!machine)
    fail(str("codegen llvm: LLVM cannot make a target machine for '", target.to_string(), "'"));
  return machine;
}

void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, const Target& target) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = target.opt_level >= 2;
  tuning.LoopVectorization = target.opt_level >= 2;
  tuning.SLPVectorization = target.opt_level >= 2;
  // The machine gives the cost model (TTI) the CPU's vector widths and costs.
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O3;
  switch (target.opt_level) {
    case 0:
      level = llvm::OptimizationLevel::O0;
      break;
    case 1:
      level = llvm::OptimizationLevel::O1;
      break;
    case 2:
      level = llvm::OptimizationLevel::O2;
      break;
    default:
      break;
  }
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
}

BuiltModule build_module(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                         bool optimize) {
  return build_module(
      funcs, target, [&](llvm::Module& module) { return make_codegen(module, target); }, optimize);
}

BuiltModule build_module(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                         const CodeGenFactory& make, bool optimize) {
  // An empty module is legitimate: a model whose outputs all folded to
  // constants still makes a package.
  BuiltModule built;
  built.machine = create_target_machine(target);
  built.context = std::make_unique<llvm::LLVMContext>();
  built.module = std::make_unique<llvm::Module>(
      funcs.empty() ? std::string("lathe_module") : funcs.front().name, *built.context);
  built.module->setTargetTriple(built.machine->getTargetTriple().str());
  built.module->setDataLayout(built.machine->createDataLayout());
  std::unique_ptr<CodeGenLLVM> codegen = make(*built.module);
  for (const tir::PrimFunc& f : funcs) codegen->add_function(f);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*built.module, &os)) {
    os.flush();
    fail(str("codegen llvm: internal error, the generated LLVM IR is invalid: ", problems));
  }
  if (optimize) optimize_module(*built.module, *built.machine, target);
  return built;
}

}  // namespace lathe::codegen::detail
