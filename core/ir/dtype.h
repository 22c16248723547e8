// Element types of graph values. Names follow NumPy and TVM ("float32", "int64", "bool").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "support/float16.h"

namespace lathe {

enum class DType : uint8_t {
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Bool,
  // Storage types: graph inputs, outputs and Casts carry them; everything
  // else computes in float32 (docs/ARCHITECTURE.md, "float16 and bfloat16").
  Float16,
  BFloat16,
};

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
// ONNX's TensorProto::DataType codes (used by Cast's `to` and tensor protos).
std::optional<DType> dtype_from_onnx(int code);
int dtype_to_onnx(DType t);
// Name of an ONNX data type code, for messages about types Lathe lacks ("float16").
std::string onnx_dtype_name(int code);

// float32 and float64: the float types ops compute in.
bool is_float(DType t);
// float16 and bfloat16: float types Lathe stores but computes in float32.
bool is_storage_float(DType t);
// The type a value of type t is computed in: float32 for the storage floats,
// t itself otherwise.
DType compute_dtype(DType t);
bool is_signed_integer(DType t);
bool is_unsigned_integer(DType t);
inline bool is_integer(DType t) {
  return is_signed_integer(t) || is_unsigned_integer(t);
}

template <typename T>
struct DTypeOf;
#define LATHE_DTYPE_OF(type, tag)              \
  template <>                                  \
  struct DTypeOf<type> {                       \
    static constexpr DType value = DType::tag; \
  };
LATHE_DTYPE_OF(float, Float32)
LATHE_DTYPE_OF(double, Float64)
LATHE_DTYPE_OF(int8_t, Int8)
LATHE_DTYPE_OF(int16_t, Int16)
LATHE_DTYPE_OF(int32_t, Int32)
LATHE_DTYPE_OF(int64_t, Int64)
LATHE_DTYPE_OF(uint8_t, UInt8)
LATHE_DTYPE_OF(uint16_t, UInt16)
LATHE_DTYPE_OF(uint32_t, UInt32)
LATHE_DTYPE_OF(uint64_t, UInt64)
LATHE_DTYPE_OF(bool, Bool)
LATHE_DTYPE_OF(Float16, Float16)
LATHE_DTYPE_OF(BFloat16, BFloat16)
#undef LATHE_DTYPE_OF

template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;
template <typename T>
inline constexpr bool is_storage_float_v =
    std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// Calls f(T{}) with the C++ type of t, so a kernel is written once as a template:
//   visit_dtype(t, [&](auto tag) { using T = decltype(tag); ... });
// The storage floats come as Float16 and BFloat16, which read as float but
// have no arithmetic of their own.
template <typename F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Float32:
      return f(float{});
    case DType::Float64:
      return f(double{});
    case DType::Int8:
      return f(int8_t{});
    case DType::Int16:
      return f(int16_t{});
    case DType::Int32:
      return f(int32_t{});
    case DType::Int64:
      return f(int64_t{});
    case DType::UInt8:
      return f(uint8_t{});
    case DType::UInt16:
      return f(uint16_t{});
    case DType::UInt32:
      return f(uint32_t{});
    case DType::UInt64:
      return f(uint64_t{});
    case DType::Bool:
      return f(bool{});
    case DType::Float16:
      return f(Float16{});
    case DType::BFloat16:
      return f(BFloat16{});
  }
  return f(float{});
}

// Sets of dtypes, for what an op accepts.
using DTypeSet = uint32_t;
constexpr DTypeSet dtype_bit(DType t) {
  return DTypeSet{1} << static_cast<unsigned>(t);
}
constexpr DTypeSet kFloatTypes = dtype_bit(DType::Float32) | dtype_bit(DType::Float64);
constexpr DTypeSet kSignedTypes = dtype_bit(DType::Int8) | dtype_bit(DType::Int16) |
                                  dtype_bit(DType::Int32) | dtype_bit(DType::Int64);
constexpr DTypeSet kUnsignedTypes = dtype_bit(DType::UInt8) | dtype_bit(DType::UInt16) |
                                    dtype_bit(DType::UInt32) | dtype_bit(DType::UInt64);
constexpr DTypeSet kIntegerTypes = kSignedTypes | kUnsignedTypes;
constexpr DTypeSet kNumericTypes = kFloatTypes | kIntegerTypes;
constexpr DTypeSet kAllTypes = kNumericTypes | dtype_bit(DType::Bool);
constexpr DTypeSet kIndexTypes = dtype_bit(DType::Int32) | dtype_bit(DType::Int64);
constexpr DTypeSet kBoolType = dtype_bit(DType::Bool);
constexpr DTypeSet kStorageFloatTypes = dtype_bit(DType::Float16) | dtype_bit(DType::BFloat16);
inline bool dtype_in(DType t, DTypeSet set) {
  return (set & dtype_bit(t)) != 0;
}

}  // namespace lathe
