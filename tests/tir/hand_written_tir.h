// Pieces of hand-written loop nests for the tests of the loop-IR analyses
// (tst_memory_traffic, tst_loop_costs): float32 buffers and loads from them.
#pragma once

#include <string>
#include <utility>

#include "tir/stmt.h"

namespace lathe::testing {

inline const te::DataType kF32 = te::DataType::Float(32);

// A flat float32 buffer of `elements`, its handle named like it.
inline tir::Buffer f32_buffer(const std::string& name, int64_t elements) {
  return {tir::Var(name, te::DataType::Handle()), name, kF32, {elements}};
}

inline tir::Expr f32_load(const tir::Buffer& b, tir::Expr index) {
  return te::load(kF32, b.data, std::move(index));
}

}  // namespace lathe::testing
