// The target CPU's vector unit, as far as schedules and layouts need it: how
// wide its widest float vectors are and how many vector registers it has.
// codegen::Target::vector_unit() derives it from the target's ISA features,
// and the compile and tuning paths hand it to the layout pass (channel
// blocks of one vector) and to the x86 templates (register budgets of their
// micro-kernels, vector lengths).
#pragma once

#include <cstdint>

namespace lathe {

struct VectorUnit {
  int bits = 512;      // widest vector register
  int registers = 32;  // vector registers the ISA names

  // Lanes of one vector register for elements of `element_bytes`.
  int64_t lanes(int element_bytes = 4) const { return bits / 8 / element_bytes; }
  // Registers one vector of `elements` float32 values takes.
  int64_t vectors_for(int64_t elements) const { return (elements + lanes() - 1) / lanes(); }

  // AVX-512 (zmm0-31); also what code that names no target assumes.
  static constexpr VectorUnit avx512() { return {512, 32}; }
  // AVX and AVX2 (ymm0-15).
  static constexpr VectorUnit avx2() { return {256, 16}; }
  // SSE (xmm0-15), the x86-64 baseline.
  static constexpr VectorUnit sse() { return {128, 16}; }

  bool operator==(const VectorUnit&) const = default;
};

}  // namespace lathe
