#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <type_traits>

#include "runtime/ndarray.h"

namespace lathe::runtime {

namespace {

// The driver API's types as its header declares them (cuda.h is not needed:
// these are the stable C ABI since CUDA 3.2).
using CUresult = int;
using CUdevice = int;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

}  // namespace

struct CudaDriver::Api {
  CUresult (*cuInit)(unsigned int) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
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
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (!fn) {
      dlclose(handle);
      throw Error("cuda: " + library + " does not define " + name +
                  "; it is not NVIDIA's CUDA driver library");
    }
  };
  bind(api->cuInit, "cuInit");
  bind(api->cuDriverGetVersion, "cuDriverGetVersion");
  bind(api->cuDeviceGetCount, "cuDeviceGetCount");
  bind(api->cuDeviceGet, "cuDeviceGet");
  bind(api->cuDeviceGetName, "cuDeviceGetName");
  bind(api->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(api->cuGetErrorName, "cuGetErrorName");
  bind(api->cuGetErrorString, "cuGetErrorString");
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
  throw Error(std::string("cuda: ") + call + " failed: " + (name ? name : "error") + " (" +
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

}  // namespace lathe::runtime
