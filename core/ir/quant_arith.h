// The arithmetic of ONNX's quantized ops, exactly as ONNX Runtime's CPU
// kernels (MLAS) do it, so that Lathe's int8 results match ORT's bit for bit:
// one definition for the reference kernels, the constant folding of weights
// and the graph passes; the TE computes (topi/quantize_compute.cpp) spell the
// same float operations in the same order.
//
//  - quantize: x / scale (a division, not a multiplication by 1 / scale),
//    clamped in float to [qmin - zp, qmax - zp], rounded half to even, + zp
//    (MlasQuantizeLinear). A NaN clamps to qmin - zp, as MAXPS does.
//  - requantize an int32 accumulator: float(acc + bias) * scale, clamped and
//    rounded like quantize (MlasRequantizeOutput); the scale of QLinearConv,
//    QLinearMatMul and QGemm is (x_scale * w_scale[c]) / y_scale in float.
//  - dequantize: float(int32(x) - zp) * scale.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/dtype.h"

namespace lathe::quant {

// The integer range of a quantized type (int8, uint8, int16, uint16, int32).
struct QRange {
  int32_t min, max;
};
inline QRange range_of(DType t) {
  switch (t) {
    case DType::Int8:
      return {-128, 127};
    case DType::UInt8:
      return {0, 255};
    case DType::Int16:
      return {-32768, 32767};
    case DType::UInt16:
      return {0, 65535};
    default:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
}

// MAXPS / MINPS semantics: the second operand when either is NaN.
inline float max_ps(float a, float b) {
  return a > b ? a : b;
}
inline float min_ps(float a, float b) {
  return a < b ? a : b;
}

// Round half to even (CVTPS2DQ under the default rounding mode).
inline int32_t round_even(float v) {
  return static_cast<int32_t>(std::nearbyintf(v));
}

// A scaled float value clamped to the range shifted by the zero point,
// rounded, and shifted back: the tail that quantize and requantize share.
inline int32_t saturate_round(float scaled, int32_t zero_point, QRange r) {
  const float lo = static_cast<float>(r.min - zero_point);
  const float hi = static_cast<float>(r.max - zero_point);
  return round_even(min_ps(max_ps(scaled, lo), hi)) + zero_point;
}

inline int32_t quantize(float x, float scale, int32_t zero_point, QRange r) {
  return saturate_round(x / scale, zero_point, r);
}

inline int32_t requantize(int32_t acc, float scale, int32_t zero_point, QRange r) {
  return saturate_round(static_cast<float>(acc) * scale, zero_point, r);
}

inline float dequantize(int32_t x, float scale, int32_t zero_point) {
  return static_cast<float>(x - zero_point) * scale;
}

// The requantize multiplier of a product of two quantized operands.
inline float product_scale(float x_scale, float w_scale, float y_scale) {
  return x_scale * w_scale / y_scale;
}

// ORT's round half to even of a float that stays a float (x - remainder(x, 1)).
inline float round_half_even_float(float v) {
  if (!std::isfinite(v)) return v;
  return v - std::remainderf(v, 1.0f);
}

// DynamicQuantizeLinear's parameters from the range of its input (ORT's
// GetQuantizationParameter): the range widened to include 0, scale
// (max - min) / 255, zero point round_half_even(clamp(-min / scale)).
struct DynamicParams {
  float scale;
  uint8_t zero_point;
};
inline DynamicParams dynamic_params(float min, float max) {
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  const float scale = max == min ? 1.0f : (max - min) / 255.0f;
  const float initial = 0.0f - min / scale;
  const float clamped = std::max(0.0f, std::min(255.0f, initial));
  return {scale, static_cast<uint8_t>(round_half_even_float(clamped))};
}

}  // namespace lathe::quant
