// Integer division that rounds toward minus infinity, as TVM's floordiv and
// Python's //: index arithmetic, pads and window counts may be negative.
#pragma once

#include <cstdint>

namespace lathe {

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
