// The roofline of a GPU (issue 35): its FP32 FMA peak and DRAM bandwidth from
// the CUDA driver's device attributes, so that `lathe run --target cuda
// --profile` places each kernel under the roof of the board it ran on (the
// CPU's roof is measured; a GPU's theoretical numbers are what NVIDIA's data
// sheets give, e.g. 66.9 TFLOPS and 3.35 TB/s for an H100 SXM).
#pragma once

#include <cstdint>
#include <string>

#include "driver/machine_roof.h"

namespace lathe::runtime {
class CudaDriver;
}

namespace lathe::driver {

struct GpuDeviceProperties {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int ordinal = 0;
  int major = 0, minor = 0;  // compute capability
  int sm_count = 0;          // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  int clock_khz = 0;         // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (the boost clock)
  int memory_clock_khz = 0;  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
  int memory_bus_bits = 0;   // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
  int64_t l2_bytes = 0;      // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
};

// The device's attributes through the driver.
GpuDeviceProperties query_gpu(const runtime::CudaDriver& driver, int ordinal);

// FP32 lanes (FMA units) per SM of a compute capability, from NVIDIA's CUDA C
// Programming Guide's throughput table; 0 for one it does not list.
int fp32_lanes_per_sm(int major, int minor);

// Peak = SMs x lanes x 2 FLOPs x clock; DRAM = 2 transfers x memory clock x
// bus width (the driver reports HBM's and GDDR's clock so that this holds).
// The traffic model stops at the L2 (machine.caches). Throws lathe::Error for
// an architecture without a lane count, naming it.
MachineRoof gpu_machine_roof(const GpuDeviceProperties& device);

// The roof of CUDA device `ordinal`, through the driver (opened here).
MachineRoof cuda_device_roof(int ordinal);

}  // namespace lathe::driver
