#include "ir/tensor.h"

#include <cstdlib>
#include <cstring>

#include "support/error.h"

namespace lathe {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      fail(str("shape ", shape_to_string(shape), " has more elements than fit in 64 bits"));
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<int64_t> shape_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::string TensorType::to_string() const {
  return std::string(dtype_name(dtype)) + shape_to_string(shape);
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  for (int64_t d : shape_)
    LATHE_CHECK(d >= 0, "negative dimension in tensor shape ", shape_to_string(shape_));
  size_t bytes = nbytes();
  // Round up so aligned_alloc's size rule holds, and allocate at least one line
  // so that empty tensors still own a buffer (defined() stays true).
  size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (padded == 0) padded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, padded);
  if (!p) fail(str("cannot allocate ", bytes, " bytes for a ", type().to_string(), " tensor"));
  std::memset(p, 0, padded);
  buffer_ =
      std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
}

Tensor Tensor::reshaped(Shape shape) const {
  LATHE_CHECK(shape_numel(shape) == numel(), "cannot reshape ", type().to_string(), " to ",
              shape_to_string(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (nbytes()) std::memcpy(t.raw(), raw(), nbytes());
  return t;
}

double Tensor::element_as_double(int64_t i) const {
  return visit_dtype(dtype_, [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(static_cast<const T*>(raw())[i]);
  });
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel()));
  visit_dtype(dtype_, [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(raw());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(p[i]);
  });
  return v;
}

std::vector<double> Tensor::to_double_vector() const {
  std::vector<double> v(static_cast<size_t>(numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = element_as_double(static_cast<int64_t>(i));
  return v;
}

Tensor widened_to_compute(const Tensor& t) {
  if (!is_storage_float(t.dtype())) return t;
  Tensor wide(DType::Float32, t.shape());
  float* out = wide.data<float>();
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_storage_float_v<T>) {
      const T* in = t.data<T>();
      for (int64_t i = 0, n = t.numel(); i < n; ++i) out[i] = static_cast<float>(in[i]);
    }
  });
  return wide;
}

void Tensor::check_dtype(DType expected) const {
  if (expected != dtype_)
    fail(str("tensor holds ", dtype_name(dtype_), ", accessed as ", dtype_name(expected)));
}

}  // namespace lathe
