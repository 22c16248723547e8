// Reference kernels for the nn op family: convolutions, pools, normalizations,
// Gemm, MatMul, Softmax/LogSoftmax, PRelu and LRN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "ir/ops/col2im_geometry.h"
#include "ir/ops/infer_util.h"
#include "ir/ops/nn_dtypes.h"
#include "ir/ops/window_geometry.h"
#include "reference/executor.h"
#include "reference/kernel_util.h"
#include "support/int_math.h"

namespace lathe::reference {
namespace {

// dispatch() instantiates its body for bool too, whatever the allowed set;
// kernels with scratch vectors skip that instantiation (std::vector<bool> has
// no data()).
template <typename F>
void dispatch_no_bool(DType t, DTypeSet allowed, const char* op, F&& f) {
  dispatch(t, allowed, op, [&](auto tag) {
    if constexpr (!std::is_same_v<decltype(tag), bool>) f(tag);
  });
}

bool has_output(const KernelContext& ctx, size_t i) {
  return i < ctx.num_outputs() && ctx.node().outputs[i] != kNoValue;
}

// A window resolved against the actual input and output extents: the
// allocated output shape already reflects auto_pad and ceil_mode.
struct Window : SpatialWindow {
  Shape in, out;  // spatial extents
};

Window make_window(const Attributes& attrs, const Shape& x, const Shape& y, const Shape& kernel) {
  Shape in(x.begin() + 2, x.end()), out(y.begin() + 2, y.end());
  SpatialWindow resolved = resolve_window(attrs, in, out, kernel);
  return Window{std::move(resolved), std::move(in), std::move(out)};
}

// ---------------------------------------------------------------------------
// Matrix products. Conv, Gemm and MatMul all reduce to C += A * B with B
// packed in panels of kPanel columns (each panel k x kPanel, contiguous), and
// a register tile of 4 x kPanel accumulators per step. The tile loops have
// fixed trip counts and are fully unrolled, so GCC at -O2 (whose very cheap
// cost model vectorizes no loop of unknown length) keeps the tile in vector
// registers: ResNet-18 runs in about 0.3 s instead of 3 s with plain loops.
// Every output still sums its k products in order, from C's initial value.
constexpr int64_t kPanel = 8;

// Packs columns [0, n) of the k-row matrix whose element (p, j) is
// b[p * b_row + j * b_col] into panels, zero-padding the last one.
template <typename T>
void pack_panels(const T* b, int64_t b_row, int64_t b_col, int64_t k, int64_t n,
                 std::vector<T>& packed) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  packed.assign(static_cast<size_t>(panels * k * kPanel), T{0});
  for (int64_t jb = 0; jb < panels; ++jb) {
    const int64_t cols = std::min(kPanel, n - jb * kPanel);
    T* dst = packed.data() + jb * k * kPanel;
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < cols; ++j)
        dst[p * kPanel + j] = b[p * b_row + (jb * kPanel + j) * b_col];
  }
}

// C[R x kPanel] += A[R x k] * panel, A's element (r, p) at a[r * a_row + p * a_col].
template <int64_t R, typename T>
void gemm_tile(int64_t k, const T* a, int64_t a_row, int64_t a_col, const T* panel, T* c,
               int64_t ldc) {
  T acc[R][kPanel];
#pragma GCC unroll 4
  for (int64_t r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int64_t j = 0; j < kPanel; ++j) acc[r][j] = c[r * ldc + j];
  for (int64_t p = 0; p < k; ++p) {
    const T* bp = panel + p * kPanel;
#pragma GCC unroll 4
    for (int64_t r = 0; r < R; ++r) {
      const T av = a[r * a_row + p * a_col];
#pragma GCC unroll 8
      for (int64_t j = 0; j < kPanel; ++j) acc[r][j] += av * bp[j];
    }
  }
#pragma GCC unroll 4
  for (int64_t r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int64_t j = 0; j < kPanel; ++j) c[r * ldc + j] = acc[r][j];
}

// As gemm_tile for the first `cols` columns only, through a full scratch tile
// (the tile itself stays free of column checks, which would stop GCC from
// vectorizing it).
template <int64_t R, typename T>
void gemm_tile_partial(int64_t k, const T* a, int64_t a_row, int64_t a_col, const T* panel, T* c,
                       int64_t ldc, int64_t cols) {
  T tile[R * kPanel] = {};
  for (int64_t r = 0; r < R; ++r) std::copy(c + r * ldc, c + r * ldc + cols, tile + r * kPanel);
  gemm_tile<R>(k, a, a_row, a_col, panel, tile, kPanel);
  for (int64_t r = 0; r < R; ++r)
    std::copy(tile + r * kPanel, tile + r * kPanel + cols, c + r * ldc);
}

// C[m x n] (row stride ldc) += A[m x k] * B, B packed by pack_panels. Panels
// are the outer loop so that one stays in cache while all rows of A pass.
template <typename T>
void gemm_packed(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_row, int64_t a_col,
                 const T* packed, T* c, int64_t ldc) {
  for (int64_t jb = 0; jb * kPanel < n; ++jb) {
    const T* panel = packed + jb * k * kPanel;
    T* cj = c + jb * kPanel;
    const int64_t cols = std::min(kPanel, n - jb * kPanel);
    int64_t i = 0;
    if (cols == kPanel) {
      for (; i + 4 <= m; i += 4)
        gemm_tile<4>(k, a + i * a_row, a_row, a_col, panel, cj + i * ldc, ldc);
      for (; i < m; ++i) gemm_tile<1>(k, a + i * a_row, a_row, a_col, panel, cj + i * ldc, ldc);
    } else {
      for (; i + 4 <= m; i += 4)
        gemm_tile_partial<4>(k, a + i * a_row, a_row, a_col, panel, cj + i * ldc, ldc, cols);
      for (; i < m; ++i)
        gemm_tile_partial<1>(k, a + i * a_row, a_row, a_col, panel, cj + i * ldc, ldc, cols);
    }
  }
}

// ---------------------------------------------------------------------------
// Conv as a matrix product, chunk by chunk of output positions: the filters
// of a group [filters x (channels * kernel volume)] times the patch matrix
// (im2col) of the chunk, built directly in packed panels.
constexpr int64_t kConvChunk = 256;  // output positions per chunk: bounds the patch matrix

void conv(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const Shape kernel(w.shape().begin() + 2, w.shape().end());
  const Window win = make_window(ctx.attrs(), x.shape(), y.shape(), kernel);
  const size_t rank = win.in.size();
  const int64_t batch = x.shape()[0], channels = x.shape()[1], filters = w.shape()[0];
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t cg = channels / group, mg = filters / group;
  const int64_t in_plane = shape_numel(win.in), out_plane = shape_numel(win.out);
  const int64_t kernel_volume = shape_numel(kernel), depth = cg * kernel_volume;
  const std::vector<int64_t> in_strides = shape_strides(win.in);
  // Per kernel offset and dimension, the offset k * dilation it adds to a window origin.
  std::vector<int64_t> tap(static_cast<size_t>(kernel_volume) * rank);
  for (int64_t t = 0; t < kernel_volume; ++t)
    for (int64_t d = static_cast<int64_t>(rank) - 1, rem = t; d >= 0; --d) {
      tap[t * rank + d] = rem % kernel[d] * win.dilations[d];
      rem /= kernel[d];
    }
  dispatch_no_bool(x.dtype(), kFloatTypes | dtype_bit(DType::Int32), "Conv", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* pw = w.data<T>();
    const T* pb = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
    T* py = y.data<T>();
    for (int64_t m = 0; m < batch * filters; ++m)
      std::fill(py + m * out_plane, py + (m + 1) * out_plane, pb ? pb[m % filters] : T{0});
    std::vector<int64_t> origin;  // per chunk column and dimension: window origin
    std::vector<T> packed;
    for (int64_t j0 = 0; j0 < out_plane; j0 += kConvChunk) {
      const int64_t cols = std::min(kConvChunk, out_plane - j0);
      origin.resize(static_cast<size_t>(cols) * rank);
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t d = static_cast<int64_t>(rank) - 1, rem = j0 + j; d >= 0; --d) {
          origin[j * rank + d] = rem % win.out[d] * win.strides[d] - win.pad_begin[d];
          rem /= win.out[d];
        }
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t g = 0; g < group; ++g) {
          const int64_t panels = (cols + kPanel - 1) / kPanel;
          packed.assign(static_cast<size_t>(panels * depth * kPanel), T{0});
          for (int64_t c = 0; c < cg; ++c) {
            const T* src = px + (n * channels + g * cg + c) * in_plane;
            for (int64_t t = 0; t < kernel_volume; ++t) {
              const int64_t p = c * kernel_volume + t;
              for (int64_t j = 0; j < cols; ++j) {
                int64_t offset = 0;
                bool inside = true;
                for (size_t d = 0; d < rank; ++d) {
                  const int64_t i = origin[j * rank + d] + tap[t * rank + d];
                  inside &= i >= 0 && i < win.in[d];
                  offset += i * in_strides[d];
                }
                if (inside) packed[((j / kPanel) * depth + p) * kPanel + j % kPanel] = src[offset];
              }
            }
          }
          gemm_packed(mg, cols, depth, pw + g * mg * depth, depth, int64_t{1}, packed.data(),
                      py + (n * filters + g * mg) * out_plane + j0, out_plane);
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------
// ConvTranspose scatters: input position i meets output position
// o = i * stride + k * dilation - pad for each kernel offset k. The plan below
// resolves once per node which rows (all spatial dimensions but the last)
// meet for each kernel offset, and along the last dimension the range of i
// whose o is in bounds, so the innermost loop is a plain bounds-free run.
struct RowPlan {
  int64_t kernel_last = 1;  // kernel extent along the last spatial dimension
  int64_t stride = 1;       // stride along the last spatial dimension
  // Per kernel offset over the outer spatial dimensions: (input row start, output row start).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> rows;
  // Per kernel offset along the last dimension: i in [lo, hi) meets o = i * stride + off.
  std::vector<int64_t> lo, hi, off;
};

RowPlan plan_rows(const Window& w) {
  const Shape &a = w.in, &b = w.out;
  const size_t n = a.size(), last = n - 1;
  const std::vector<int64_t> a_strides = shape_strides(a), b_strides = shape_strides(b);
  RowPlan plan;
  plan.kernel_last = w.kernel[last];
  plan.stride = w.strides[last];
  const int64_t kernel_outer = dims_product(w.kernel, 0, last), a_outer = dims_product(a, 0, last);
  plan.rows.resize(static_cast<size_t>(kernel_outer));
  std::vector<int64_t> k(last);
  for (int64_t ko = 0; ko < kernel_outer; ++ko) {
    for (int64_t d = static_cast<int64_t>(last) - 1, rem = ko; d >= 0; --d) {
      k[d] = rem % w.kernel[d];
      rem /= w.kernel[d];
    }
    for (int64_t ao = 0; ao < a_outer; ++ao) {
      int64_t a_off = 0, b_off = 0;
      bool inside = true;
      for (int64_t d = static_cast<int64_t>(last) - 1, rem = ao; d >= 0 && inside; --d) {
        int64_t ad = rem % a[d];
        rem /= a[d];
        int64_t bd = ad * w.strides[d] + k[d] * w.dilations[d] - w.pad_begin[d];
        inside = bd >= 0 && bd < b[d];
        a_off += ad * a_strides[d];
        b_off += bd * b_strides[d];
      }
      if (inside) plan.rows[static_cast<size_t>(ko)].emplace_back(a_off, b_off);
    }
  }
  for (int64_t kl = 0; kl < plan.kernel_last; ++kl) {
    int64_t off = kl * w.dilations[last] - w.pad_begin[last];
    int64_t lo = std::max<int64_t>(0, ceildiv(-off, plan.stride));
    int64_t hi = std::min(a[last], floordiv(b[last] - 1 - off, plan.stride) + 1);
    plan.lo.push_back(lo);
    plan.hi.push_back(std::max(lo, hi));
    plan.off.push_back(off);
  }
  return plan;
}

// Scatters wp[k] * (input plane src) into the output plane dst for every kernel offset k.
template <typename T>
void scatter_plane(const RowPlan& plan, const T* wp, T* dst, const T* src) {
  const int64_t s = plan.stride;
  for (size_t ko = 0; ko < plan.rows.size(); ++ko) {
    for (int64_t kl = 0; kl < plan.kernel_last; ++kl) {
      const T wv = wp[static_cast<int64_t>(ko) * plan.kernel_last + kl];
      const int64_t lo = plan.lo[kl], hi = plan.hi[kl], off = plan.off[kl];
      for (const auto& [in_row, out_row] : plan.rows[ko]) {
        T* __restrict o = dst + out_row + off;
        const T* __restrict i = src + in_row;
        for (int64_t e = lo; e < hi; ++e) o[e * s] += wv * i[e];
      }
    }
  }
}

// ConvTranspose's window; conv_transpose_pad_begin places its padding.
Window make_transpose_window(const Attributes& attrs, const Shape& x, const Shape& y,
                             const Shape& kernel) {
  const size_t n = x.size() - 2;
  Window w;
  w.in.assign(x.begin() + 2, x.end());
  w.out.assign(y.begin() + 2, y.end());
  w.kernel = kernel;
  w.strides = spatial_ints(attrs, "strides", n, 1);
  w.dilations = spatial_ints(attrs, "dilations", n, 1);
  w.pad_begin = conv_transpose_pad_begin(attrs, x, y, kernel);
  w.pad_end.assign(n, 0);  // unused: the output extent bounds the scatter
  return w;
}

void conv_transpose(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const Shape kernel(w.shape().begin() + 2, w.shape().end());
  const Window win = make_transpose_window(ctx.attrs(), x.shape(), y.shape(), kernel);
  const RowPlan plan = plan_rows(win);
  const int64_t batch = x.shape()[0], channels = x.shape()[1], filters = y.shape()[1];
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t cg = channels / group, mg = filters / group;
  const int64_t in_plane = shape_numel(win.in), out_plane = shape_numel(win.out);
  const int64_t kernel_volume = shape_numel(kernel);
  dispatch(x.dtype(), kFloatTypes, "ConvTranspose", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* pw = w.data<T>();
    const T* pb = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
    T* py = y.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t m = 0; m < filters; ++m) {
        T* dst = py + (n * filters + m) * out_plane;
        std::fill(dst, dst + out_plane, pb ? pb[m] : T{0});
      }
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t g = c / cg;
        const T* src = px + (n * channels + c) * in_plane;
        for (int64_t m = 0; m < mg; ++m) {
          T* dst = py + (n * filters + g * mg + m) * out_plane;
          scatter_plane(plan, pw + (c * mg + m) * kernel_volume, dst, src);
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------
// Pools. Per spatial dimension and output position, the input coordinates the
// window covers (padding skipped) and, for count_include_pad, how many window
// taps fall inside the padded extent.
struct Taps {
  std::vector<std::vector<int64_t>> coords;  // [output position] -> input coordinates
  std::vector<int64_t> padded_count;         // [output position]
};

std::vector<Taps> window_taps(const Window& w) {
  std::vector<Taps> taps(w.in.size());
  for (size_t d = 0; d < w.in.size(); ++d) {
    taps[d].coords.resize(static_cast<size_t>(w.out[d]));
    taps[d].padded_count.resize(static_cast<size_t>(w.out[d]));
    for (int64_t o = 0; o < w.out[d]; ++o) {
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        int64_t i = o * w.strides[d] + k * w.dilations[d] - w.pad_begin[d];
        if (i >= 0 && i < w.in[d]) taps[d].coords[o].push_back(i);
        // Like PyTorch, ceil-mode windows running past the end padding do not
        // count the overhang.
        if (i < w.in[d] + w.pad_end[d]) ++taps[d].padded_count[o];
      }
    }
  }
  return taps;
}

// Calls f(output offset, taps of every dimension at that output position) for
// every output position of one plane.
template <typename F>
void for_each_output(const Window& w, const std::vector<Taps>& taps, F&& f) {
  const size_t n = w.out.size();
  std::vector<int64_t> o(n, 0);
  std::vector<const std::vector<int64_t>*> at(n);
  for (int64_t i = 0, total = shape_numel(w.out); i < total; ++i) {
    for (size_t d = 0; d < n; ++d) at[d] = &taps[d].coords[static_cast<size_t>(o[d])];
    f(i, o, at);
    for (size_t d = n; d-- > 0;) {
      if (++o[d] < w.out[d]) break;
      o[d] = 0;
    }
  }
}

// Calls f(row-major offset, column-major offset) of every input tap of a window.
template <typename F>
void for_each_tap(const std::vector<const std::vector<int64_t>*>& at,
                  const std::vector<int64_t>& row_strides, const std::vector<int64_t>& col_strides,
                  F&& f) {
  const size_t n = at.size();
  for (size_t d = 0; d < n; ++d)
    if (at[d]->empty()) return;
  std::vector<size_t> idx(n, 0);
  while (true) {
    int64_t row = 0, col = 0;
    for (size_t d = 0; d < n; ++d) {
      row += (*at[d])[idx[d]] * row_strides[d];
      col += (*at[d])[idx[d]] * col_strides[d];
    }
    f(row, col);
    size_t d = n;
    while (d-- > 0) {
      if (++idx[d] < at[d]->size()) break;
      idx[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

std::vector<int64_t> column_major_strides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t d = 1; d < s.size(); ++d) strides[d] = strides[d - 1] * s[d - 1];
  return strides;
}

void max_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const Shape kernel = ctx.attrs().get_ints("kernel_shape");
  const Window win = make_window(ctx.attrs(), x.shape(), y.shape(), kernel);
  const std::vector<Taps> taps = window_taps(win);
  const std::vector<int64_t> row_strides = shape_strides(win.in);
  const std::vector<int64_t> col_strides = column_major_strides(win.in);
  const bool column_major = ctx.attrs().get_int("storage_order", 0) != 0;
  const bool want_indices = has_output(ctx, 1);
  int64_t* indices = want_indices ? ctx.output(1).data<int64_t>() : nullptr;
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t in_plane = shape_numel(win.in), out_plane = shape_numel(win.out);
  dispatch(x.dtype(), kMaxPoolTypes, "MaxPool", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t p = 0; p < planes; ++p) {
      const T* src = x.data<T>() + p * in_plane;
      T* dst = y.data<T>() + p * out_plane;
      for_each_output(win, taps, [&](int64_t i, const auto&, const auto& at) {
        T best = std::numeric_limits<T>::lowest();
        int64_t best_index = -1;
        for_each_tap(at, row_strides, col_strides, [&](int64_t row, int64_t col) {
          // The first maximum wins, as in ONNX's reference and PyTorch.
          if (best_index < 0 || src[row] > best) {
            best = src[row];
            best_index = column_major ? col : row;
          }
        });
        dst[i] = best;
        if (indices) indices[p * out_plane + i] = p * in_plane + std::max<int64_t>(best_index, 0);
      });
    }
  });
}

void average_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const Shape kernel = ctx.attrs().get_ints("kernel_shape");
  const Window win = make_window(ctx.attrs(), x.shape(), y.shape(), kernel);
  const std::vector<Taps> taps = window_taps(win);
  const std::vector<int64_t> row_strides = shape_strides(win.in);
  const bool include_pad = ctx.attrs().get_int("count_include_pad", 0) != 0;
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t in_plane = shape_numel(win.in), out_plane = shape_numel(win.out);
  dispatch(x.dtype(), kFloatTypes, "AveragePool", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t p = 0; p < planes; ++p) {
      const T* src = x.data<T>() + p * in_plane;
      T* dst = y.data<T>() + p * out_plane;
      for_each_output(win, taps, [&](int64_t i, const auto& o, const auto& at) {
        T sum = 0;
        int64_t count = 0;
        for_each_tap(at, row_strides, row_strides, [&](int64_t row, int64_t) {
          sum += src[row];
          ++count;
        });
        if (include_pad) {
          count = 1;
          for (size_t d = 0; d < o.size(); ++d)
            count *= taps[d].padded_count[static_cast<size_t>(o[d])];
        }
        dst[i] = count > 0 ? sum / static_cast<T>(count) : T{0};
      });
    }
  });
}

template <bool kMax>
void global_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t plane = dims_product(x.shape(), 2, x.shape().size());
  dispatch(x.dtype(), kFloatTypes, kMax ? "GlobalMaxPool" : "GlobalAveragePool", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t p = 0; p < planes; ++p) {
      const T* src = x.data<T>() + p * plane;
      if constexpr (kMax) {
        y.data<T>()[p] = *std::max_element(src, src + plane);
      } else {
        double sum = 0;
        for (int64_t i = 0; i < plane; ++i) sum += src[i];
        y.data<T>()[p] = static_cast<T>(sum / static_cast<double>(plane));
      }
    }
  });
}

// ---------------------------------------------------------------------------
// Normalizations. Statistics accumulate in double: these kernels are the
// oracle, and float sums over large planes drift.

// N x C x D1 x ... as batch x channels x planes of D1 x ... elements.
struct ChannelPlanes {
  int64_t batch, channels, plane;
};
ChannelPlanes channel_planes(const Tensor& x) {
  return {x.shape()[0], x.shape()[1], dims_product(x.shape(), 2, x.shape().size())};
}

void batch_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const double epsilon = ctx.attrs().get_float("epsilon", 1e-5f);
  const auto [batch, channels, plane] = channel_planes(x);
  dispatch(x.dtype(), kFloatTypes, "BatchNormalization", [&](auto tag) {
    using T = decltype(tag);
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.input(2).data<T>();
    const T* mean = ctx.input(3).data<T>();
    const T* var = ctx.input(4).data<T>();
    for (int64_t c = 0; c < channels; ++c) {
      // y = (x - mean) / sqrt(var + eps) * scale + bias, as one multiply-add.
      const double a = scale[c] / std::sqrt(static_cast<double>(var[c]) + epsilon);
      const T mul = static_cast<T>(a), add = static_cast<T>(bias[c] - mean[c] * a);
      for (int64_t n = 0; n < batch; ++n) {
        const T* src = x.data<T>() + (n * channels + c) * plane;
        T* dst = y.data<T>() + (n * channels + c) * plane;
        for (int64_t i = 0; i < plane; ++i) dst[i] = src[i] * mul + add;
      }
    }
  });
}

// Mean and 1 / sqrt(variance + epsilon) of n values (population variance).
template <typename T>
std::pair<double, double> moments(const T* src, int64_t n, int64_t stride, double epsilon) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += src[i * stride];
  const double mean = sum / static_cast<double>(n);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = src[i * stride] - mean;
    sq += d * d;
  }
  return {mean, 1.0 / std::sqrt(sq / static_cast<double>(n) + epsilon)};
}

void instance_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const double epsilon = ctx.attrs().get_float("epsilon", 1e-5f);
  const auto [batch, channels, plane] = channel_planes(x);
  dispatch(x.dtype(), kFloatTypes, "InstanceNormalization", [&](auto tag) {
    using T = decltype(tag);
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.input(2).data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const T* src = x.data<T>() + (n * channels + c) * plane;
        T* dst = y.data<T>() + (n * channels + c) * plane;
        const auto [mean, inv] = moments(src, plane, 1, epsilon);
        for (int64_t i = 0; i < plane; ++i)
          dst[i] = static_cast<T>((src[i] - mean) * inv * scale[c] + bias[c]);
      }
    }
  });
}

// LayerNormalization's statistics have the stash type, which need not be X's.
void store_stat(Tensor* out, int64_t i, double value) {
  if (!out) return;
  dispatch(out->dtype(), kFloatTypes, "LayerNormalization", [&](auto tag) {
    using S = decltype(tag);
    out->data<S>()[i] = static_cast<S>(value);
  });
}

void layer_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const double epsilon = ctx.attrs().get_float("epsilon", 1e-5f);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  const Shape normalized(x.shape().begin() + axis, x.shape().end());
  const int64_t rows = dims_product(x.shape(), 0, static_cast<size_t>(axis));
  const int64_t cols = shape_numel(normalized);
  // Scale and bias broadcast over the normalized dimensions: one offset per column.
  auto column_offsets = [&](const Tensor& t) {
    std::vector<int64_t> offsets(static_cast<size_t>(cols));
    std::array<std::vector<int64_t>, 1> strides = {broadcast_strides(t.shape(), normalized)};
    for_each_broadcast(normalized, strides, [&](int64_t i, const std::array<int64_t, 1>& off) {
      offsets[static_cast<size_t>(i)] = off[0];
    });
    return offsets;
  };
  const std::vector<int64_t> scale_at = column_offsets(ctx.input(1));
  const std::vector<int64_t> bias_at =
      ctx.has_input(2) ? column_offsets(ctx.input(2)) : std::vector<int64_t>();
  Tensor* mean_out = has_output(ctx, 1) ? &ctx.output(1) : nullptr;
  Tensor* inv_out = has_output(ctx, 2) ? &ctx.output(2) : nullptr;
  dispatch(x.dtype(), kFloatTypes, "LayerNormalization", [&](auto tag) {
    using T = decltype(tag);
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      const T* src = x.data<T>() + r * cols;
      T* dst = y.data<T>() + r * cols;
      const auto [mean, inv] = moments(src, cols, 1, epsilon);
      for (int64_t j = 0; j < cols; ++j) {
        double v = (src[j] - mean) * inv * scale[scale_at[j]];
        if (bias) v += bias[bias_at[j]];
        dst[j] = static_cast<T>(v);
      }
      store_stat(mean_out, r, mean);
      store_stat(inv_out, r, inv);
    }
  });
}

void lrn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const int64_t size = ctx.attrs().get_int("size", 1);
  const double alpha = ctx.attrs().get_float("alpha", 1e-4f);
  const double beta = ctx.attrs().get_float("beta", 0.75f);
  const double bias = ctx.attrs().get_float("bias", 1.0f);
  const int64_t batch = x.shape()[0], channels = x.shape()[1];
  const int64_t plane = dims_product(x.shape(), 2, x.shape().size());
  // The window spans channels [c - floor((size-1)/2), c + ceil((size-1)/2)].
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  dispatch(x.dtype(), kFloatTypes, "LRN", [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = y.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t lo = std::max<int64_t>(0, c - before);
        const int64_t hi = std::min(channels - 1, c + after);
        for (int64_t i = 0; i < plane; ++i) {
          double sq = 0;
          for (int64_t k = lo; k <= hi; ++k) {
            const double v = src[(n * channels + k) * plane + i];
            sq += v * v;
          }
          const int64_t at = (n * channels + c) * plane + i;
          dst[at] = static_cast<T>(src[at] / std::pow(bias + alpha / size * sq, beta));
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------
// Gemm and MatMul, on the packed matrix product above. Outputs are cleared
// first: gemm_packed accumulates.

void gemm(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& y = ctx.output(0);
  const bool trans_a = ctx.attrs().get_int("transA", 0) != 0;
  const bool trans_b = ctx.attrs().get_int("transB", 0) != 0;
  const double alpha = ctx.attrs().get_float("alpha", 1.0f);
  const double beta = ctx.attrs().get_float("beta", 1.0f);
  const int64_t m = y.shape()[0], n = y.shape()[1];
  const int64_t k = a.shape()[trans_a ? 0 : 1];
  dispatch_no_bool(a.dtype(), kGemmTypes, "Gemm", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = y.data<T>();
    const int64_t a_row = trans_a ? 1 : k, a_col = trans_a ? m : 1;
    std::fill(py, py + y.numel(), T{0});
    std::vector<T> packed;
    pack_panels(pb, trans_b ? 1 : n, trans_b ? k : 1, k, n, packed);
    gemm_packed(m, n, k, pa, a_row, a_col, packed.data(), py, n);
    // Scale in the element type for floats (as a fused kernel would), in
    // double for integers so alpha and beta are not truncated first.
    const T* pc = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
    std::array<std::vector<int64_t>, 1> c_strides;
    if (pc) c_strides[0] = broadcast_strides(ctx.input(2).shape(), y.shape());
    if (alpha == 1.0 && (!pc || beta == 0.0)) return;
    if (!pc) c_strides[0].assign(2, 0);
    for_each_broadcast(y.shape(), c_strides, [&](int64_t i, const std::array<int64_t, 1>& off) {
      const T c = pc && beta != 0.0 ? pc[off[0]] : T{0};
      if constexpr (std::is_floating_point_v<T>)
        py[i] = static_cast<T>(alpha) * py[i] + static_cast<T>(beta) * c;
      else
        py[i] = static_cast<T>(alpha * static_cast<double>(py[i]) + beta * static_cast<double>(c));
    });
  });
}

void matmul(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& y = ctx.output(0);
  // NumPy semantics: promote 1-D operands to matrices, broadcast the batch.
  Shape sa = a.shape(), sb = b.shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  const Shape batch = broadcast_shapes(batch_a, batch_b);
  std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(batch_a, batch),
                                                 broadcast_strides(batch_b, batch)};
  dispatch_no_bool(a.dtype(), kGemmTypes, "MatMul", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = y.data<T>();
    std::fill(py, py + y.numel(), T{0});
    std::vector<T> packed;
    const T* last_b = nullptr;
    for_each_broadcast(batch, strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
      const T* b_mat = pb + off[1] * k * n;
      // A B broadcast across the batch is packed once.
      if (b_mat != last_b) pack_panels(b_mat, n, int64_t{1}, k, n, packed);
      last_b = b_mat;
      gemm_packed(m, n, k, pa + off[0] * m * k, k, int64_t{1}, packed.data(), py + i * m * n, n);
    });
  });
}

// ---------------------------------------------------------------------------

template <bool kLog>
void softmax(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  const int64_t outer = dims_product(x.shape(), 0, static_cast<size_t>(axis));
  const int64_t len = x.shape()[axis];
  const int64_t inner = dims_product(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());
  dispatch(x.dtype(), kFloatTypes, kLog ? "LogSoftmax" : "Softmax", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const T* src = x.data<T>() + o * len * inner + in;
        T* dst = y.data<T>() + o * len * inner + in;
        // Subtracting the maximum keeps exp from overflowing.
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < len; ++i) mx = std::max<double>(mx, src[i * inner]);
        double sum = 0;
        for (int64_t i = 0; i < len; ++i) sum += std::exp(src[i * inner] - mx);
        const double log_sum = std::log(sum);
        for (int64_t i = 0; i < len; ++i) {
          const double shifted = src[i * inner] - mx;
          dst[i * inner] = static_cast<T>(kLog ? shifted - log_sum : std::exp(shifted) / sum);
        }
      }
    }
  });
}

void prelu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& slope = ctx.input(1);
  Tensor& y = ctx.output(0);
  dispatch(x.dtype(), kGemmTypes, "PRelu", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* ps = slope.data<T>();
    T* py = y.data<T>();
    std::array<std::vector<int64_t>, 1> strides = {broadcast_strides(slope.shape(), x.shape())};
    for_each_broadcast(x.shape(), strides, [&](int64_t i, const std::array<int64_t, 1>& off) {
      if constexpr (std::is_unsigned_v<T>)
        py[i] = px[i];  // never negative
      else
        py[i] = px[i] < T{0} ? static_cast<T>(ps[off[0]] * px[i]) : px[i];
    });
  });
}

// Col2Im adds each column element into the image position its block offset
// and block position select; positions in the padding are dropped.
void col2im(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const Col2ImGeometry g =
      col2im_geometry(ctx.attrs(), ctx.input(1).to_int64_vector(), ctx.input(2).to_int64_vector());
  const size_t n = g.image.size();
  const int64_t planes = y.shape()[0] * y.shape()[1];
  int64_t image_size = 1;
  for (int64_t e : g.image) image_size *= e;
  std::vector<double> sum(static_cast<size_t>(planes * image_size), 0.0);
  std::vector<int64_t> offset(n), position(n);
  dispatch(x.dtype(), kNumericTypes, "Col2Im", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    for (int64_t plane = 0; plane < planes; ++plane)
      for (int64_t k = 0; k < g.block_size; ++k) {
        for (size_t d = n, rest = static_cast<size_t>(k); d-- > 0;) {
          offset[d] = static_cast<int64_t>(rest) % g.block[d];
          rest /= static_cast<size_t>(g.block[d]);
        }
        for (int64_t l = 0; l < g.positions; ++l) {
          int64_t at = 0, rest = l;
          bool inside = true;
          for (size_t d = n; d-- > 0;) {
            position[d] = rest % g.blocks[d];
            rest /= g.blocks[d];
          }
          for (size_t d = 0; d < n; ++d) {
            const int64_t p =
                position[d] * g.strides[d] + offset[d] * g.dilations[d] - g.pad_begin[d];
            inside = inside && p >= 0 && p < g.image[d];
            at = at * g.image[d] + p;
          }
          if (inside)
            sum[static_cast<size_t>(plane * image_size + at)] +=
                static_cast<double>(in[(plane * g.block_size + k) * g.positions + l]);
        }
      }
    T* out = y.data<T>();
    for (size_t i = 0; i < sum.size(); ++i) out[i] = static_cast<T>(sum[i]);
  });
}

}  // namespace

void register_nn_kernels(OpRegistry& r) {
  r.find_mutable("Conv")->kernel = conv;
  r.find_mutable("ConvTranspose")->kernel = conv_transpose;
  r.find_mutable("Gemm")->kernel = gemm;
  r.find_mutable("MatMul")->kernel = matmul;
  r.find_mutable("MaxPool")->kernel = run_in_nchw<max_pool>;
  r.find_mutable("AveragePool")->kernel = run_in_nchw<average_pool>;
  r.find_mutable("GlobalAveragePool")->kernel = run_in_nchw<global_pool<false>>;
  r.find_mutable("GlobalMaxPool")->kernel = run_in_nchw<global_pool<true>>;
  r.find_mutable("BatchNormalization")->kernel = batch_norm;
  r.find_mutable("InstanceNormalization")->kernel = instance_norm;
  r.find_mutable("LayerNormalization")->kernel = layer_norm;
  r.find_mutable("Softmax")->kernel = softmax<false>;
  r.find_mutable("LogSoftmax")->kernel = softmax<true>;
  r.find_mutable("PRelu")->kernel = prelu;
  r.find_mutable("LRN")->kernel = lrn;
  r.find_mutable("Col2Im")->kernel = col2im;
}

}  // namespace lathe::reference
