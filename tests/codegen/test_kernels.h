// Hand-built lowered kernels shared by the code generator's tests: the TIR a
// schedule would lower to, written directly with the tir/te constructors.
#pragma once

#include <string>
#include <vector>

#include "te/expr.h"
#include "tir/stmt.h"

namespace lathe::testing {

using te::DataType;
using te::Expr;
using te::Var;
using tir::Buffer;
using tir::ForKind;
using tir::PrimFunc;
using tir::Stmt;

inline Buffer make_buffer(const std::string& name, DataType dtype, std::vector<int64_t> shape) {
  Buffer b;
  b.data = Var(name, DataType::Handle());
  b.name = name;
  b.dtype = dtype;
  b.shape = std::move(shape);
  return b;
}

// C[i] = A[i] + B[i] over n floats, its loop split by 8 and the inner loop
// vectorized into C[ramp(i*8, 1, 8)] = A[ramp(..)] + B[ramp(..)].
inline PrimFunc vector_add(int64_t n, const std::string& name = "vadd") {
  const DataType f32x8 = DataType::Float(32, 8);
  Buffer a = make_buffer("A", DataType::Float(32), {n});
  Buffer b = make_buffer("B", DataType::Float(32), {n});
  Buffer c = make_buffer("C", DataType::Float(32), {n});
  Var i("i.outer");
  Expr index = te::ramp(i * 8, 1, 8);
  Stmt store = tir::make_store(
      c.data, te::load(f32x8, a.data, index) + te::load(f32x8, b.data, index), index);
  return {
      name, {a, b, c}, tir::make_for(i, 0, Expr(static_cast<int>(n / 8)), ForKind::Serial, store)};
}

// C[m, n] = sum_k A[m, k] * B[k, n], rows in parallel, each dot product
// accumulated in an Allocate'd one-element buffer, as a cache_write would.
inline PrimFunc parallel_matmul(int m, int n, int k, const std::string& name = "matmul") {
  const DataType f32 = DataType::Float(32);
  Buffer a = make_buffer("A", f32, {m, k});
  Buffer b = make_buffer("B", f32, {k, n});
  Buffer c = make_buffer("C", f32, {m, n});
  Var i("i"), j("j"), r("k");
  Var acc("acc", DataType::Handle());
  Stmt reduce =
      tir::make_for(r, 0, k, ForKind::Serial,
                    tir::make_store(acc,
                                    te::load(f32, acc, 0) + te::load(f32, a.data, i * k + r) *
                                                                te::load(f32, b.data, r * n + j),
                                    0));
  Stmt inner = tir::make_seq({tir::make_store(acc, Expr(0.0f), 0), reduce,
                              tir::make_store(c.data, te::load(f32, acc, 0), i * n + j)});
  Stmt body = tir::make_for(
      i, 0, m, ForKind::Parallel,
      tir::make_for(j, 0, n, ForKind::Serial, tir::make_allocate(acc, f32, {Expr(1)}, inner)));
  return {name, {a, b, c}, body};
}

}  // namespace lathe::testing
