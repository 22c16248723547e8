// The reference kernel of MatMulIntegerPacked (ir/ops/matmul_integer_packed.h),
// written from its definition: the sum over k of (a − az)(B − bz[n]), B
// read through the packed index. It reads b_sum as the compiled kernel does
// (Σab − az·b_sum − bz·Σa + K·az·bz), so a b_sum that is not B's column sum
// shows in both alike.
#include "ir/ops/matmul_integer_packed.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::reference {
namespace {

void matmul_integer_packed(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& y = ctx.output(0);
  constexpr int64_t lanes = kMatMulIntegerLanes, group = kMatMulIntegerGroup;
  const int64_t kdim = a.shape().back(), rows = a.numel() / kdim;
  const int64_t kq = b.shape()[1], columns = b.shape()[0] * lanes;
  const int32_t az = ctx.has_input(3) ? ctx.input(3).data<uint8_t>()[0] : 0;
  const Tensor* bz = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  const Tensor* b_sum = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  LATHE_CHECK(b_sum || az == 0, "MatMulIntegerPacked: an a_zero_point of ", az, " needs b_sum");
  const uint8_t* pa = a.data<uint8_t>();
  const int8_t* pb = b.data<int8_t>();
  int32_t* py = y.data<int32_t>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < columns; ++n) {
      const int32_t z = !bz ? 0 : bz->data<int8_t>()[bz->numel() == 1 ? 0 : n];
      const int32_t sb = b_sum ? b_sum->data<int32_t>()[n] : 0;
      int32_t ab = 0, sa = 0;
      for (int64_t k = 0; k < kdim; ++k) {
        const int32_t v = pa[r * kdim + k];
        ab += v * pb[((n / lanes * kq + k / group) * lanes + n % lanes) * group + k % group];
        sa += v;
      }
      py[r * columns + n] = ab - z * sa - az * sb + static_cast<int32_t>(kdim) * az * z;
    }
}

}  // namespace

void register_matmul_integer_packed_kernel(OpRegistry& r) {
  r.set_kernel("MatMulIntegerPacked", matmul_integer_packed);
}

}  // namespace lathe::reference
