#include "tune/cuda_kernel_object.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace lathe::tune {
namespace {

constexpr const char kMagic[] = "LATHE-CUDA-KERNEL 1\n";
constexpr size_t kMagicSize = sizeof kMagic - 1;

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
  std::string text = kMagic + header.dump() + "\n" + object.ptx;
  return {text.begin(), text.end()};
}

bool is_cuda_kernel_object(const std::vector<char>& bytes) {
  return bytes.size() >= kMagicSize && std::memcmp(bytes.data(), kMagic, kMagicSize) == 0;
}

CudaKernelObject decode_cuda_kernel_object(const std::vector<char>& bytes) {
  LATHE_CHECK(is_cuda_kernel_object(bytes), "not a cuda kernel object (no '",
              std::string(kMagic, kMagicSize - 1), "' line)");
  const auto begin = bytes.begin() + kMagicSize;
  const auto newline = std::find(begin, bytes.end(), '\n');
  LATHE_CHECK(newline != bytes.end(), "cuda kernel object: no header line");
  CudaKernelObject object;
  try {
    const nlohmann::json header = nlohmann::json::parse(begin, newline);
    object.kernel = header.at("kernel").get<std::string>();
    object.launch.grid = dims3(header, "grid");
    object.launch.block = dims3(header, "block");
    object.launch.shared_bytes = header.at("shared_bytes").get<int64_t>();
  } catch (const nlohmann::json::exception& e) {
    fail(str("cuda kernel object: bad header: ", e.what()));
  }
  object.ptx.assign(newline + 1, bytes.end());
  LATHE_CHECK(!object.kernel.empty() && !object.ptx.empty(),
              "cuda kernel object: no kernel name or no PTX");
  return object;
}

}  // namespace lathe::tune
