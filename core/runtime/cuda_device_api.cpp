// CUDA's DeviceAPI, timers and PTX modules over the dlopen'ed driver.
#include "runtime/cuda_device_api.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/ndarray.h"

namespace lathe::runtime {

namespace {

CudaDevicePtr address(const void* data) {
  return static_cast<CudaDevicePtr>(reinterpret_cast<uintptr_t>(data));
}

std::string extents(const std::array<int64_t, 3>& e) {
  return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]);
}

// Two events on the default stream.
class CudaTimer final : public DeviceTimer {
 public:
  explicit CudaTimer(std::shared_ptr<CudaDeviceAPI> device) : device_(std::move(device)) {
    device_->make_current();
    start_ = device_->driver().create_event();
    try {
      stop_ = device_->driver().create_event();
    } catch (...) {
      device_->driver().destroy_event(start_);
      throw;
    }
  }
  ~CudaTimer() override {
    try {
      device_->driver().destroy_event(start_);
      device_->driver().destroy_event(stop_);
    } catch (const Error&) {
      // A context already faulted cannot destroy its events; nothing to do.
    }
  }
  void start() override { device_->driver().record_event(start_); }
  void stop() override { device_->driver().record_event(stop_); }
  double elapsed_ms() override { return device_->driver().elapsed_ms(start_, stop_); }

 private:
  std::shared_ptr<CudaDeviceAPI> device_;
  CudaEvent start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::string cuda_driver_library() {
  const char* library = std::getenv("LATHE_CUDA_LIBRARY");
  return library && *library ? library : "libcuda.so.1";
}

std::shared_ptr<CudaDeviceAPI> CudaDeviceAPI::get(int ordinal) {
  static std::mutex mutex;
  // Never destroyed: buffers freed at exit still find their context.
  static auto* opened = new std::map<std::pair<std::string, int>, std::shared_ptr<CudaDeviceAPI>>;
  const std::string library = cuda_driver_library();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = opened->find({library, ordinal});
  if (it != opened->end()) return it->second;
  std::unique_ptr<CudaDriver> driver = CudaDriver::open(library);
  const int count = driver->device_count();
  if (ordinal < 0 || ordinal >= count)
    throw Error("cuda: no GPU " + std::to_string(ordinal) + ": the driver (" + library + ") sees " +
                std::to_string(count) + " devices");
  auto api = std::make_shared<CudaDeviceAPI>(std::move(driver), ordinal);
  opened->emplace(std::make_pair(library, ordinal), api);
  return api;
}

CudaDeviceAPI::CudaDeviceAPI(std::unique_ptr<CudaDriver> driver, int ordinal)
    : driver_(std::move(driver)), ordinal_(ordinal) {
  context_ = driver_->retain_primary_context(ordinal_);
}

void CudaDeviceAPI::make_current() const {
  driver_->set_current(context_);
}

std::string CudaDeviceAPI::name() const {
  return driver_->device_name(ordinal_) + " (" + driver_->device_arch(ordinal_) + ")";
}

void* CudaDeviceAPI::allocate(size_t bytes) {
  make_current();
  // cuMemAlloc aligns to 256 bytes at least.
  const CudaDevicePtr data = driver_->allocate(bytes);
  try {
    driver_->fill_zero(data, bytes);
  } catch (...) {
    driver_->free(data);
    throw;
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(data));
}

void CudaDeviceAPI::free(void* data) noexcept {
  try {
    make_current();
    driver_->free(address(data));
  } catch (const Error&) {
    // After a kernel's fault the context refuses every call; the memory goes with it.
  }
}

void CudaDeviceAPI::copy_from_host(void* dst, const void* src, size_t bytes) {
  make_current();
  driver_->copy_host_to_device(address(dst), src, bytes);
}

void CudaDeviceAPI::copy_to_host(void* dst, const void* src, size_t bytes) {
  make_current();
  driver_->copy_device_to_host(dst, address(src), bytes);
}

void CudaDeviceAPI::copy_within(void* dst, const void* src, size_t bytes) {
  make_current();
  driver_->copy_device_to_device(address(dst), address(src), bytes);
}

void CudaDeviceAPI::synchronize() {
  make_current();
  driver_->synchronize();
}

std::unique_ptr<DeviceTimer> CudaDeviceAPI::create_timer() {
  // The timer keeps the API alive.
  return std::make_unique<CudaTimer>(shared_from_this());
}

CudaModule::CudaModule(std::shared_ptr<CudaDeviceAPI> device, const std::string& ptx)
    : device_(std::move(device)) {
  device_->make_current();
  module_ = device_->driver().load_module(ptx);
}

CudaModule::~CudaModule() {
  try {
    device_->make_current();
    device_->driver().unload_module(module_);
  } catch (const Error&) {
    // A faulted context: the module goes with it.
  }
}

CudaFunction CudaModule::function(const std::string& name, const KernelLaunch& launch) const {
  device_->make_current();
  const CudaFunction function = device_->driver().find_function(module_, name);
  if (!function) throw Error("kernel '" + name + "' is not in the PTX module");
  const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  const int limit = device_->driver().max_threads_per_block(function);
  if (threads > limit)
    throw Error("kernel '" + name + "' launches blocks of " + extents(launch.block) + " = " +
                std::to_string(threads) + " threads; compiled for this GPU it takes at most " +
                std::to_string(limit) + " (it uses " +
                std::to_string(device_->driver().registers_per_thread(function)) +
                " registers a thread)");
  return function;
}

void CudaModule::launch(CudaFunction function, const KernelLaunch& launch, void* const* buffers,
                        size_t count) const {
  // cuLaunchKernel reads each parameter through a pointer to its value.
  constexpr size_t kMaxParams = 256;
  if (count > kMaxParams)
    throw Error("a kernel with " + std::to_string(count) + " buffers; at most 256 are launched");
  CudaDevicePtr values[kMaxParams];
  void* params[kMaxParams];
  for (size_t i = 0; i < count; ++i) {
    values[i] = address(buffers[i]);
    params[i] = &values[i];
  }
  auto u32 = [](const std::array<int64_t, 3>& e) {
    return std::array<uint32_t, 3>{uint32_t(e[0]), uint32_t(e[1]), uint32_t(e[2])};
  };
  device_->make_current();
  device_->driver().launch(function, u32(launch.grid), u32(launch.block), 0, params);
}

}  // namespace lathe::runtime
