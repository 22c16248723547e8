#include "tune/simulated_kernel_object.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "support/error.h"

namespace lathe::tune {
namespace {

constexpr const char kMagic[] = "LATHE-SIMULATED-CUDA-KERNEL 1\n";
constexpr size_t kMagicSize = sizeof kMagic - 1;

}  // namespace

std::vector<char> encode_simulated_kernel_object(const codegen::SimulatedGpuObject& object) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const codegen::SimulatedKernelInfo& k : object.kernels)
    kernels.push_back({{"name", k.name},
                       {"grid", k.launch.grid},
                       {"block", k.launch.block},
                       {"shared_bytes", k.launch.shared_bytes},
                       {"synchronizes", k.synchronizes},
                       {"shared_buffer_bytes", k.shared_buffer_bytes},
                       {"num_params", k.num_params}});
  const std::string header = kMagic + nlohmann::json{{"kernels", kernels}}.dump() + "\n";
  std::vector<char> bytes(header.begin(), header.end());
  bytes.insert(bytes.end(), object.object.begin(), object.object.end());
  return bytes;
}

bool is_simulated_kernel_object(const std::vector<char>& bytes) {
  return bytes.size() >= kMagicSize && std::memcmp(bytes.data(), kMagic, kMagicSize) == 0;
}

codegen::SimulatedGpuObject decode_simulated_kernel_object(const std::vector<char>& bytes) {
  LATHE_CHECK(is_simulated_kernel_object(bytes), "not a simulated cuda kernel object (no '",
              std::string(kMagic, kMagicSize - 1), "' line)");
  const auto begin = bytes.begin() + kMagicSize;
  const auto newline = std::find(begin, bytes.end(), '\n');
  LATHE_CHECK(newline != bytes.end(), "simulated cuda kernel object: no header line");
  codegen::SimulatedGpuObject object;
  try {
    const nlohmann::json header = nlohmann::json::parse(begin, newline);
    for (const nlohmann::json& k : header.at("kernels")) {
      codegen::SimulatedKernelInfo info;
      info.name = k.at("name").get<std::string>();
      info.launch.kernel = info.name;
      info.launch.grid = k.at("grid").get<std::array<int64_t, 3>>();
      info.launch.block = k.at("block").get<std::array<int64_t, 3>>();
      info.launch.shared_bytes = k.at("shared_bytes").get<int64_t>();
      info.synchronizes = k.at("synchronizes").get<bool>();
      info.shared_buffer_bytes = k.at("shared_buffer_bytes").get<int64_t>();
      info.num_params = k.at("num_params").get<size_t>();
      const bool positive = std::all_of(info.launch.grid.begin(), info.launch.grid.end(),
                                        [](int64_t x) { return x >= 1; }) &&
                            std::all_of(info.launch.block.begin(), info.launch.block.end(),
                                        [](int64_t x) { return x >= 1; });
      LATHE_CHECK(positive && info.shared_buffer_bytes >= 0,
                  "simulated cuda kernel object: kernel '", info.name,
                  "' has a launch of non-positive extents or negative shared bytes");
      object.kernels.push_back(std::move(info));
    }
  } catch (const nlohmann::json::exception& e) {
    fail(str("simulated cuda kernel object: bad header: ", e.what()));
  }
  object.object.assign(newline + 1, bytes.end());
  LATHE_CHECK(!object.kernels.empty() && !object.object.empty(),
              "simulated cuda kernel object: no kernel or no object code");
  return object;
}

}  // namespace lathe::tune
