// Integer division that rounds toward minus infinity, as TVM's floordiv and
// Python's //: index arithmetic, pads and window counts may be negative.
// Checked arithmetic for extents a model file gives (shapes, repeats, pads).
#pragma once

#include <cstdint>

#include "support/error.h"

namespace lathe {

// a * b and a + b, or an Error saying `what` overflows int64_t.
inline int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail(str(what, " overflows 64 bits (", a, " * ", b, ")"));
  return r;
}

inline int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail(str(what, " overflows 64 bits (", a, " + ", b, ")"));
  return r;
}

inline int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline int64_t floormod(int64_t a, int64_t b) {
  return a - floordiv(a, b) * b;
}

inline int64_t ceildiv(int64_t a, int64_t b) {
  return -floordiv(-a, b);
}

}  // namespace lathe
