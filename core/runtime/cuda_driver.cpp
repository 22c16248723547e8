#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <type_traits>
#include <vector>

#include "runtime/ndarray.h"

namespace lathe::runtime {

namespace {

// The driver API's types as its header declares them (cuda.h is not needed:
// these are the stable C ABI; the _v2 entry points since CUDA 3.2, the
// primary context's release since CUDA 11).
using CUresult = int;
using CUdevice = int;
using CUstream = void*;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kFuncMaxThreadsPerBlock = 0;   // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int kFuncNumRegs = 4;              // CU_FUNC_ATTRIBUTE_NUM_REGS
constexpr int kJitErrorLogBuffer = 5;        // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSize = 6;    // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
constexpr int kErrorNotFound = 500;          // CUDA_ERROR_NOT_FOUND

// Names for the errors a driver that cannot describe them returns (the
// toolkit's stub library answers every call with 34 and has no names).
const char* known_error_name(int result) {
  switch (result) {
    case 1:
      return "CUDA_ERROR_INVALID_VALUE";
    case 2:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3:
      return "CUDA_ERROR_NOT_INITIALIZED";
    case 34:
      return "CUDA_ERROR_STUB_LIBRARY";
    case 35:
      return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case 100:
      return "CUDA_ERROR_NO_DEVICE";
    default:
      return "error";
  }
}

}  // namespace

struct CudaDriver::Api {
  CUresult (*cuInit)(unsigned int) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CudaContext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CudaContext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CudaDevicePtr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CudaDevicePtr) = nullptr;
  CUresult (*cuMemsetD8)(CudaDevicePtr, unsigned char, size_t) = nullptr;
  CUresult (*cuMemcpyHtoD)(CudaDevicePtr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CudaDevicePtr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoD)(CudaDevicePtr, CudaDevicePtr, size_t) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CudaModuleHandle*, const void*, unsigned int, int*,
                                 void**) = nullptr;
  CUresult (*cuModuleUnload)(CudaModuleHandle) = nullptr;
  CUresult (*cuModuleGetFunction)(CudaFunction*, CudaModuleHandle, const char*) = nullptr;
  CUresult (*cuFuncGetAttribute)(int*, int, CudaFunction) = nullptr;
  CUresult (*cuLaunchKernel)(CudaFunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CudaEvent*, unsigned int) = nullptr;
  CUresult (*cuEventDestroy)(CudaEvent) = nullptr;
  CUresult (*cuEventRecord)(CudaEvent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CudaEvent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CudaEvent, CudaEvent) = nullptr;
};

const char* device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::Host:
      return "host";
    case DeviceType::Cuda:
      return "cuda";
  }
  return "unknown";
}

std::string Device::to_string() const {
  if (type == DeviceType::Host) return "host";
  return std::string(device_type_name(type)) + ":" + std::to_string(id);
}

std::unique_ptr<CudaDriver> CudaDriver::open(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error("cuda: cannot open the CUDA driver " + library + " (" +
                (why ? why : "unknown reason") +
                "); this machine has no NVIDIA driver, so code for a cuda target cannot run "
                "here (CPU packages still do)");
  }
  auto api = std::make_unique<Api>();
  std::vector<std::string> missing;
  // The first of `names` the library exports (a newer ABI's name first).
  auto bind = [&](auto& fn, std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (void* symbol = dlsym(handle, name)) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(symbol);
        return;
      }
    missing.push_back(*names.begin());
  };
  bind(api->cuInit, {"cuInit"});
  bind(api->cuDriverGetVersion, {"cuDriverGetVersion"});
  bind(api->cuDeviceGetCount, {"cuDeviceGetCount"});
  bind(api->cuDeviceGet, {"cuDeviceGet"});
  bind(api->cuDeviceGetName, {"cuDeviceGetName"});
  bind(api->cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  bind(api->cuDeviceTotalMem, {"cuDeviceTotalMem_v2"});
  bind(api->cuGetErrorName, {"cuGetErrorName"});
  bind(api->cuGetErrorString, {"cuGetErrorString"});
  bind(api->cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  bind(api->cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2"});
  bind(api->cuCtxSetCurrent, {"cuCtxSetCurrent"});
  bind(api->cuCtxSynchronize, {"cuCtxSynchronize"});
  bind(api->cuMemAlloc, {"cuMemAlloc_v2"});
  bind(api->cuMemFree, {"cuMemFree_v2"});
  bind(api->cuMemsetD8, {"cuMemsetD8_v2"});
  bind(api->cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
  bind(api->cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
  bind(api->cuMemcpyDtoD, {"cuMemcpyDtoD_v2"});
  bind(api->cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  bind(api->cuModuleUnload, {"cuModuleUnload"});
  bind(api->cuModuleGetFunction, {"cuModuleGetFunction"});
  bind(api->cuFuncGetAttribute, {"cuFuncGetAttribute"});
  bind(api->cuLaunchKernel, {"cuLaunchKernel"});
  bind(api->cuEventCreate, {"cuEventCreate"});
  bind(api->cuEventDestroy, {"cuEventDestroy_v2"});
  bind(api->cuEventRecord, {"cuEventRecord"});
  bind(api->cuEventSynchronize, {"cuEventSynchronize"});
  // CUDA 12.8 added the _v2 (cuda.h maps the name to it); older drivers have the first.
  bind(api->cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  if (!missing.empty()) {
    dlclose(handle);
    std::string names;
    for (const std::string& name : missing) names += (names.empty() ? "" : ", ") + name;
    // A library without cuInit is something else; one lacking only some is an old driver.
    const bool none = missing.front() == "cuInit";
    throw Error("cuda: " + library + " does not define " + names +
                (none ? "; it is not NVIDIA's CUDA driver library"
                      : "; the driver is too old for Lathe (CUDA 11 or newer is needed)"));
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver(library, handle, std::move(api)));
  driver->check(driver->api_->cuInit(0), "cuInit");
  return driver;
}

CudaDriver::CudaDriver(std::string library, void* handle, std::unique_ptr<Api> api)
    : library_(std::move(library)), handle_(handle), api_(std::move(api)) {}

CudaDriver::~CudaDriver() {
  if (handle_) dlclose(handle_);
}

void CudaDriver::check(int result, const char* call) const {
  if (result == 0) return;
  const char* name = nullptr;
  const char* text = nullptr;
  api_->cuGetErrorName(result, &name);
  api_->cuGetErrorString(result, &text);
  throw Error(std::string("cuda: ") + call +
              " failed: " + (name ? name : known_error_name(result)) + " (" +
              std::to_string(result) + ")" + (text ? std::string(": ") + text : std::string()));
}

int CudaDriver::driver_version() const {
  int version = 0;
  check(api_->cuDriverGetVersion(&version), "cuDriverGetVersion");
  return version;
}

int CudaDriver::device_count() const {
  int count = 0;
  check(api_->cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

std::string CudaDriver::device_name(int ordinal) const {
  CUdevice device = 0;
  check(api_->cuDeviceGet(&device, ordinal), "cuDeviceGet");
  char name[256] = {};
  check(api_->cuDeviceGetName(name, int(sizeof(name)), device), "cuDeviceGetName");
  return name;
}

std::string CudaDriver::device_arch(int ordinal) const {
  CUdevice device = 0;
  check(api_->cuDeviceGet(&device, ordinal), "cuDeviceGet");
  int major = 0, minor = 0;
  check(api_->cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device),
        "cuDeviceGetAttribute");
  check(api_->cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device),
        "cuDeviceGetAttribute");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

int CudaDriver::device_attribute(int ordinal, int attribute) const {
  CUdevice device = 0;
  check(api_->cuDeviceGet(&device, ordinal), "cuDeviceGet");
  int value = 0;
  check(api_->cuDeviceGetAttribute(&value, attribute, device), "cuDeviceGetAttribute");
  return value;
}

size_t CudaDriver::device_memory(int ordinal) const {
  CUdevice device = 0;
  check(api_->cuDeviceGet(&device, ordinal), "cuDeviceGet");
  size_t bytes = 0;
  check(api_->cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem_v2");
  return bytes;
}

CudaContext CudaDriver::retain_primary_context(int ordinal) const {
  CUdevice device = 0;
  check(api_->cuDeviceGet(&device, ordinal), "cuDeviceGet");
  CudaContext context = nullptr;
  check(api_->cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  return context;
}

void CudaDriver::release_primary_context(int ordinal) const {
  CUdevice device = 0;
  check(api_->cuDeviceGet(&device, ordinal), "cuDeviceGet");
  check(api_->cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease_v2");
}

void CudaDriver::set_current(CudaContext context) const {
  check(api_->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

void CudaDriver::synchronize() const {
  check(api_->cuCtxSynchronize(), "cuCtxSynchronize");
}

CudaDevicePtr CudaDriver::allocate(size_t bytes) const {
  CudaDevicePtr data = 0;
  const int result = api_->cuMemAlloc(&data, bytes);
  if (result != 0) {
    try {
      check(result, "cuMemAlloc_v2");
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + " (allocating " + std::to_string(bytes) + " bytes)");
    }
  }
  return data;
}

void CudaDriver::free(CudaDevicePtr data) const {
  check(api_->cuMemFree(data), "cuMemFree_v2");
}

void CudaDriver::fill_zero(CudaDevicePtr data, size_t bytes) const {
  check(api_->cuMemsetD8(data, 0, bytes), "cuMemsetD8_v2");
}

void CudaDriver::copy_host_to_device(CudaDevicePtr dst, const void* src, size_t bytes) const {
  check(api_->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD_v2");
}

void CudaDriver::copy_device_to_host(void* dst, CudaDevicePtr src, size_t bytes) const {
  check(api_->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH_v2");
}

void CudaDriver::copy_device_to_device(CudaDevicePtr dst, CudaDevicePtr src, size_t bytes) const {
  check(api_->cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD_v2");
}

CudaModuleHandle CudaDriver::load_module(const std::string& ptx) const {
  char log[8192] = {};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void* values[] = {log, reinterpret_cast<void*>(uintptr_t{sizeof log})};
  CudaModuleHandle module = nullptr;
  const int result = api_->cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (result != 0) {
    try {
      check(result, "cuModuleLoadDataEx");
    } catch (const Error& e) {
      log[sizeof log - 1] = 0;
      throw Error(std::string(e.what()) + (log[0] ? std::string("\n") + log : std::string()));
    }
  }
  return module;
}

void CudaDriver::unload_module(CudaModuleHandle module) const {
  check(api_->cuModuleUnload(module), "cuModuleUnload");
}

CudaFunction CudaDriver::find_function(CudaModuleHandle module, const std::string& name) const {
  CudaFunction function = nullptr;
  const int result = api_->cuModuleGetFunction(&function, module, name.c_str());
  if (result == kErrorNotFound) return nullptr;
  check(result, "cuModuleGetFunction");
  return function;
}

int CudaDriver::max_threads_per_block(CudaFunction function) const {
  int value = 0;
  check(api_->cuFuncGetAttribute(&value, kFuncMaxThreadsPerBlock, function), "cuFuncGetAttribute");
  return value;
}

int CudaDriver::registers_per_thread(CudaFunction function) const {
  int value = 0;
  check(api_->cuFuncGetAttribute(&value, kFuncNumRegs, function), "cuFuncGetAttribute");
  return value;
}

void CudaDriver::launch(CudaFunction function, const std::array<uint32_t, 3>& grid,
                        const std::array<uint32_t, 3>& block, uint32_t dynamic_shared_bytes,
                        void** params) const {
  check(api_->cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                             dynamic_shared_bytes, nullptr, params, nullptr),
        "cuLaunchKernel");
}

CudaEvent CudaDriver::create_event() const {
  CudaEvent event = nullptr;
  check(api_->cuEventCreate(&event, 0), "cuEventCreate");
  return event;
}

void CudaDriver::destroy_event(CudaEvent event) const {
  check(api_->cuEventDestroy(event), "cuEventDestroy_v2");
}

void CudaDriver::record_event(CudaEvent event) const {
  check(api_->cuEventRecord(event, nullptr), "cuEventRecord");
}

float CudaDriver::elapsed_ms(CudaEvent start, CudaEvent stop) const {
  check(api_->cuEventSynchronize(stop), "cuEventSynchronize");
  float ms = 0;
  check(api_->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  return ms;
}

}  // namespace lathe::runtime
