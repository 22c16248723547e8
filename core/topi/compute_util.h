// Helpers shared by the compute definitions of core/topi/*_compute.cpp:
// NumPy broadcasting and reshaping as index maps, attribute and constant
// input access, integer division with C semantics, and compile-time tables
// (a value per output position, known when the kernel is built) as trees of
// selects.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ir/ops/infer_util.h"
#include "support/error.h"
#include "te/tensor.h"
#include "topi/op_compute.h"
#include "topi/table_lookup.h"

namespace lathe::topi::detail {

using te::DataType;
using te::Expr;
using te::Var;

inline std::vector<Expr> as_exprs(const std::vector<Var>& vars) {
  return std::vector<Expr>(vars.begin(), vars.end());
}

// The index into a tensor of shape `in` that output index `out` reads under
// NumPy broadcasting (shapes aligned at the back, size-1 dimensions at 0).
inline std::vector<Expr> broadcast_index(const std::vector<int64_t>& in,
                                         const std::vector<Expr>& out) {
  std::vector<Expr> index;
  const size_t skip = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    index.push_back(in[d] == 1 ? te::make_int(0) : out[skip + d]);
  return index;
}

inline Expr broadcast_read(const te::Tensor& t, const std::vector<Expr>& out) {
  return t(broadcast_index(t.shape(), out));
}

// The first element of a tensor (a scalar operand such as Clip's bounds).
inline Expr read_first(const te::Tensor& t) {
  return t(std::vector<Expr>(static_cast<size_t>(t.ndim()), te::make_int(0)));
}

// Row-major linear position of `index` in `shape`.
inline Expr flat_index(const std::vector<int64_t>& shape, const std::vector<Expr>& index) {
  Expr flat = te::make_int(0, DataType::Int(64));
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * te::make_int(shape[d], DataType::Int(64)) + index[d];
  return flat;
}

// The multi-index of linear position `flat` in `shape`.
inline std::vector<Expr> unflatten(const std::vector<int64_t>& shape, const Expr& flat) {
  std::vector<Expr> index(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    Expr i = stride == 1 ? flat : flat / te::make_int(stride, flat.type());
    // The outermost dimension needs no modulo; size-1 dimensions are 0.
    if (shape[d] == 1)
      index[d] = te::make_int(0);
    else
      index[d] = d == 0 ? i : i % te::make_int(shape[d], flat.type());
    stride *= shape[d];
  }
  return index;
}

// The input index that output index `out` of a row-major reshape reads. The
// two shapes are cut into the shortest runs of dimensions with equal products
// (a split of one axis, a merge of adjacent ones, or an axis kept), and each
// run maps through its own linear position. Mapping through the whole
// tensor's position instead would divide every index by the product of all
// later dimensions, which no simplifier can undo once a vector lane runs
// along one of them.
inline std::vector<Expr> reshape_index(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& out,
                                       const std::vector<Expr>& index) {
  for (int64_t d : in)
    if (d == 0) return unflatten(in, flat_index(out, index));
  std::vector<Expr> result;
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    const size_t i0 = i, j0 = j;
    int64_t in_product = i < in.size() ? in[i++] : 1;
    int64_t out_product = j < out.size() ? out[j++] : 1;
    while (in_product != out_product) {
      if (in_product < out_product && i < in.size())
        in_product *= in[i++];
      else if (out_product < in_product && j < out.size())
        out_product *= out[j++];
      else
        return unflatten(in, flat_index(out, index));  // sizes differ: not a reshape
    }
    const std::vector<int64_t> in_run(in.begin() + static_cast<std::ptrdiff_t>(i0),
                                      in.begin() + static_cast<std::ptrdiff_t>(i));
    const std::vector<int64_t> out_run(out.begin() + static_cast<std::ptrdiff_t>(j0),
                                       out.begin() + static_cast<std::ptrdiff_t>(j));
    const std::vector<Expr> out_index(index.begin() + static_cast<std::ptrdiff_t>(j0),
                                      index.begin() + static_cast<std::ptrdiff_t>(j));
    if (in_run.size() == 1 && out_run.size() == 1) {
      result.push_back(in_run[0] == 1 ? te::make_int(0) : out_index[0]);
      continue;
    }
    for (Expr& e : unflatten(in_run, flat_index(out_run, out_index))) result.push_back(e);
  }
  return result;
}

// Integer division and remainder truncating towards zero, as C++ (TE's / and
// % floor on integers); unsigned and float operands divide plainly.
inline Expr trunc_div(const Expr& a, const Expr& b) {
  if (!a.type().is_int()) return a / b;
  Expr zero = te::make_zero(a.type());
  Expr inexact = a % b != zero;
  Expr signs_differ = (a < zero) != (b < zero);
  return te::select(inexact && signs_differ, a / b + te::make_one(a.type()), a / b);
}

inline Expr trunc_mod(const Expr& a, const Expr& b) {
  if (!a.type().is_int()) return a % b;
  return a - trunc_div(a, b) * b;
}

// Largest and smallest value of an integer type, as immediates of that type.
inline Expr int_max(DataType t) {
  if (t.is_uint()) return te::make_int(t.bits == 64 ? -1 : (int64_t{1} << t.bits) - 1, t);
  return te::make_int(
      t.bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits - 1)) - 1, t);
}
inline Expr int_min(DataType t) {
  if (t.is_uint()) return te::make_int(0, t);
  return te::make_int(
      t.bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits - 1)), t);
}

// A float64 result converted to `t`: integers truncate, with NaN pinned to 0
// and out-of-range values saturated (the reference kernels' from_double).
inline Expr from_double(const Expr& v, DataType t) {
  if (t.is_float()) return te::cast(t, v);
  if (t.is_bool()) return v != te::make_zero(v.type());
  const double hi = t.is_uint() ? std::ldexp(1.0, t.bits) - 1 : std::ldexp(1.0, t.bits - 1) - 1;
  const double lo = t.is_uint() ? 0.0 : -std::ldexp(1.0, t.bits - 1);
  Expr f64 = te::cast(DataType::Float(64), v);
  Expr in_range =
      te::select(f64 <= te::make_const(DataType::Float(64), lo), int_min(t), te::cast(t, f64));
  return te::select(
      f64 != f64, te::make_zero(t),
      te::select(f64 >= te::make_const(DataType::Float(64), hi), int_max(t), in_range));
}

// Element i of a constant tensor as an immediate of type `t`.
inline Expr constant_element(const lathe::Tensor& value, int64_t i, DataType t) {
  if (t.is_float()) return te::make_const(t, value.element_as_double(i));
  if (is_float(value.dtype())) return te::make_const(t, value.element_as_double(i));
  if (t.is_bool()) return te::make_int(value.element_as_double(i) != 0, t);
  if (value.dtype() == DType::UInt64)
    return te::make_int(static_cast<int64_t>(value.data<uint64_t>()[i]), t);
  return te::make_int(value.to_int64_vector()[static_cast<size_t>(i)], t);
}

// Integer values of a shape-deciding constant input.
inline std::vector<int64_t> constant_ints(const ComputeContext& ctx, size_t i,
                                          std::string_view what) {
  return ctx.require_constant(i, what).to_int64_vector();
}

// Input i as an operand: a read through broadcasting when it is a tensor, an
// immediate of element 0 when it is only a constant; undefined when omitted.
inline Expr scalar_operand(const ComputeContext& ctx, size_t i, DataType t) {
  if (ctx.has_input(i)) return read_first(ctx.input(i));
  if (const lathe::Tensor* c = ctx.constant(i)) return constant_element(*c, 0, t);
  return Expr();
}

inline std::vector<int64_t> out_shape(const ComputeContext& ctx, size_t i = 0) {
  return ctx.output_type(i).shape;
}

inline DataType out_dtype(const ComputeContext& ctx, size_t i = 0) {
  return te_dtype(ctx.output_type(i).dtype);
}

}  // namespace lathe::topi::detail
