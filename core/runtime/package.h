// A compiled package (module.tar, as tvmc writes it): mod.so with the kernels,
// mod.json with the graph, mod.params with the weights. Loading extracts the
// tar into a private temporary folder, dlopens mod.so, checks that this CPU
// has every instruction-set extension its code may contain (runtime/
// cpu_features, the JIT's check as well) and builds a GraphExecutor whose
// kernels are mod.so's symbols.
//
// A cuda package holds mod.ptx instead of mod.so, and its mod.json carries
// the target and every kernel's launch (runtime/graph_json.h): loading it
// opens the CUDA driver (never touched for a CPU package), loads the PTX and
// builds a GraphExecutor on the GPU. Without the driver it is refused: "this
// package is for cuda; libcuda.so.1 is not available: ...".
//
// mod.so leaves lathe_parallel_for, lathe_alloc and lathe_free undefined: they
// resolve to liblathe_runtime.so, which the host process has loaded (linked
// against it, or dlopen'ed RTLD_GLOBAL).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "runtime/graph_executor.h"

namespace lathe::runtime {

// The C symbols mod.so defines besides the kernels.
inline constexpr const char* kModuleTargetSymbol = "lathe_module_target";      // "llvm -mcpu=..."
inline constexpr const char* kModuleFeaturesSymbol = "lathe_module_features";  // "+avx2,..."

// The members a package needs (mod.so or mod.ptx, mod.json, mod.params),
// read from the tar into memory by name; other members are ignored and never
// written to disk. Throws Error naming the file for: not a tar, a truncated
// tar or member, a missing member, both mod.so and mod.ptx. Package's constructor starts here;
// fuzz_package calls it alone, without dlopen.
std::map<std::string, std::string> read_package_members(const std::string& tar_path);

// The executor of a cuda graph on GPU 0: `ptx` loaded as one module, each
// kernel launched with desc.launches' record. Throws Error: no driver
// (CudaDeviceAPI::get's message), the driver refuses the PTX (its log), a
// kernel missing from the PTX or from the launches, and GraphExecutor's errors.
std::unique_ptr<GraphExecutor> make_cuda_executor(GraphModuleDesc desc, const std::string& ptx,
                                                  const std::map<std::string, NDArray>& params);

class Package {
 public:
  // Throws Error naming the file for: no such file, not a tar, a truncated
  // tar or member, a missing member, a mod.so that does not load (dlerror's
  // text), a CPU lacking features ("module.tar was built for -mcpu=X; this
  // CPU lacks avx512f, amx-tile"), a bad mod.json or mod.params, a kernel
  // mod.json names that mod.so lacks.
  explicit Package(const std::string& tar_path);
  // As above, but mod.so's features are checked against `cpu_features`
  // (decode_cpu_features' names) instead of this CPU's: how a test loads a
  // package as another machine, a VM hiding some CPUID bits, would.
  Package(const std::string& tar_path, const std::set<std::string>& cpu_features);
  ~Package();
  Package(const Package&) = delete;
  Package& operator=(const Package&) = delete;

  GraphExecutor& executor() { return *executor_; }
  const GraphExecutor& executor() const { return *executor_; }
  const std::string& path() const { return path_; }
  // lathe_module_target, or a cuda package's mod.json target.
  const std::string& target() const { return target_; }
  Device device() const { return device_; }                  // where its kernels run
  const std::string& features() const { return features_; }  // lathe_module_features

 private:
  void load(const std::set<std::string>& cpu_features);
  void load_cuda(GraphModuleDesc desc, std::map<std::string, std::string>& members);
  void release();

  std::string path_;
  std::string dir_;  // the private extraction folder, removed at destruction
  void* library_ = nullptr;
  std::string target_, features_;
  Device device_;
  std::unique_ptr<GraphExecutor> executor_;
};

}  // namespace lathe::runtime
