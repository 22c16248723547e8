// The compute of topi/int8_dense_packed.h.
#include "topi/int8_dense_packed.h"

#include "support/error.h"

namespace lathe::topi {
namespace {

using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kI32 = DataType::Int(32);

// A zero point as int32: the element for `column` of a per-column one, else
// the one element; undefined for none.
Expr zero_point(const QuantOperand& q, const Expr& column) {
  if (!q.zero_point.defined()) return Expr();
  const Tensor& z = q.zero_point;
  std::vector<Expr> index;
  if (z.ndim() == 1) index.push_back(z.shape()[0] == 1 ? te::make_int(0) : column);
  return te::cast(kI32, z(index));
}

}  // namespace

Int8Kernel matmul_integer_packed(const QuantOperand& a, const QuantOperand& b, const Tensor& b_sum,
                                 const std::string& name) {
  const char* op = "MatMulIntegerPacked";
  LATHE_CHECK(a.value.ndim() >= 2 && a.value.dtype() == DataType::UInt(8) && b.value.ndim() == 4 &&
                  b.value.dtype() == DataType::Int(8) && b.value.shape()[2] == kInt8Lanes &&
                  b.value.shape()[3] == kInt8Group &&
                  b.value.shape()[1] * kInt8Group == a.value.shape().back(),
              op, ": needs uint8 A [..., M, K] and B packed as int8 [N/16, K/4, 16, 4]");
  const auto& as = a.value.shape();
  const int rank = a.value.ndim();
  const int64_t kdim = as.back(), kq = kdim / kInt8Group, nb = b.value.shape()[0];
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= as[static_cast<size_t>(d)];
  const Expr a_zero = zero_point(a, Expr());
  LATHE_CHECK(!a_zero.defined() || b_sum.defined(), op, ": an A zero point needs b_sum");

  // A's index of a flattened row and a column.
  auto a_index = [&](const Expr& row, const Expr& column) {
    std::vector<Expr> index(static_cast<size_t>(rank));
    Expr rest = row;
    for (int d = rank - 2; d >= 0; --d) {
      const int64_t extent = as[static_cast<size_t>(d)];
      index[static_cast<size_t>(d)] = d == 0 ? rest : rest % te::make_int(extent);
      if (d > 0) rest = rest / te::make_int(extent);
    }
    index[static_cast<size_t>(rank - 1)] = column;
    return index;
  };

  Int8Kernel k;
  k.lanes = kInt8Lanes;
  k.data = a.value;
  k.weights = b.value;
  k.weight_sum = b_sum;
  IterVar rkq = te::reduce_axis(kq, "rkq"), rkl = te::reduce_axis(kInt8Group, "rkl");
  k.product = te::compute(
      {rows, nb, kInt8Lanes},
      [&](const std::vector<Var>& i) {
        Expr x = a.value(a_index(i[0], rkq.var() * te::make_int(kInt8Group) + rkl.var()));
        Expr y = b.value(i[1], rkq.var(), i[2], rkl.var());
        return te::sum(te::cast(kI32, x) * te::cast(kI32, y), {rkq, rkl});
      },
      name + "_product", {"row", "n_chunk", "n_block"}, "dense_int8");
  const bool b_zero = b.zero_point.defined();
  if (b_zero) {
    IterVar sk = te::reduce_axis(kdim, "rk");
    k.data_sum =
        te::compute({rows},
                    [&](const std::vector<Var>& i) {
                      return te::sum(te::cast(kI32, a.value(a_index(i[0], sk.var()))), {sk});
                    },
                    name + "_data_sum", {"row"});
  }
  std::vector<int64_t> out_shape(as.begin(), as.end() - 1);
  out_shape.push_back(nb * kInt8Lanes);
  k.output = te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        Expr row = i[0];
        for (int d = 1; d < rank - 1; ++d)
          row = row * te::make_int(as[static_cast<size_t>(d)]) + i[static_cast<size_t>(d)];
        const Var& col = i.back();
        Expr chunk = col / te::make_int(kInt8Lanes), lane = col % te::make_int(kInt8Lanes);
        Expr v = k.product(row, chunk, lane);
        const Expr bz = zero_point(b, col);
        if (b_zero) v = v - bz * k.data_sum(row);
        if (a_zero.defined()) v = v - a_zero * k.weight_sum(chunk, lane);
        if (a_zero.defined() && b_zero) v = v + te::make_int(kdim) * a_zero * bz;
        return v;
      },
      name, {}, "matmul_integer");
  return k;
}

std::vector<te::Tensor> matmul_integer_packed_compute(const ComputeContext& ctx) {
  auto operand = [&](size_t value, size_t zero_point) {
    return QuantOperand{ctx.input(value),
                        ctx.has_input(zero_point) ? ctx.input(zero_point) : Tensor()};
  };
  const Tensor b_sum = ctx.has_input(2) ? ctx.input(2) : Tensor();
  return {matmul_integer_packed(operand(0, 3), operand(1, 4), b_sum, ctx.name()).output};
}

}  // namespace lathe::topi
