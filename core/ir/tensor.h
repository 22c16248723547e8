// Tensor: a dtype, a static shape and a 64-byte-aligned buffer shared between
// copies (copying a Tensor is cheap; use clone() for a deep copy).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace lathe {

using Shape = std::vector<int64_t>;

// The product of the extents; throws Error when it does not fit in int64_t
// (shapes come from models, and inference multiplies them: Tile, Expand).
int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[1,3,224,224]"
// Row-major strides in elements.
std::vector<int64_t> shape_strides(const Shape& shape);

// The static type of a graph value.
struct TensorType {
  DType dtype = DType::Float32;
  Shape shape;
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const { return shape_numel(shape); }
  std::string to_string() const;  // "float32[1,3,224,224]"
  bool operator==(const TensorType&) const = default;
};

class Tensor {
 public:
  static constexpr size_t kAlignment = 64;

  Tensor() = default;
  // Zero-filled storage.
  Tensor(DType dtype, Shape shape);
  explicit Tensor(const TensorType& type) : Tensor(type.dtype, type.shape) {}

  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape);
  template <typename T>
  static Tensor scalar(T value) {
    return from_vector<T>({value}, {});
  }

  bool defined() const { return buffer_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  TensorType type() const { return {dtype_, shape_}; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return shape_numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }

  void* raw() { return buffer_.get(); }
  const void* raw() const { return buffer_.get(); }
  // Typed access; throws when T is not the tensor's dtype.
  template <typename T>
  T* data() {
    check_dtype(dtype_of<T>);
    return static_cast<T*>(raw());
  }
  template <typename T>
  const T* data() const {
    check_dtype(dtype_of<T>);
    return static_cast<const T*>(raw());
  }

  // Same buffer seen with another shape of the same element count.
  Tensor reshaped(Shape shape) const;
  Tensor clone() const;
  // Values of an integer or float tensor, converted (for shape-like inputs).
  std::vector<int64_t> to_int64_vector() const;
  std::vector<double> to_double_vector() const;
  // Element i converted to double, whatever the dtype.
  double element_as_double(int64_t i) const;

 private:
  void check_dtype(DType expected) const;

  DType dtype_ = DType::Float32;
  Shape shape_;
  std::shared_ptr<std::byte> buffer_;
};

// `t` in compute_dtype(t.dtype()): a float16 or bfloat16 tensor widened to
// float32 (exactly), any other tensor as it is.
Tensor widened_to_compute(const Tensor& t);

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, Shape shape) {
  Tensor t(dtype_of<T>, std::move(shape));
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i)
    out[i] = values[i];
  return t;
}

}  // namespace lathe
