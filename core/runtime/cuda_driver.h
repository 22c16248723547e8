// The CUDA driver API (libcuda.so.1, installed with NVIDIA's driver), opened
// with dlopen when something needs a GPU: the runtime has no link-time CUDA
// dependency, so it loads and runs CPU packages on any machine, and a machine
// without the driver learns why a GPU package cannot run here, in words.
// Bound through the driver's stable C ABI (no cuda.h at build time), by the
// symbol names the driver exports for the current ABI (cuMemAlloc_v2 ...).
// This class is the binding alone, one call per driver call with the error
// turned into runtime::Error; runtime/cuda_device_api.h holds the policy
// (which context, zero-filled memory, module and launch checks).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/device.h"

namespace lathe::runtime {

// The driver's handles, opaque here as in cuda.h.
using CudaContext = void*;       // CUcontext
using CudaModuleHandle = void*;  // CUmodule
using CudaFunction = void*;      // CUfunction
using CudaEvent = void*;         // CUevent
using CudaDevicePtr = uint64_t;  // CUdeviceptr

class CudaDriver {
 public:
  // Opens `library` (a name the dynamic loader searches, or a path), binds its
  // functions and initialises it (cuInit). Throws runtime::Error naming the
  // library and what failed: it cannot be opened (no NVIDIA driver here), it
  // lacks functions (every missing one named), or cuInit fails (the error's
  // name and text).
  static std::unique_ptr<CudaDriver> open(const std::string& library = "libcuda.so.1");
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  const std::string& library() const { return library_; }
  int driver_version() const;  // 13000 for CUDA 13.0
  int device_count() const;
  std::string device_name(int ordinal) const;
  std::string device_arch(int ordinal) const;  // "sm_90", as a cuda target's -arch
  size_t device_memory(int ordinal) const;     // total bytes
  // cuDeviceGetAttribute: `attribute` is a CUdevice_attribute value (cuda.h's
  // numbers are the driver's stable ABI, as CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13).
  int device_attribute(int ordinal, int attribute) const;

  // Contexts: the device's primary context (the one the runtime API uses too).
  CudaContext retain_primary_context(int ordinal) const;
  void release_primary_context(int ordinal) const;
  void set_current(CudaContext context) const;
  void synchronize() const;  // cuCtxSynchronize: waits, and reports a kernel's fault

  // Memory.
  CudaDevicePtr allocate(size_t bytes) const;
  void free(CudaDevicePtr data) const;
  void fill_zero(CudaDevicePtr data, size_t bytes) const;
  void copy_host_to_device(CudaDevicePtr dst, const void* src, size_t bytes) const;
  void copy_device_to_host(void* dst, CudaDevicePtr src, size_t bytes) const;
  void copy_device_to_device(CudaDevicePtr dst, CudaDevicePtr src, size_t bytes) const;

  // Modules and launches. load_module takes PTX text (NUL-terminated) and
  // throws with the JIT's error log when the driver refuses it.
  CudaModuleHandle load_module(const std::string& ptx) const;
  void unload_module(CudaModuleHandle module) const;
  // nullptr when the module has no such kernel.
  CudaFunction find_function(CudaModuleHandle module, const std::string& name) const;
  int max_threads_per_block(CudaFunction function) const;  // after the JIT's register allocation
  int registers_per_thread(CudaFunction function) const;
  // On the default stream; `params` holds a pointer to each parameter's value.
  void launch(CudaFunction function, const std::array<uint32_t, 3>& grid,
              const std::array<uint32_t, 3>& block, uint32_t dynamic_shared_bytes,
              void** params) const;

  // Events, for timing on the device's own clock.
  CudaEvent create_event() const;
  void destroy_event(CudaEvent event) const;
  void record_event(CudaEvent event) const;  // on the default stream
  // Waits for `stop`; milliseconds between the two (about 0.5 us resolution).
  float elapsed_ms(CudaEvent start, CudaEvent stop) const;

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
