// ORC LLJIT for quick runs: one JIT session per target (its target machine is
// fixed), one JITDylib per compiled module so that kernels of the same name
// never clash, and a ResourceTracker that frees a module's code with its last
// kernel. The runtime's entry points and libm resolve to this process, for
// modules compiled from TIR here and for objects emitted elsewhere alike.
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "codegen/codegen.h"
#include "codegen/gpu_simulator_abi.h"
#include "codegen/llvm_codegen.h"
#include "runtime/backend_api.h"
#include "runtime/cpu_features.h"
#include "support/error.h"

namespace lathe::codegen {

namespace {

std::string message_of(llvm::Error error) {
  return llvm::toString(std::move(error));
}

template <typename F>
uint64_t address_of(F* function) {
  return reinterpret_cast<uint64_t>(function);
}

class JitSession {
 public:
  static std::shared_ptr<JitSession> for_target(const Target& target) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<JitSession>> sessions;
    std::lock_guard lock(mutex);
    std::shared_ptr<JitSession>& session = sessions[target.to_string()];
    if (!session) session = std::shared_ptr<JitSession>(new JitSession(target));
    return session;
  }

  llvm::orc::LLJIT& jit() { return *jit_; }
  std::string next_dylib_name() { return "lathe_module_" + std::to_string(count_++); }

 private:
  explicit JitSession(const Target& target) {
    detail::initialize_llvm();
    llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(target.triple())};
    machine.setCPU(target.cpu());
    machine.setFeatures(target.features());
    machine.setCodeGenOptLevel(detail::codegen_opt_level(target));
    llvm::TargetOptions options = detail::target_options(target);
    options.EmulatedTLS = machine.getOptions().EmulatedTLS;  // the JIT's own choice
    machine.setOptions(options);
    auto jit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(machine))
                   // Kernels are compiled from several threads (studio, tuner):
                   // each compile gets its own target machine.
                   .setSupportConcurrentCompilation(true)
                   .create();
    if (!jit)
      fail(str("codegen llvm: cannot start the JIT for '", target.to_string(),
               "': ", message_of(jit.takeError())));
    jit_ = std::move(*jit);
    define_runtime_symbols();
  }

  // The runtime may be linked statically without exporting its symbols, so
  // its entry points are given by address; so is the libm the code calls,
  // and the process's own symbol search covers anything else (memset ...).
  void define_runtime_symbols() {
    llvm::orc::SymbolMap symbols;
    const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
    auto add = [&](const char* name, uint64_t address) {
      symbols[jit_->mangleAndIntern(name)] =
          llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr(address), flags);
    };
    add(kParallelForSymbol, address_of(&lathe_parallel_for));
    add(kAllocSymbol, address_of(&lathe_alloc));
    add(kFreeSymbol, address_of(&lathe_free));
    add(kGpuSimBarrierSymbol, address_of(&lathe_gpusim_barrier));
    add(kGpuSimShuffleXorSymbol, address_of(&lathe_gpusim_shuffle_xor));
    using F1 = float (*)(float);
    using D1 = double (*)(double);
    using F2 = float (*)(float, float);
    using D2 = double (*)(double, double);
    using F3 = float (*)(float, float, float);
    using D3 = double (*)(double, double, double);
    add("expf", address_of(static_cast<F1>(::expf)));
    add("exp", address_of(static_cast<D1>(::exp)));
    add("logf", address_of(static_cast<F1>(::logf)));
    add("log", address_of(static_cast<D1>(::log)));
    add("tanhf", address_of(static_cast<F1>(::tanhf)));
    add("tanh", address_of(static_cast<D1>(::tanh)));
    add("erff", address_of(static_cast<F1>(::erff)));
    add("erf", address_of(static_cast<D1>(::erf)));
    add("sqrtf", address_of(static_cast<F1>(::sqrtf)));
    add("sqrt", address_of(static_cast<D1>(::sqrt)));
    add("floorf", address_of(static_cast<F1>(::floorf)));
    add("floor", address_of(static_cast<D1>(::floor)));
    add("ceilf", address_of(static_cast<F1>(::ceilf)));
    add("ceil", address_of(static_cast<D1>(::ceil)));
    add("powf", address_of(static_cast<F2>(::powf)));
    add("pow", address_of(static_cast<D2>(::pow)));
    add("fmaf", address_of(static_cast<F3>(::fmaf)));
    add("fma", address_of(static_cast<D3>(::fma)));
    add("fmodf", address_of(static_cast<F2>(::fmodf)));
    add("fmod", address_of(static_cast<D2>(::fmod)));
    add("roundevenf", address_of(static_cast<F1>(::roundevenf)));
    add("roundeven", address_of(static_cast<D1>(::roundeven)));
    // Trigonometric and hyperbolic functions, as TE's intrinsics of the same names.
    const std::pair<const char*, F1> float_math[] = {
        {"sinf", ::sinf},     {"cosf", ::cosf},     {"tanf", ::tanf},    {"asinf", ::asinf},
        {"acosf", ::acosf},   {"atanf", ::atanf},   {"sinhf", ::sinhf},  {"coshf", ::coshf},
        {"asinhf", ::asinhf}, {"acoshf", ::acoshf}, {"atanhf", ::atanhf}};
    const std::pair<const char*, D1> double_math[] = {
        {"sin", ::sin},     {"cos", ::cos},     {"tan", ::tan},    {"asin", ::asin},
        {"acos", ::acos},   {"atan", ::atan},   {"sinh", ::sinh},  {"cosh", ::cosh},
        {"asinh", ::asinh}, {"acosh", ::acosh}, {"atanh", ::atanh}};
    for (const auto& [name, fn] : float_math) add(name, address_of(fn));
    for (const auto& [name, fn] : double_math) add(name, address_of(fn));
    if (llvm::Error error = jit_->getProcessSymbolsJITDylib()->define(
            llvm::orc::absoluteSymbols(std::move(symbols))))
      fail(str("codegen llvm: cannot define the runtime symbols: ", message_of(std::move(error))));
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::atomic<uint64_t> count_{0};
};

}  // namespace

// The compiled code of one module; freed when the last kernel pointing into it goes.
class JitModule {
 public:
  JitModule(std::shared_ptr<JitSession> session, llvm::orc::JITDylib& dylib)
      : session_(std::move(session)), dylib_(&dylib), tracker_(dylib.createResourceTracker()) {}

  ~JitModule() {
    if (llvm::Error error = tracker_->remove())
      llvm::errs() << "lathe: freeing JIT code: " << message_of(std::move(error)) << "\n";
    tracker_ = nullptr;
    if (llvm::Error error = session_->jit().getExecutionSession().removeJITDylib(*dylib_))
      llvm::errs() << "lathe: removing a JIT module: " << message_of(std::move(error)) << "\n";
  }

  // A module of its own JITDylib in the session.
  static std::shared_ptr<JitModule> create(std::shared_ptr<JitSession> session) {
    auto dylib = session->jit().createJITDylib(session->next_dylib_name());
    if (!dylib) fail(str("codegen llvm: ", message_of(dylib.takeError())));
    return std::make_shared<JitModule>(std::move(session), *dylib);
  }

  JitSession& session() { return *session_; }
  llvm::orc::JITDylib& dylib() { return *dylib_; }
  const llvm::orc::ResourceTrackerSP& tracker() const { return tracker_; }

  // Looks each kernel up, which links the module's code on the first lookup.
  void resolve(const std::vector<std::pair<std::string, int>>& signatures) {
    for (const auto& [name, num_params] : signatures) {
      auto address = session_->jit().lookup(*dylib_, name);
      if (!address)
        fail(str("codegen llvm: kernel '", name,
                 "' did not link: ", message_of(address.takeError())));
      kernels[name] = {address->toPtr<KernelFunction>(), num_params};
    }
  }

  void* function_address(const std::string& name) {
    auto address = session_->jit().lookup(*dylib_, name);
    if (!address)
      fail(str("codegen llvm: '", name, "' did not link: ", message_of(address.takeError())));
    return address->toPtr<void*>();
  }

  std::unordered_map<std::string, std::pair<KernelFunction, int>> kernels;

 private:
  std::shared_ptr<JitSession> session_;
  llvm::orc::JITDylib* dylib_;
  llvm::orc::ResourceTrackerSP tracker_;
};

void CompiledKernel::run(const std::vector<void*>& buffers) const {
  if (!function_) fail("run of an empty CompiledKernel");
  if (static_cast<int>(buffers.size()) != num_params_)
    fail(str("kernel '", name_, "' takes ", num_params_, " buffers, got ", buffers.size()));
  // The kernel only reads the argument array.
  function_(const_cast<void**>(buffers.data()));
}

bool CompiledModule::has_kernel(const std::string& name) const {
  return module_ && module_->kernels.count(name) > 0;
}

CompiledKernel CompiledModule::kernel(const std::string& name) const {
  if (!has_kernel(name)) fail(str("no kernel '", name, "' in the compiled module"));
  CompiledKernel k;
  k.module_ = module_;
  k.function_ = module_->kernels.at(name).first;
  k.num_params_ = module_->kernels.at(name).second;
  k.name_ = name;
  return k;
}

std::vector<std::string> CompiledModule::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& entry : kernels_) names.push_back(entry.first);
  return names;
}

void check_jit_target(const Target& target, const std::set<std::string>& cpu_features) {
  if (target.is_gpu())
    fail(str("codegen llvm: the JIT runs CPU code; target '", target.to_string(),
             "' is a GPU, whose kernels are PTX for the CUDA driver (emit_assembly)"));
  if (!target.is_host())
    fail(str("codegen llvm: cannot run code for '", target.to_string(), "' (triple ",
             target.triple(), ") on this machine; emit an object instead"));
  if (std::vector<std::string> missing =
          runtime::missing_cpu_features(target.isa_features(), cpu_features);
      !missing.empty()) {
    std::string names;
    for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
    fail(str("codegen llvm: target '", target.to_string(),
             "' uses CPU features this machine lacks (", names, "); its code cannot run here"));
  }
}

CompiledModule jit_compile(const std::vector<tir::PrimFunc>& funcs, const Target& target) {
  check_jit_target(target, runtime::host_cpu_features());
  std::shared_ptr<JitSession> session = JitSession::for_target(target);
  detail::BuiltModule built = detail::build_module(funcs, target, /*optimize=*/true);

  std::shared_ptr<JitModule> module = JitModule::create(session);
  llvm::orc::ThreadSafeModule tsm(std::move(built.module), std::move(built.context));
  if (llvm::Error error = session->jit().addIRModule(module->tracker(), std::move(tsm)))
    fail(str("codegen llvm: cannot add the module to the JIT: ", message_of(std::move(error))));

  CompiledModule result;
  result.module_ = module;
  for (const tir::PrimFunc& f : funcs)
    result.kernels_.emplace_back(f.name, static_cast<int>(f.params.size()));
  module->resolve(result.kernels_);
  return result;
}

namespace {

// An object file in a JIT module of its own. Only the host runs loaded code,
// and an object needs no compiling: the host's session links it whatever
// target it was emitted for.
std::shared_ptr<JitModule> add_object(const std::vector<char>& object) {
  std::shared_ptr<JitSession> session = JitSession::for_target(Target::host());
  std::shared_ptr<JitModule> module = JitModule::create(session);
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(object.data(), object.size()), "lathe_object");
  if (llvm::Error error = session->jit().addObjectFile(module->tracker(), std::move(buffer)))
    fail(str("codegen llvm: not a loadable object (", object.size(),
             " bytes): ", message_of(std::move(error))));
  return module;
}

}  // namespace

CompiledModule load_object(const std::vector<char>& object,
                           const std::vector<std::pair<std::string, int>>& kernels) {
  CompiledModule result;
  result.module_ = add_object(object);
  result.kernels_ = kernels;
  result.module_->resolve(kernels);
  return result;
}

namespace detail {

namespace {

LinkedFunctions look_up(std::shared_ptr<JitModule> module, const std::vector<std::string>& names) {
  LinkedFunctions linked;
  for (const std::string& name : names) linked.addresses.push_back(module->function_address(name));
  linked.owner = std::move(module);
  return linked;
}

}  // namespace

LinkedFunctions jit_link(BuiltModule built, const std::vector<std::string>& names) {
  std::shared_ptr<JitSession> session = JitSession::for_target(Target::host());
  std::shared_ptr<JitModule> module = JitModule::create(session);
  llvm::orc::ThreadSafeModule tsm(std::move(built.module), std::move(built.context));
  if (llvm::Error error = session->jit().addIRModule(module->tracker(), std::move(tsm)))
    fail(str("codegen llvm: cannot add the module to the JIT: ", message_of(std::move(error))));
  return look_up(std::move(module), names);
}

LinkedFunctions jit_link_object(const std::vector<char>& object,
                                const std::vector<std::string>& names) {
  return look_up(add_object(object), names);
}

}  // namespace detail

CompiledKernel jit_compile(const tir::PrimFunc& func, const Target& target) {
  return jit_compile(std::vector<tir::PrimFunc>{func}, target).kernel(func.name);
}

}  // namespace lathe::codegen
