// Scalar and vector element types of tensor expressions and loop IR, as TVM's
// DataType: a code, a bit width and a lane count ("float32x8").
#pragma once

#include <cstdint>
#include <string>

namespace lathe::te {

struct DataType {
  // BFloat: bfloat16, a storage type that kernels only load, store and cast
  // (as TVM's kDLBfloat); is_float() is false for it.
  enum class Code : uint8_t { Int, UInt, Float, Handle, BFloat };
  Code code = Code::Int;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static DataType Int(int bits, int lanes = 1) {
    return {Code::Int, uint8_t(bits), uint16_t(lanes)};
  }
  static DataType UInt(int bits, int lanes = 1) {
    return {Code::UInt, uint8_t(bits), uint16_t(lanes)};
  }
  static DataType Float(int bits, int lanes = 1) {
    return {Code::Float, uint8_t(bits), uint16_t(lanes)};
  }
  static DataType BFloat(int bits, int lanes = 1) {
    return {Code::BFloat, uint8_t(bits), uint16_t(lanes)};
  }
  static DataType Bool(int lanes = 1) { return UInt(1, lanes); }
  static DataType Handle() { return {Code::Handle, 64, 1}; }

  bool is_int() const { return code == Code::Int; }
  bool is_uint() const { return code == Code::UInt && bits > 1; }
  bool is_bool() const { return code == Code::UInt && bits == 1; }
  bool is_float() const { return code == Code::Float; }
  bool is_handle() const { return code == Code::Handle; }
  bool is_bfloat() const { return code == Code::BFloat; }
  // Integer-like: int, uint or bool.
  bool is_integer() const { return code == Code::Int || code == Code::UInt; }
  bool is_scalar() const { return lanes == 1; }
  bool is_vector() const { return lanes > 1; }
  DataType element_of() const { return {code, bits, 1}; }
  DataType with_lanes(int n) const { return {code, bits, uint16_t(n)}; }
  int bytes() const { return (bits + 7) / 8; }

  bool operator==(const DataType&) const = default;
  // "float32", "int64", "bool", "bfloat16", "float32x8"
  std::string to_string() const;
  // Parses what to_string prints; throws on anything else.
  static DataType parse(const std::string& text);
};

}  // namespace lathe::te
