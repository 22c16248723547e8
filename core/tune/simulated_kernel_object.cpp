#include "tune/simulated_kernel_object.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "support/error.h"
#include "tune/kernel_object_frame.h"

namespace lathe::tune {
namespace {

constexpr std::string_view kMagic = "LATHE-SIMULATED-CUDA-KERNEL 1\n";
constexpr const char* kWhat = "simulated cuda kernel object";

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
  return frame::encode(kMagic, nlohmann::json{{"kernels", kernels}}, object.object.data(),
                       object.object.size());
}

bool is_simulated_kernel_object(const std::vector<char>& bytes) {
  return frame::has_magic(bytes, kMagic);
}

codegen::SimulatedGpuObject decode_simulated_kernel_object(const std::vector<char>& bytes) {
  const frame::Decoded decoded = frame::decode(bytes, kMagic, kWhat);
  codegen::SimulatedGpuObject object;
  try {
    for (const nlohmann::json& k : decoded.header.at("kernels")) {
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
    fail(str(kWhat, ": bad header: ", e.what()));
  }
  object.object.assign(decoded.payload, bytes.end());
  LATHE_CHECK(!object.kernels.empty() && !object.object.empty(),
              "simulated cuda kernel object: no kernel or no object code");
  return object;
}

}  // namespace lathe::tune
