#include "ir/dtype.h"

namespace lathe {

size_t dtype_size(DType t) {
  return visit_dtype(t, [](auto tag) { return sizeof(tag); });
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::UInt8: return "uint8";
    case DType::UInt16: return "uint16";
    case DType::UInt32: return "uint32";
    case DType::UInt64: return "uint64";
    case DType::Bool: return "bool";
  }
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(DType::Bool); ++i) {
    auto t = static_cast<DType>(i);
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool is_signed_integer(DType t) { return dtype_in(t, kSignedTypes); }
bool is_unsigned_integer(DType t) { return dtype_in(t, kUnsignedTypes); }

}  // namespace lathe
