#include "ir/dtype.h"

namespace lathe {

size_t dtype_size(DType t) {
  return visit_dtype(t, [](auto tag) { return sizeof(tag); });
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Int8:
      return "int8";
    case DType::Int16:
      return "int16";
    case DType::Int32:
      return "int32";
    case DType::Int64:
      return "int64";
    case DType::UInt8:
      return "uint8";
    case DType::UInt16:
      return "uint16";
    case DType::UInt32:
      return "uint32";
    case DType::UInt64:
      return "uint64";
    case DType::Bool:
      return "bool";
    case DType::Float16:
      return "float16";
    case DType::BFloat16:
      return "bfloat16";
  }
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(DType::BFloat16); ++i) {
    auto t = static_cast<DType>(i);
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

namespace {
struct OnnxCode {
  int code;
  DType dtype;
};
constexpr OnnxCode kOnnxCodes[] = {
    {1, DType::Float32},   {2, DType::UInt8},    {3, DType::Int8},    {4, DType::UInt16},
    {5, DType::Int16},     {6, DType::Int32},    {7, DType::Int64},   {9, DType::Bool},
    {10, DType::Float16},  {11, DType::Float64}, {12, DType::UInt32}, {13, DType::UInt64},
    {16, DType::BFloat16},
};
}  // namespace

std::optional<DType> dtype_from_onnx(int code) {
  for (const OnnxCode& c : kOnnxCodes)
    if (c.code == code) return c.dtype;
  return std::nullopt;
}

int dtype_to_onnx(DType t) {
  for (const OnnxCode& c : kOnnxCodes)
    if (c.dtype == t) return c.code;
  return 0;
}

std::string onnx_dtype_name(int code) {
  if (auto t = dtype_from_onnx(code)) return std::string(dtype_name(*t));
  switch (code) {
    case 8:
      return "string";
    case 14:
      return "complex64";
    case 15:
      return "complex128";
    default:
      return "data type " + std::to_string(code);
  }
}

bool is_float(DType t) {
  return t == DType::Float32 || t == DType::Float64;
}
bool is_storage_float(DType t) {
  return dtype_in(t, kStorageFloatTypes);
}
DType compute_dtype(DType t) {
  return is_storage_float(t) ? DType::Float32 : t;
}
bool is_signed_integer(DType t) {
  return dtype_in(t, kSignedTypes);
}
bool is_unsigned_integer(DType t) {
  return dtype_in(t, kUnsignedTypes);
}

}  // namespace lathe
