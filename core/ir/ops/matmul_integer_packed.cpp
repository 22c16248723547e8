// Inference of MatMulIntegerPacked (ir/ops/matmul_integer_packed.h).
#include "ir/ops/matmul_integer_packed.h"

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

void infer_matmul_integer_packed(InferContext& ctx) {
  ctx.check_dtype(0, dtype_bit(DType::UInt8));
  ctx.check_dtype(1, dtype_bit(DType::Int8));
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  LATHE_CHECK(a.rank() >= 2, "MatMulIntegerPacked: A must have rank 2 or more, got ",
              a.to_string());
  LATHE_CHECK(b.rank() == 4 && b.shape[2] == kMatMulIntegerLanes &&
                  b.shape[3] == kMatMulIntegerGroup &&
                  b.shape[1] * kMatMulIntegerGroup == a.shape.back(),
              "MatMulIntegerPacked: B must be [N/16, K/4, 16, 4] for A ", a.to_string(), ", got ",
              b.to_string());
  const int64_t columns = b.shape[0] * kMatMulIntegerLanes;
  if (ctx.has_input(2)) {
    ctx.check_dtype(2, dtype_bit(DType::Int32));
    LATHE_CHECK(ctx.input(2).shape == Shape({b.shape[0], kMatMulIntegerLanes}),
                "MatMulIntegerPacked: b_sum must be [", b.shape[0], ", 16], got ",
                ctx.input(2).to_string());
  }
  if (ctx.has_input(3)) {
    ctx.check_dtype(3, dtype_bit(DType::UInt8));
    LATHE_CHECK(ctx.input(3).numel() == 1 && ctx.input(3).rank() <= 1,
                "MatMulIntegerPacked: a_zero_point must be a scalar, got ",
                ctx.input(3).to_string());
  }
  if (ctx.has_input(4)) {
    ctx.check_dtype(4, dtype_bit(DType::Int8));
    const TensorType& z = ctx.input(4);
    LATHE_CHECK((z.numel() == 1 && z.rank() <= 1) || (z.rank() == 1 && z.shape[0] == columns),
                "MatMulIntegerPacked: b_zero_point must be a scalar or have ", columns,
                " values, got ", z.to_string());
  }
  Shape out = a.shape;
  out.back() = columns;
  ctx.set_output(0, {DType::Int32, out});
}

// As MatMulInteger: K multiply-adds per output element.
int64_t matmul_integer_packed_macs(const Node&, const std::vector<TensorType>& in,
                                   const std::vector<TensorType>& out) {
  return out[0].numel() * in[0].shape.back();
}

}  // namespace

void register_matmul_integer_packed_op(OpRegistry& r) {
  r.define("MatMulIntegerPacked", FusionKind::OutEWiseFusable, infer_matmul_integer_packed).macs =
      matmul_integer_packed_macs;
}

}  // namespace lathe
