// The CUDA DeviceAPI: one GPU's primary context, memory through the driver
// (runtime/cuda_driver.h), timers from CUDA events, and modules of PTX whose
// kernels launch with the grid and block their lowering recorded.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "runtime/cuda_driver.h"
#include "runtime/device_api.h"
#include "runtime/graph_json.h"

namespace lathe::runtime {

// The library the runtime opens for CUDA: $LATHE_CUDA_LIBRARY when set (a
// test points it at another library), else libcuda.so.1.
std::string cuda_driver_library();

class CudaDeviceAPI final : public DeviceAPI, public std::enable_shared_from_this<CudaDeviceAPI> {
 public:
  // GPU `ordinal`'s API, opened once per process and library and kept for its
  // life (its primary context outlives every buffer freed at exit). Throws
  // Error: the driver cannot be opened (CudaDriver::open's message), there
  // is no such GPU ("cuda: no GPU 0: the driver sees 0 devices").
  static std::shared_ptr<CudaDeviceAPI> get(int ordinal = 0);

  Device device() const override { return {DeviceType::Cuda, ordinal_}; }
  void* allocate(size_t bytes) override;
  void free(void* data) noexcept override;
  void copy_from_host(void* dst, const void* src, size_t bytes) override;
  void copy_to_host(void* dst, const void* src, size_t bytes) override;
  void copy_within(void* dst, const void* src, size_t bytes) override;
  void synchronize() override;
  std::unique_ptr<DeviceTimer> create_timer() override;

  const CudaDriver& driver() const { return *driver_; }
  // Makes this GPU's context the calling thread's (every call above does).
  void make_current() const;
  std::string name() const;  // "NVIDIA H100 80GB HBM3 (sm_90)"

  CudaDeviceAPI(std::unique_ptr<CudaDriver> driver, int ordinal);

 private:
  std::unique_ptr<CudaDriver> driver_;
  int ordinal_ = 0;
  CudaContext context_ = nullptr;
};

// A PTX module loaded on a GPU; unloaded with the last reference.
class CudaModule {
 public:
  // Throws Error with the driver's JIT log when it refuses the PTX.
  CudaModule(std::shared_ptr<CudaDeviceAPI> device, const std::string& ptx);
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  CudaDeviceAPI& device() const { return *device_; }
  // The kernel `name`, checked against its launch: throws Error naming the
  // kernel when the module lacks it, or when the block has more threads
  // than the compiled kernel can take (its registers limit it).
  CudaFunction function(const std::string& name, const KernelLaunch& launch) const;
  // Launches on the default stream with the buffers' device addresses as
  // the parameters, in order. The recorded shared bytes are the kernel's
  // static shared memory, which the PTX declares: no dynamic shared memory.
  void launch(CudaFunction function, const KernelLaunch& launch, void* const* buffers,
              size_t count) const;

 private:
  std::shared_ptr<CudaDeviceAPI> device_;
  CudaModuleHandle module_ = nullptr;
};

}  // namespace lathe::runtime
