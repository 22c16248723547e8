// A DeviceAPI per device type, as TVM's: where the executor's memory lives,
// how data crosses between the host and the device, and how work on the
// device is waited for and timed. The host's is plain memory and the steady
// clock; CUDA's (runtime/cuda_device_api.h) adds modules and launches.
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/device.h"

namespace lathe::runtime {

// Marks the start and the end of some work on a device's timeline; the time
// between is read once the work is done, so timers of many steps are read
// after one wait.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Waits for the stop mark; milliseconds between the marks.
  virtual double elapsed_ms() = 0;
};

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  virtual Device device() const = 0;
  // Zero-filled memory of `bytes` bytes (at least one), aligned to 64 bytes
  // at least; throws Error naming the size when the device has no room.
  virtual void* allocate(size_t bytes) = 0;
  virtual void free(void* data) noexcept = 0;
  // Copies between host memory and this device's (or within the device).
  virtual void copy_from_host(void* dst, const void* src, size_t bytes) = 0;
  virtual void copy_to_host(void* dst, const void* src, size_t bytes) = 0;
  virtual void copy_within(void* dst, const void* src, size_t bytes) = 0;
  // Waits for all work queued on the device; throws a kernel's fault.
  virtual void synchronize() = 0;
  virtual std::unique_ptr<DeviceTimer> create_timer() = 0;
};

// The host's, shared by every host array.
const std::shared_ptr<DeviceAPI>& host_device_api();

}  // namespace lathe::runtime
