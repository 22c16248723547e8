// Reference kernels for elementwise and broadcasting ops.
#include <algorithm>
#include <cmath>

#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

template <typename F>
void binary(KernelContext& ctx, DTypeSet allowed, F op) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  dispatch(a.dtype(), allowed, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.data<T>();
    std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a.shape(), out.shape()),
                                                   broadcast_strides(b.shape(), out.shape())};
    for_each_broadcast(out.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
      po[i] = static_cast<T>(op(pa[off[0]], pb[off[1]]));
    });
  });
}

template <typename F>
void unary(KernelContext& ctx, DTypeSet allowed, F op) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  dispatch(x.dtype(), allowed, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] = static_cast<T>(op(px[i]));
  });
}

void add(KernelContext& ctx) {
  binary(ctx, kNumericTypes, [](auto a, auto b) { return a + b; });
}
void sub(KernelContext& ctx) {
  binary(ctx, kNumericTypes, [](auto a, auto b) { return a - b; });
}
void mul(KernelContext& ctx) {
  binary(ctx, kNumericTypes, [](auto a, auto b) { return a * b; });
}
void div(KernelContext& ctx) {
  binary(ctx, kNumericTypes, [](auto a, auto b) { return a / b; });
}
void relu(KernelContext& ctx) {
  unary(ctx, kNumericTypes, [](auto x) { return x > 0 ? x : decltype(x){0}; });
}

}  // namespace

void register_elementwise_kernels(OpRegistry& r) {
  r.find_mutable("Add")->kernel = add;
  r.find_mutable("Sub")->kernel = sub;
  r.find_mutable("Mul")->kernel = mul;
  r.find_mutable("Div")->kernel = div;
  r.find_mutable("Relu")->kernel = relu;
}

}  // namespace lathe::reference
