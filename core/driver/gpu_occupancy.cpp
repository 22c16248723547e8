#include "driver/gpu_occupancy.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "support/error.h"

namespace lathe::driver {
namespace {

// One SM's limits per compute capability (the Programming Guide's table of
// technical specifications; the allocation units and per-arch counts as
// cuda_occupancy.h has them).
struct SmLimits {
  int major = 0, minor = 0;
  int64_t max_threads = 0;   // resident threads per SM
  int64_t max_blocks = 0;    // resident blocks per SM
  int64_t shared_bytes = 0;  // shared memory per SM at the largest carveout
  int64_t reserved_shared_per_block = 0;
  int64_t shared_unit = 0;  // allocation granularity of shared memory
};

constexpr int64_t kWarpSize = 32;
constexpr int64_t kRegistersPerSm = 64 * 1024;
constexpr int64_t kRegistersPerBlock = 64 * 1024;
constexpr int64_t kRegisterUnit = 256;  // registers are allocated per warp in 256s
constexpr int64_t kMaxRegistersPerThread = 255;
constexpr int64_t kSubPartitions = 4;
constexpr int64_t kMaxThreadsPerBlock = 1024;

constexpr int64_t KiB = 1024;
const std::vector<SmLimits> kSmLimits = {
    {7, 0, 2048, 32, 96 * KiB, 0, 256},     // V100
    {7, 2, 2048, 32, 96 * KiB, 0, 256},     // Xavier
    {7, 5, 1024, 16, 64 * KiB, 0, 256},     // Turing
    {8, 0, 2048, 32, 164 * KiB, KiB, 128},  // A100
    {8, 6, 1536, 16, 100 * KiB, KiB, 128},  // GA10x
    {8, 7, 1536, 16, 164 * KiB, KiB, 128},  // Orin
    {8, 9, 1536, 24, 100 * KiB, KiB, 128},  // Ada
    {9, 0, 2048, 32, 228 * KiB, KiB, 128},  // H100, H200
};

std::optional<SmLimits> limits_of(const std::string& arch) {
  // sm_NN or sm_NNa: the last digit is the minor version.
  std::string digits = arch.rfind("sm_", 0) == 0 ? arch.substr(3) : std::string();
  if (!digits.empty() && digits.back() == 'a') digits.pop_back();
  if (digits.size() < 2 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const int major = std::stoi(digits.substr(0, digits.size() - 1));
  const int minor = digits.back() - '0';
  for (const SmLimits& l : kSmLimits)
    if (l.major == major && l.minor == minor) return l;
  return std::nullopt;
}

int64_t round_up(int64_t x, int64_t unit) {
  return (x + unit - 1) / unit * unit;
}

}  // namespace

std::optional<GpuOccupancy> theoretical_occupancy(const std::string& arch,
                                                  int64_t threads_per_block,
                                                  const KernelResources& kernel) {
  const std::optional<SmLimits> sm = limits_of(arch);
  if (!sm) return std::nullopt;
  LATHE_CHECK(threads_per_block >= 1, "occupancy: a block of ", threads_per_block, " threads");
  const int64_t warps_per_block = (threads_per_block + kWarpSize - 1) / kWarpSize;
  const int64_t max_warps = sm->max_threads / kWarpSize;

  std::vector<std::pair<const char*, int64_t>> limits;
  limits.emplace_back("warps",
                      threads_per_block > kMaxThreadsPerBlock ? 0 : max_warps / warps_per_block);
  limits.emplace_back("blocks", sm->max_blocks);

  // Registers: each warp's rounded to the allocation unit, each of the four
  // sub-partitions holding whole warps of its quarter of the file.
  const int64_t registers = std::max<int64_t>(kernel.registers, 1);
  const int64_t per_warp = round_up(registers * kWarpSize, kRegisterUnit);
  const bool registers_fit =
      registers <= kMaxRegistersPerThread &&
      per_warp * round_up(warps_per_block, kSubPartitions) <= kRegistersPerBlock;
  const int64_t warps_by_registers = kRegistersPerSm / kSubPartitions / per_warp * kSubPartitions;
  limits.emplace_back("registers", registers_fit ? warps_by_registers / warps_per_block : 0);

  // Shared memory: the block's static bytes and the per-block reservation,
  // rounded to the allocation unit, out of the largest carveout.
  const int64_t shared =
      round_up(kernel.shared_bytes + sm->reserved_shared_per_block, sm->shared_unit);
  limits.emplace_back("shared memory", shared > 0 ? sm->shared_bytes / shared : INT64_MAX);

  // Barriers: from sm_90 on, each resident block slot has two, and a
  // kernel's own count bounds the blocks (the calculator applies this limit
  // to no earlier arch).
  if (sm->major >= 9 && kernel.barriers > 0)
    limits.emplace_back("barriers", sm->max_blocks * 2 / kernel.barriers);

  GpuOccupancy occupancy;
  occupancy.max_warps_per_sm = max_warps;
  occupancy.blocks_per_sm = INT64_MAX;
  for (const auto& [what, blocks] : limits)
    if (blocks < occupancy.blocks_per_sm) {
      occupancy.blocks_per_sm = blocks;
      occupancy.limited_by = what;
    }
  occupancy.warps_per_sm = occupancy.blocks_per_sm * warps_per_block;
  return occupancy;
}

std::string format_occupancy(const GpuOccupancy& o, const std::string& arch) {
  if (o.blocks_per_sm == 0)
    return str("occupancy 0 on ", arch, ": a block does not fit an SM (", o.limited_by, ")");
  const int64_t warps_per_block = o.warps_per_sm / o.blocks_per_sm;
  return str("occupancy ", static_cast<int>(o.fraction() * 100 + 0.5), "% on ", arch, " (",
             o.warps_per_sm, " of ", o.max_warps_per_sm, " warps: ", o.blocks_per_sm,
             o.blocks_per_sm == 1 ? " block" : " blocks", " of ", warps_per_block,
             warps_per_block == 1 ? " warp" : " warps", ", limited by ", o.limited_by, ")");
}

}  // namespace lathe::driver
