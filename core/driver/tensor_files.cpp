#include "driver/tensor_files.h"

#include <cstring>

#include "support/error.h"
#include "support/npz.h"

namespace lathe::driver {
namespace {

struct DescrMap {
  const char* descr;
  DType dtype;
};
constexpr DescrMap kDescrs[] = {
    {"<f2", DType::Float16}, {"<f4", DType::Float32}, {"<f8", DType::Float64},
    {"|i1", DType::Int8},    {"<i2", DType::Int16},   {"<i4", DType::Int32},
    {"<i8", DType::Int64},   {"|u1", DType::UInt8},   {"<u2", DType::UInt16},
    {"<u4", DType::UInt32},  {"<u8", DType::UInt64},  {"|b1", DType::Bool},
};

DType dtype_from_descr(const std::string& descr, const std::string& where) {
  for (const DescrMap& m : kDescrs)
    if (descr == m.descr) return m.dtype;
  // NumPy writes one-byte types with '|' but accepts '<' too.
  if (descr == "<i1") return DType::Int8;
  if (descr == "<u1") return DType::UInt8;
  if (descr == "<b1") return DType::Bool;
  fail_unsupported(str(where, ": unsupported NumPy dtype '", descr, "'"));
}

}  // namespace

NamedTensors read_npz_tensors(const std::string& path) {
  NamedTensors tensors;
  for (auto& [name, array] : read_npz(path)) {
    std::string where = path + ":" + name;
    Tensor t(dtype_from_descr(array.descr, where), array.shape);
    LATHE_CHECK(array.data.size() == t.nbytes(), where, ": holds ", array.data.size(),
                " bytes, expected ", t.nbytes());
    if (t.nbytes()) std::memcpy(t.raw(), array.data.data(), t.nbytes());
    tensors.emplace_back(name, std::move(t));
  }
  return tensors;
}

Tensor as_input_dtype(const Tensor& t, DType expected) {
  if (expected != DType::BFloat16 || t.dtype() != DType::Float32) return t;
  Tensor narrow(DType::BFloat16, t.shape());
  const float* in = t.data<float>();
  BFloat16* out = narrow.data<BFloat16>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) out[i] = BFloat16(in[i]);
  return narrow;
}

void write_npz_tensors(const std::string& path, const NamedTensors& tensors) {
  std::vector<std::pair<std::string, NpyArray>> arrays;
  for (const auto& [name, tensor] : tensors) {
    const Tensor t = tensor.dtype() == DType::BFloat16 ? widened_to_compute(tensor) : tensor;
    NpyArray a;
    for (const DescrMap& m : kDescrs)
      if (m.dtype == t.dtype()) a.descr = m.descr;
    a.shape = t.shape();
    a.data.resize(t.nbytes());
    if (t.nbytes()) std::memcpy(a.data.data(), t.raw(), t.nbytes());
    arrays.emplace_back(name, std::move(a));
  }
  write_npz(path, arrays);
}

}  // namespace lathe::driver
