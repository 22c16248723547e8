// The host's DeviceAPI: aligned_alloc, memcpy and the steady clock.
#include "runtime/device_api.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "runtime/ndarray.h"

namespace lathe::runtime {

namespace {

constexpr size_t kHostAlignment = 64;

class HostTimer final : public DeviceTimer {
 public:
  void start() override { start_ = Clock::now(); }
  void stop() override { stop_ = Clock::now(); }
  double elapsed_ms() override {
    return std::chrono::duration<double, std::milli>(stop_ - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_, stop_;
};

class HostDeviceAPI final : public DeviceAPI {
 public:
  Device device() const override { return {DeviceType::Host, 0}; }
  void* allocate(size_t bytes) override {
    // aligned_alloc wants a multiple of the alignment.
    const size_t size =
        std::max(kHostAlignment, (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment);
    void* p = std::aligned_alloc(kHostAlignment, size);
    if (!p) throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
    std::memset(p, 0, size);
    return p;
  }
  void free(void* data) noexcept override { std::free(data); }
  void copy_from_host(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void copy_within(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void synchronize() override {}
  std::unique_ptr<DeviceTimer> create_timer() override { return std::make_unique<HostTimer>(); }
};

}  // namespace

const std::shared_ptr<DeviceAPI>& host_device_api() {
  static const std::shared_ptr<DeviceAPI> api = std::make_shared<HostDeviceAPI>();
  return api;
}

}  // namespace lathe::runtime
