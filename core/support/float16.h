// IEEE binary16 (float16) and bfloat16 as storage types: 16-bit patterns that
// widen exactly to float and narrow from float with round-to-nearest-even, as
// ONNX's Cast, F16C's vcvtps2ph and LLVM's fptrunc do. Lathe computes in
// float32; these only hold values where a model stores them in 16 bits.
// Header-only and free of core/ir, so the runtime may use it too.
#pragma once

#include <bit>
#include <cstdint>

namespace lathe {

// float -> binary16 bits, round to nearest even; overflow gives infinity, a NaN
// stays a NaN (quieted, keeping the payload's top bits, as vcvtps2ph does).
// Integer arithmetic only, so the result does not depend on the FPU's mode.
constexpr uint16_t float_to_half_bits(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 2^16
  if (magnitude >= 0x38800000u) {
    // A normal half (>= 2^-14): rebias the exponent, drop 13 mantissa bits
    // rounding to even. A carry out of the mantissa bumps the exponent, up to
    // infinity for [65520, 65536).
    uint32_t h = magnitude - 0x38000000u;
    h += 0x0fffu + ((h >> 13) & 1u);
    return static_cast<uint16_t>(sign | (h >> 13));
  }
  if (magnitude <= 0x33000000u) return sign;  // <= 2^-25: ties to the even zero
  // A subnormal half, m * 2^-24: the 24-bit significand shifted right.
  const uint32_t exponent = magnitude >> 23;  // 102 .. 112
  const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exponent;  // 14 .. 24
  uint32_t m = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (m & 1u))) ++m;  // may carry into the smallest normal
  return static_cast<uint16_t>(sign | m);
}

// binary16 bits -> float, exact.
constexpr float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits = 0;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: shift the leading one up to the implicit bit.
    uint32_t e = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

// float -> bfloat16 bits (float's top half), round to nearest even; a NaN
// stays a quiet NaN instead of rounding into infinity.
constexpr uint16_t float_to_bfloat16_bits(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// The element types of float16 and bfloat16 tensors. They read as float
// (exactly) wherever a float is expected; writing one rounds, so it is spelt
// out: Float16(x). One template, so the two formats differ only in their
// conversions (and stay distinct types for DType's mapping).
template <uint16_t (*Encode)(float), float (*Decode)(uint16_t)>
struct PackedFloat {
  uint16_t bits = 0;
  constexpr PackedFloat() = default;
  constexpr explicit PackedFloat(float value) : bits(Encode(value)) {}
  static constexpr PackedFloat from_bits(uint16_t b) {
    PackedFloat h;
    h.bits = b;
    return h;
  }
  constexpr operator float() const { return Decode(bits); }
};

using Float16 = PackedFloat<float_to_half_bits, half_bits_to_float>;
using BFloat16 = PackedFloat<float_to_bfloat16_bits, bfloat16_bits_to_float>;

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

}  // namespace lathe
