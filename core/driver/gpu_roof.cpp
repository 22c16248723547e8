#include "driver/gpu_roof.h"

#include "runtime/cuda_driver.h"
#include "support/error.h"

namespace lathe::driver {
namespace {

// cuda.h's CUdevice_attribute values (the driver's stable ABI).
constexpr int kClockRate = 13;
constexpr int kMultiprocessorCount = 16;
constexpr int kMemoryClockRate = 36;
constexpr int kGlobalMemoryBusWidth = 37;
constexpr int kL2CacheSize = 38;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

}  // namespace

GpuDeviceProperties query_gpu(const runtime::CudaDriver& driver, int ordinal) {
  GpuDeviceProperties p;
  p.name = driver.device_name(ordinal);
  p.ordinal = ordinal;
  p.major = driver.device_attribute(ordinal, kComputeCapabilityMajor);
  p.minor = driver.device_attribute(ordinal, kComputeCapabilityMinor);
  p.sm_count = driver.device_attribute(ordinal, kMultiprocessorCount);
  p.clock_khz = driver.device_attribute(ordinal, kClockRate);
  p.memory_clock_khz = driver.device_attribute(ordinal, kMemoryClockRate);
  p.memory_bus_bits = driver.device_attribute(ordinal, kGlobalMemoryBusWidth);
  p.l2_bytes = driver.device_attribute(ordinal, kL2CacheSize);
  return p;
}

int fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
    case 5:  // Maxwell
      return 128;
    case 6:  // Pascal: GP100 64, GP10x 128
      return minor == 0 ? 64 : 128;
    case 7:  // Volta, Turing
      return 64;
    case 8:  // Ampere: GA100 64, GA10x and Ada 128
      return minor == 0 ? 64 : 128;
    case 9:   // Hopper
    case 10:  // Blackwell
    case 12:
      return 128;
    default:
      return 0;
  }
}

MachineRoof gpu_machine_roof(const GpuDeviceProperties& device) {
  const std::string arch = str("sm_", device.major, device.minor);
  const int lanes = fp32_lanes_per_sm(device.major, device.minor);
  LATHE_CHECK(lanes > 0, "the roofline does not know the FP32 lanes of an SM of ", device.name,
              " (", arch, ")");
  LATHE_CHECK(device.sm_count > 0 && device.clock_khz > 0 && device.memory_clock_khz > 0 &&
                  device.memory_bus_bits > 0,
              "the driver reports no clock, SM count or memory bus for ", device.name);
  MachineRoof roof;
  roof.device = str("cuda:", device.ordinal, " ", device.name);
  roof.machine.cpu = str(device.name, " (", arch, ")");
  roof.machine.threads = device.sm_count;  // what the peak runs on: SMs
  roof.machine.caches = {CacheLevel{2, device.l2_bytes, 1}};
  roof.peak_gflops = double(device.sm_count) * lanes * 2 * device.clock_khz * 1e3 / 1e9;
  BandwidthLevel dram;
  dram.name = "DRAM";
  dram.read_gbps = 2.0 * device.memory_clock_khz * 1e3 * (device.memory_bus_bits / 8) / 1e9;
  dram.read_write_gbps = dram.read_gbps;
  roof.bandwidth.threads = device.sm_count;
  roof.bandwidth.levels = {dram};
  roof.measured_at = "the driver's device attributes";
  return roof;
}

MachineRoof cuda_device_roof(int ordinal) {
  const std::unique_ptr<runtime::CudaDriver> driver = runtime::CudaDriver::open();
  return gpu_machine_roof(query_gpu(*driver, ordinal));
}

}  // namespace lathe::driver
