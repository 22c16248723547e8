// Helpers shared by reference kernels: broadcasting index arithmetic and
// dtype dispatch. Kept header-only and simple: these kernels are the oracle.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "ir/ops/layout.h"
#include "support/error.h"

namespace lathe::reference {

// The number of elements in dimensions [begin, end) of `s`.
inline int64_t dims_product(const Shape& s, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= s[i];
  return n;
}

// Element strides of a tensor of shape `in` read as if broadcast to `out`
// (stride 0 along broadcast dimensions).
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out);

// Calls f(out_index, offsets) for every element of `out`, where offsets[k] is
// the element offset into input k, whose broadcast strides are strides[k].
template <size_t N, typename F>
void for_each_broadcast(const Shape& out, const std::array<std::vector<int64_t>, N>& strides,
                        F&& f) {
  const int rank = static_cast<int>(out.size());
  const int64_t total = shape_numel(out);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  std::array<int64_t, N> offsets{};
  for (int64_t i = 0; i < total; ++i) {
    f(i, offsets);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < out[d]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * (out[d] - 1);
      index[d] = 0;
    }
  }
}

// Dispatch on a dtype restricted to a set; throws UnsupportedError outside it.
template <typename F>
void dispatch(DType t, DTypeSet allowed, const char* op, F&& f) {
  if (!dtype_in(t, allowed))
    fail_unsupported(str(op, ": no reference kernel for dtype ", dtype_name(t)));
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      if (dtype_in(DType::Bool, allowed)) f(tag);
    } else if constexpr (is_storage_float_v<T>) {
      // Computed in float32 (the importer widens them); only Cast and the
      // kernels that dispatch on them explicitly see these.
      fail_unsupported(str(op, ": no reference kernel for dtype ", dtype_name(t)));
    } else {
      f(tag);
    }
  });
}

// Dispatch over an explicit list of C++ types, instantiating f only for them:
//   dispatch_types<float, double>(t, "Erf", [&](auto tag) { ... });
template <typename... Ts, typename F>
void dispatch_types(DType t, const char* op, F&& f) {
  bool handled = ((t == dtype_of<Ts> ? (f(Ts{}), true) : false) || ...);
  if (!handled) fail_unsupported(str(op, ": no reference kernel for dtype ", dtype_name(t)));
}

// Copies x, stored in layout `src`, into y, stored in layout `dst` (the
// shapes must agree logically): LayoutTransform's kernel, and how kernels
// written for NCHW serve blocked data.
void relayout(const Tensor& x, const TensorLayout& src, Tensor& y, const TensorLayout& dst);

// A kernel written for NCHW run on data stored as the node's `layout`
// attribute says (the layout pass's "NCHW16c" on pools): input 0 and output
// 0 copied to NCHW and back, the other inputs (scales, zero points) as they
// are. The oracle stays one kernel per op.
template <KernelFn kKernel>
void run_in_nchw(KernelContext& ctx) {
  const std::string text = ctx.attrs().get_string("layout", "NCHW");
  if (text == "NCHW") return kKernel(ctx);
  const TensorLayout blocked = TensorLayout::parse(text), nchw;
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  Tensor logical_x(x.dtype(), blocked.logical_shape(x.shape()));
  Tensor logical_y(y.dtype(), blocked.logical_shape(y.shape()));
  relayout(x, blocked, logical_x, nchw);
  Node plain = ctx.node();
  plain.attrs.erase("layout");
  std::vector<const Tensor*> inputs = {&logical_x};
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    inputs.push_back(ctx.has_input(i) ? &ctx.input(i) : nullptr);
  KernelContext inner(plain, std::move(inputs), {&logical_y});
  kKernel(inner);
  relayout(logical_y, nchw, y, blocked);
}

}  // namespace lathe::reference
