// Operands and checks the integer-kernel tests share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"

namespace lathe::testing {

// Deterministic operands: a linear congruential sequence over [lo, hi].
template <typename T>
Tensor random_tensor(Shape shape, int lo, int hi, uint32_t seed) {
  Tensor t(dtype_of<T>, std::move(shape));
  uint32_t s = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<T>()[i] = static_cast<T>(lo + static_cast<int>((s >> 8) % (hi - lo + 1)));
  }
  return t;
}

inline int count_op(const Graph& g, const std::string& op) {
  return static_cast<int>(
      std::ranges::count_if(g.nodes, [&](const Node& n) { return n.op == op; }));
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

}  // namespace lathe::testing
