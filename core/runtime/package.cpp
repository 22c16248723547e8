// Loading module.tar: libarchive extraction into a mkdtemp folder, dlopen,
// the CPU feature check, then mod.json and mod.params into a GraphExecutor.
#include "runtime/package.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "runtime/cpu_features.h"
#include "runtime/cuda_device_api.h"
#include "runtime/params.h"
#include "runtime/thread_pool.h"

namespace lathe::runtime {

namespace {

// mod.so for a CPU package, mod.ptx for a cuda one.
const char* const kMembers[] = {"mod.so", "mod.ptx", "mod.json", "mod.params"};

}  // namespace

// Other members are never written to disk, so no path in the tar can escape
// the extraction folder.
std::map<std::string, std::string> read_package_members(const std::string& path) {
  std::unique_ptr<archive, int (*)(archive*)> reader(archive_read_new(), archive_read_free);
  archive* a = reader.get();
  archive_read_support_format_tar(a);
  archive_read_support_filter_all(a);
  if (archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK)
    throw Error(path + ": cannot open as a tar archive: " + archive_error_string(a));
  std::map<std::string, std::string> members;
  for (;;) {
    archive_entry* entry = nullptr;
    const int r = archive_read_next_header(a, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN)
      throw Error(path + ": not a readable tar archive: " + archive_error_string(a));
    std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    while (name.rfind("./", 0) == 0) name = name.substr(2);
    bool wanted = archive_entry_filetype(entry) == AE_IFREG;
    wanted =
        wanted && std::find(std::begin(kMembers), std::end(kMembers), name) != std::end(kMembers);
    if (!wanted) continue;
    std::string data;
    char buffer[1 << 16];
    for (;;) {
      const la_ssize_t n = archive_read_data(a, buffer, sizeof buffer);
      if (n < 0)
        throw Error(path + ": member " + name +
                    " is truncated or corrupt: " + archive_error_string(a));
      if (n == 0) break;
      data.append(buffer, static_cast<size_t>(n));
    }
    if (archive_entry_size_is_set(entry) &&
        static_cast<int64_t>(data.size()) != archive_entry_size(entry))
      throw Error(path + ": member " + name + " is truncated (" + std::to_string(data.size()) +
                  " of " + std::to_string(archive_entry_size(entry)) + " bytes)");
    members[name] = std::move(data);
  }
  for (const char* member : {"mod.json", "mod.params"})
    if (!members.count(member))
      throw Error(path + ": missing member " + member +
                  " (a package holds mod.so or mod.ptx, mod.json and mod.params)");
  if (members.count("mod.so") == members.count("mod.ptx"))
    throw Error(
        path +
        (members.count("mod.so") ? ": holds both mod.so and mod.ptx" : ": missing member mod.so") +
        " (a package holds mod.so or mod.ptx, mod.json and mod.params)");
  return members;
}

namespace {

std::string make_private_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/lathe-package-XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw Error("cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
  return pattern;
}

const char* symbol_text(void* library, const char* symbol, const std::string& path) {
  dlerror();
  void* p = dlsym(library, symbol);
  if (!p)
    throw Error(path + ": mod.so defines no " + symbol + " (not built by Lathe's package writer)");
  return static_cast<const char*>(p);
}

// "llvm -mcpu=skylake-avx512 -opt-level=3" -> "-mcpu=skylake-avx512".
std::string cpu_description(const std::string& target) {
  const size_t at = target.find("-mcpu=");
  if (at == std::string::npos) return "target '" + target + "'";
  return target.substr(at, target.find(' ', at) - at);
}

}  // namespace

std::unique_ptr<GraphExecutor> make_cuda_executor(GraphModuleDesc desc, const std::string& ptx,
                                                  const ParamMap& params) {
  std::shared_ptr<CudaDeviceAPI> device = CudaDeviceAPI::get(0);
  auto module = std::make_shared<CudaModule>(device, ptx);
  const std::map<std::string, KernelLaunch> launches = desc.launches;
  DeviceKernels kernels{device, [module, launches](const std::string& name) -> DeviceKernel {
                          auto it = launches.find(name);
                          if (it == launches.end())
                            throw Error("kernel '" + name + "' has no launch record in mod.json");
                          const KernelLaunch launch = it->second;
                          const CudaFunction function = module->function(name, launch);
                          return [module, function, launch](void* const* buffers, size_t count) {
                            module->launch(function, launch, buffers, count);
                          };
                        }};
  return std::make_unique<GraphExecutor>(std::move(desc), kernels, params);
}

Package::Package(const std::string& tar_path) : Package(tar_path, host_cpu_features()) {}

Package::Package(const std::string& tar_path, const std::set<std::string>& cpu_features)
    : path_(tar_path) {
  try {
    load(cpu_features);
  } catch (...) {
    release();
    throw;
  }
}

Package::~Package() {
  release();
}

void Package::release() {
  executor_.reset();
  if (library_) dlclose(library_);
  library_ = nullptr;
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    dir_.clear();
  }
}

void Package::load_cuda(GraphModuleDesc desc, std::map<std::string, std::string>& members) {
  target_ = desc.target;
  device_ = {DeviceType::Cuda, 0};
  if (target_.rfind("cuda", 0) != 0)
    throw Error(path_ + ": holds mod.ptx but mod.json's target is '" + target_ +
                "', not a cuda target");
  ParamMap params = load_params(members["mod.params"], path_ + ": mod.params");
  try {
    CudaDeviceAPI::get(0);
  } catch (const Error& e) {
    throw Error(path_ + ": this package is for cuda; " + cuda_driver_library() +
                " is not available: " + e.what());
  }
  try {
    executor_ = make_cuda_executor(std::move(desc), members["mod.ptx"], params);
  } catch (const Error& e) {
    throw Error(path_ + ": " + e.what());
  }
}

void Package::load(const std::set<std::string>& cpu_features) {
  if (!std::filesystem::exists(path_)) throw Error(path_ + ": no such file");
  std::map<std::string, std::string> members = read_package_members(path_);

  GraphModuleDesc desc;
  try {
    desc = parse_graph_json(members["mod.json"]);
  } catch (const Error& e) {
    throw Error(path_ + ": mod.json: " + e.what());
  }
  if (members.count("mod.ptx")) return load_cuda(std::move(desc), members);
  // mod.so brings external kernels' libraries along (and their OpenMP).
  if (std::any_of(desc.nodes.begin(), desc.nodes.end(),
                  [](const GraphNode& node) { return node.external; }))
    prefer_passive_openmp();

  dir_ = make_private_dir();
  const std::string so_path = dir_ + "/mod.so";
  {
    std::ofstream out(so_path, std::ios::binary);
    out.write(members["mod.so"].data(), static_cast<std::streamsize>(members["mod.so"].size()));
    if (!out) throw Error("cannot write " + so_path);
  }
  library_ = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* why = dlerror();
    throw Error(path_ + ": cannot load mod.so: " + (why ? why : "unknown dlopen error"));
  }

  // Before any kernel is looked up: can this CPU run them at all?
  target_ = symbol_text(library_, kModuleTargetSymbol, path_);
  features_ = symbol_text(library_, kModuleFeaturesSymbol, path_);
  const std::vector<std::string> missing = missing_cpu_features(features_, cpu_features);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& f : missing) list += (list.empty() ? "" : ", ") + f;
    throw Error(path_ + " was built for " + cpu_description(target_) + "; this CPU lacks " + list);
  }

  ParamMap params = load_params(members["mod.params"], path_ + ": mod.params");
  void* library = library_;
  KernelLookup lookup = [library](const std::string& name) -> KernelFunction {
    return reinterpret_cast<KernelFunction>(dlsym(library, name.c_str()));
  };
  // External codegens' tables come from the libraries mod.so links.
  // The library defining an entry stays loaded for the process's life
  // (RTLD_NODELETE): a vendor library's worker threads (oneDNN's OpenMP
  // pool) outlive the package, and would run unmapped code at exit if
  // closing mod.so unloaded it.
  ExternalLookup external = [library](const std::string& name) -> const LatheExternalFunctions* {
    auto entry = reinterpret_cast<LatheExternalEntry>(dlsym(library, name.c_str()));
    if (!entry) return nullptr;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(entry), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return entry();
  };
  try {
    executor_ = std::make_unique<GraphExecutor>(std::move(desc), lookup, params, external);
  } catch (const Error& e) {
    throw Error(path_ + ": " + e.what());
  }
}

}  // namespace lathe::runtime
