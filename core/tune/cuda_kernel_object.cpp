#include "tune/cuda_kernel_object.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "support/error.h"
#include "tune/kernel_object_frame.h"

namespace lathe::tune {
namespace {

constexpr std::string_view kMagic = "LATHE-CUDA-KERNEL 1\n";
constexpr const char* kWhat = "cuda kernel object";

std::vector<int64_t> dims(const std::array<int64_t, 3>& d) {
  return {d.begin(), d.end()};
}

std::array<int64_t, 3> dims3(const nlohmann::json& j, const char* what) {
  const auto v = j.at(what).get<std::vector<int64_t>>();
  LATHE_CHECK(v.size() == 3 && std::all_of(v.begin(), v.end(), [](int64_t x) { return x >= 1; }),
              "cuda kernel object: '", what, "' is not three positive extents");
  return {v[0], v[1], v[2]};
}

}  // namespace

std::vector<char> encode_cuda_kernel_object(const CudaKernelObject& object) {
  const nlohmann::json header = {{"kernel", object.kernel},
                                 {"grid", dims(object.launch.grid)},
                                 {"block", dims(object.launch.block)},
                                 {"shared_bytes", object.launch.shared_bytes}};
  return frame::encode(kMagic, header, object.ptx.data(), object.ptx.size());
}

bool is_cuda_kernel_object(const std::vector<char>& bytes) {
  return frame::has_magic(bytes, kMagic);
}

CudaKernelObject decode_cuda_kernel_object(const std::vector<char>& bytes) {
  const frame::Decoded decoded = frame::decode(bytes, kMagic, kWhat);
  CudaKernelObject object;
  try {
    object.kernel = decoded.header.at("kernel").get<std::string>();
    object.launch.grid = dims3(decoded.header, "grid");
    object.launch.block = dims3(decoded.header, "block");
    object.launch.shared_bytes = decoded.header.at("shared_bytes").get<int64_t>();
  } catch (const nlohmann::json::exception& e) {
    fail(str(kWhat, ": bad header: ", e.what()));
  }
  object.ptx.assign(decoded.payload, bytes.end());
  LATHE_CHECK(!object.kernel.empty() && !object.ptx.empty(),
              "cuda kernel object: no kernel name or no PTX");
  return object;
}

}  // namespace lathe::tune
