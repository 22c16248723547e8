// The CUDA driver API (libcuda.so.1, installed with NVIDIA's driver), opened
// with dlopen when something needs a GPU: the runtime has no link-time CUDA
// dependency, so it loads and runs CPU packages on any machine, and a machine
// without the driver learns why a GPU package cannot run here, in words.
// Only what finding and describing a device needs is bound so far; module
// loading, memory and launches come with the CUDA package (docs/ARCHITECTURE.md,
// "Targets").
#pragma once

#include <memory>
#include <string>

namespace lathe::runtime {

// Where a buffer lives and a kernel runs; the values are DLPack's.
enum class DeviceType : int { Host = 1, Cuda = 2 };
const char* device_type_name(DeviceType type);  // "host", "cuda"

class CudaDriver {
 public:
  // Opens `library` (a name the dynamic loader searches, or a path), binds its
  // functions and initialises it (cuInit). Throws runtime::Error naming the
  // library and what failed: it cannot be opened (no NVIDIA driver here), it
  // lacks a function, or cuInit fails (the error's name and text).
  static std::unique_ptr<CudaDriver> open(const std::string& library = "libcuda.so.1");
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  const std::string& library() const { return library_; }
  int driver_version() const;  // 13000 for CUDA 13.0
  int device_count() const;
  std::string device_name(int ordinal) const;
  std::string device_arch(int ordinal) const;  // "sm_90", as a cuda target's -arch

 private:
  struct Api;
  CudaDriver(std::string library, void* handle, std::unique_ptr<Api> api);
  // Throws runtime::Error for a failed call, with the driver's name for the error.
  void check(int result, const char* call) const;

  std::string library_;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
};

}  // namespace lathe::runtime
