// The host's memory behind the DeviceAPI interface, counting what crosses
// it: how a test sees which copies a device executor makes without a GPU (a
// GPU's own API is exercised on a machine that has one:
// tools/gpu/device_check.sh).
#pragma once

#include <memory>

#include "runtime/device_api.h"

namespace lathe::testing {

struct CountingDeviceAPI final : runtime::DeviceAPI {
  int allocations = 0, to_device = 0, to_host = 0, syncs = 0;
  runtime::Device device() const override { return runtime::host_device_api()->device(); }
  void* allocate(size_t bytes) override {
    ++allocations;
    return runtime::host_device_api()->allocate(bytes);
  }
  void free(void* data) noexcept override { runtime::host_device_api()->free(data); }
  void copy_from_host(void* dst, const void* src, size_t bytes) override {
    ++to_device;
    runtime::host_device_api()->copy_from_host(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, size_t bytes) override {
    ++to_host;
    runtime::host_device_api()->copy_to_host(dst, src, bytes);
  }
  void copy_within(void* dst, const void* src, size_t bytes) override {
    runtime::host_device_api()->copy_within(dst, src, bytes);
  }
  void synchronize() override { ++syncs; }
  std::unique_ptr<runtime::DeviceTimer> create_timer() override {
    return runtime::host_device_api()->create_timer();
  }
};

}  // namespace lathe::testing
