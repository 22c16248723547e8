// Reference kernels for the indexing ops: element and N-D gathers and scatters,
// OneHot, Trilu, EyeLike, TopK, CumSum, Hardmax and MeanVarianceNormalization.
// Data movement copies raw elements, so it serves every dtype, and every index
// is range-checked before it is used: a bad index is an Error, never a stray read.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>

#include "ir/ops/infer_util.h"
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

#define LATHE_NUMERIC_TYPES \
  float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

// An index into an axis of size n; negative indices count from the back.
int64_t wrap_index(int64_t k, int64_t n, size_t axis) {
  LATHE_CHECK(k >= -n && k < n, "index ", k, " is out of range for axis ", axis, " of size ", n);
  return k < 0 ? k + n : k;
}

// Steps a row-major multi-index over `shape`.
void next_index(std::vector<int64_t>& index, const Shape& shape) {
  for (size_t d = index.size(); d-- > 0;) {
    if (++index[d] < shape[d]) return;
    index[d] = 0;
  }
}

bool has_output(const KernelContext& ctx, size_t i) {
  return i < ctx.num_outputs() && ctx.node().outputs[i] != kNoValue;
}

// Splits a shape around `axis` into (outer, n, inner) for loops along the axis.
struct AxisLoop {
  int64_t outer, n, inner;
};
AxisLoop around_axis(const Shape& s, int axis) {
  size_t a = static_cast<size_t>(axis);
  return {dims_product(s, 0, a), s[a], dims_product(s, a + 1, s.size())};
}

// ---- Gathers and scatters -------------------------------------------------
// Both are phrased as lists of element offsets into `data`: a gather copies a
// block of `block` elements from each offset into consecutive output blocks, a
// scatter writes (or reduces) consecutive update blocks at each offset.

// The offset into data of each element of GatherElements/ScatterElements'
// indices: its own position, with the index value along `axis`.
std::vector<int64_t> element_offsets(const Shape& data, const Tensor& indices, int axis) {
  const Shape& is = indices.shape();
  LATHE_CHECK(is.size() == data.size(), "indices ", shape_to_string(is),
              " must have the rank of data ", shape_to_string(data));
  size_t a = static_cast<size_t>(axis);
  for (size_t d = 0; d < is.size(); ++d)
    LATHE_CHECK(d == a || is[d] <= data[d], "indices ", shape_to_string(is), " exceed data ",
                shape_to_string(data), " in dimension ", d);
  std::vector<int64_t> idx = indices.to_int64_vector();
  std::vector<int64_t> strides = shape_strides(data);
  std::vector<int64_t> pos(is.size(), 0);
  std::vector<int64_t> offsets(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      off += (d == a ? wrap_index(idx[i], data[d], d) : pos[d]) * strides[d];
    offsets[i] = off;
    next_index(pos, is);
  }
  return offsets;
}

// The offset into data of the slice that each index tuple of GatherND/ScatterND
// selects. Tuples run over indices.shape[:-1]; each has m = indices.shape[-1]
// entries for data dimensions [b, b + m), b being the batch dimensions, which
// indices and data share.
std::vector<int64_t> nd_offsets(const Shape& data, const Tensor& indices, int64_t b) {
  const Shape& is = indices.shape();
  LATHE_CHECK(!is.empty(), "indices must have rank >= 1");
  const size_t bs = static_cast<size_t>(b);
  const int64_t m = is.back();
  LATHE_CHECK(b >= 0 && bs < is.size() && m >= 0 && bs + static_cast<size_t>(m) <= data.size(),
              "indices ", shape_to_string(is), " do not fit data ", shape_to_string(data),
              " with batch_dims ", b);
  for (size_t d = 0; d < bs; ++d)
    LATHE_CHECK(is[d] == data[d], "batch dimension ", d, " differs between data ",
                shape_to_string(data), " and indices ", shape_to_string(is));
  std::vector<int64_t> idx = indices.to_int64_vector();
  std::vector<int64_t> strides = shape_strides(data);
  const int64_t tuples = dims_product(is, 0, is.size() - 1);
  const int64_t batches = dims_product(is, 0, bs);
  const int64_t per_batch = batches == 0 ? 0 : tuples / batches;
  const int64_t batch_size = dims_product(data, bs, data.size());
  std::vector<int64_t> offsets(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = (t / per_batch) * batch_size;
    for (int64_t j = 0; j < m; ++j) {
      size_t d = bs + static_cast<size_t>(j);
      off += wrap_index(idx[static_cast<size_t>(t * m + j)], data[d], d) * strides[d];
    }
    offsets[static_cast<size_t>(t)] = off;
  }
  return offsets;
}

void gather_blocks(const Tensor& data, Tensor& out, const std::vector<int64_t>& offsets,
                   int64_t block) {
  LATHE_CHECK(
      data.dtype() == out.dtype() && static_cast<int64_t>(offsets.size()) * block == out.numel(),
      "internal: output ", out.type().to_string(), " does not match ", offsets.size(),
      " blocks of ", block);
  const size_t elem = dtype_size(data.dtype());
  const size_t bytes = static_cast<size_t>(block) * elem;
  const auto* in = static_cast<const std::byte*>(data.raw());
  auto* po = static_cast<std::byte*>(out.raw());
  for (size_t i = 0; i < offsets.size() && bytes; ++i)
    std::memcpy(po + i * bytes, in + static_cast<size_t>(offsets[i]) * elem, bytes);
}

enum class Reduction { None, Add, Mul, Max, Min };

Reduction reduction_of(const Attributes& a) {
  std::string r = a.get_string("reduction", "none");
  if (r == "none") return Reduction::None;
  if (r == "add") return Reduction::Add;
  if (r == "mul") return Reduction::Mul;
  if (r == "max") return Reduction::Max;
  if (r == "min") return Reduction::Min;
  fail(str("unknown reduction '", r, "'"));
}

// Output = data, then update block i goes to offsets[i], in order (so with
// duplicate offsets and no reduction, the last update wins).
void scatter_blocks(KernelContext& ctx, const std::vector<int64_t>& offsets, int64_t block) {
  const Tensor& data = ctx.input(0);
  const Tensor& updates = ctx.input(2);
  Tensor& y = ctx.output(0);
  LATHE_CHECK(updates.dtype() == data.dtype() && y.type() == data.type() &&
                  static_cast<int64_t>(offsets.size()) * block == updates.numel(),
              "updates ", updates.type().to_string(), " do not match ", offsets.size(),
              " blocks of ", block, " of data ", data.type().to_string());
  if (data.nbytes()) std::memcpy(y.raw(), data.raw(), data.nbytes());
  Reduction r = reduction_of(ctx.attrs());
  if (r == Reduction::None) {
    const size_t elem = dtype_size(data.dtype());
    const size_t bytes = static_cast<size_t>(block) * elem;
    const auto* pu = static_cast<const std::byte*>(updates.raw());
    auto* po = static_cast<std::byte*>(y.raw());
    for (size_t i = 0; i < offsets.size() && bytes; ++i)
      std::memcpy(po + static_cast<size_t>(offsets[i]) * elem, pu + i * bytes, bytes);
    return;
  }
  dispatch_types<LATHE_NUMERIC_TYPES>(y.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* pu = updates.data<T>();
    T* po = y.data<T>();
    for (size_t i = 0; i < offsets.size(); ++i) {
      for (int64_t j = 0; j < block; ++j) {
        T& o = po[offsets[i] + j];
        T u = pu[static_cast<int64_t>(i) * block + j];
        switch (r) {
          case Reduction::Add:
            o = static_cast<T>(o + u);
            break;
          case Reduction::Mul:
            // Unsigned types multiply in uint64_t: uint16_t would promote to a
            // signed int, whose overflow is undefined.
            if constexpr (std::is_unsigned_v<T>)
              o = static_cast<T>(static_cast<uint64_t>(o) * static_cast<uint64_t>(u));
            else
              o = static_cast<T>(o * u);
            break;
          case Reduction::Max:
            o = std::max(o, u);
            break;
          case Reduction::Min:
            o = std::min(o, u);
            break;
          case Reduction::None:
            break;
        }
      }
    }
  });
}

void gather_elements(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  gather_blocks(x, ctx.output(0), element_offsets(x.shape(), ctx.input(1), axis), 1);
}

void scatter_elements(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  scatter_blocks(ctx, element_offsets(x.shape(), ctx.input(1), axis), 1);
}

void gather_nd(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  int64_t b = ctx.attrs().get_int("batch_dims", 0);
  std::vector<int64_t> offsets = nd_offsets(x.shape(), indices, b);
  size_t sliced = static_cast<size_t>(b + indices.shape().back());
  gather_blocks(x, ctx.output(0), offsets, dims_product(x.shape(), sliced, x.shape().size()));
}

void scatter_nd(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  std::vector<int64_t> offsets = nd_offsets(x.shape(), indices, 0);
  size_t sliced = static_cast<size_t>(indices.shape().back());
  scatter_blocks(ctx, offsets, dims_product(x.shape(), sliced, x.shape().size()));
}

// ---- OneHot, Trilu, EyeLike -----------------------------------------------

void one_hot(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(2);
  Tensor& y = ctx.output(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", -1), indices.rank() + 1);
  const int64_t depth = y.shape()[static_cast<size_t>(axis)];
  LATHE_CHECK(values.numel() == 2 && values.dtype() == y.dtype(), "values ",
              values.type().to_string(), " must be [off_value, on_value] of the output's dtype");
  // The class of each index, or -1 where it lies outside [-depth, depth - 1]:
  // such indices give a row of off values, as the spec says. Float indices are
  // truncated, as onnxruntime does.
  std::vector<double> raw = indices.to_double_vector();
  std::vector<int64_t> cls(raw.size(), -1);
  for (size_t i = 0; i < raw.size(); ++i) {
    double t = std::trunc(raw[i]);
    if (!(t >= static_cast<double>(-depth) && t < static_cast<double>(depth))) continue;
    int64_t k = static_cast<int64_t>(t);
    cls[i] = k < 0 ? k + depth : k;
  }
  const int64_t outer = dims_product(indices.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner =
      dims_product(indices.shape(), static_cast<size_t>(axis), indices.shape().size());
  const size_t elem = dtype_size(y.dtype());
  const auto* off = static_cast<const std::byte*>(values.raw());
  const auto* on = off + elem;
  auto* po = static_cast<std::byte*>(y.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < depth; ++c)
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(po + static_cast<size_t>((o * depth + c) * inner + i) * elem,
                    cls[static_cast<size_t>(o * inner + i)] == c ? on : off, elem);
}

void trilu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  LATHE_CHECK(x.rank() >= 2 && x.type() == y.type(), "input ", x.type().to_string(),
              " must have rank >= 2 and match output ", y.type().to_string());
  const bool upper = ctx.attrs().get_int("upper", 1) != 0;
  int64_t k = 0;
  if (ctx.has_input(1)) {
    LATHE_CHECK(ctx.input(1).numel() == 1, "k must be a scalar");
    k = ctx.input(1).to_int64_vector()[0];
  }
  const size_t r = x.shape().size();
  const int64_t rows = x.shape()[r - 2], cols = x.shape()[r - 1];
  const int64_t matrices = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  const size_t elem = dtype_size(x.dtype());
  const auto* pi = static_cast<const std::byte*>(x.raw());
  auto* po = static_cast<std::byte*>(y.raw());
  // All-zero bytes are 0, 0.0 and false alike, so the dropped part is memset.
  if (y.nbytes()) std::memset(po, 0, y.nbytes());
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        // Diagonal k holds the elements with j - i == k.
        bool keep = upper ? j - i >= k : j - i <= k;
        size_t at = static_cast<size_t>((m * rows + i) * cols + j) * elem;
        if (keep) std::memcpy(po + at, pi + at, elem);
      }
}

void eye_like(KernelContext& ctx) {
  Tensor& y = ctx.output(0);
  LATHE_CHECK(y.rank() == 2, "output must be 2-D, got ", y.type().to_string());
  const int64_t k = ctx.attrs().get_int("k", 0);
  const int64_t rows = y.shape()[0], cols = y.shape()[1];
  if (y.nbytes()) std::memset(y.raw(), 0, y.nbytes());
  visit_dtype(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = y.data<T>();
    // Row i has its one at column i + k when that lies in [0, cols); the
    // comparison is written on k so that a huge k cannot overflow.
    for (int64_t i = 0; i < rows; ++i)
      if (k >= -i && k < cols - i) p[i * cols + i + k] = static_cast<T>(1);
  });
}

// ---- TopK, CumSum, Hardmax, MeanVarianceNormalization ---------------------

void top_k(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& values = ctx.output(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  const AxisLoop l = around_axis(x.shape(), axis);
  const int64_t k = values.shape()[static_cast<size_t>(axis)];
  LATHE_CHECK(ctx.input(1).numel() == 1 && ctx.input(1).to_int64_vector()[0] == k, "K ",
              ctx.input(1).type().to_string(), " does not match the output ",
              values.type().to_string());
  LATHE_CHECK(k <= l.n, "K = ", k, " exceeds dimension ", axis, " of size ", l.n);
  const bool largest = ctx.attrs().get_int("largest", 1) != 0;
  // sorted = 0 leaves the order unspecified, so sorted output serves it too.
  int64_t* pidx = has_output(ctx, 1) ? ctx.output(1).data<int64_t>() : nullptr;
  dispatch_types<LATHE_NUMERIC_TYPES>(x.dtype(), "TopK", [&](auto tag) {
    using T = decltype(tag);
    // A strict weak order even with NaN, which ranks above every number as in
    // NumPy's sort (std::sort needs one to be well defined).
    auto above = [](T a, T b) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return !std::isnan(b);
        if (std::isnan(b)) return false;
      }
      return a > b;
    };
    const T* px = x.data<T>();
    T* pv = values.data<T>();
    std::vector<int64_t> order(static_cast<size_t>(l.n));
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i) {
        const T* row = px + o * l.n * l.inner + i;
        std::iota(order.begin(), order.end(), int64_t{0});
        // Stable, so equal values keep the lower index first, as the spec asks.
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          T va = row[a * l.inner], vb = row[b * l.inner];
          return largest ? above(va, vb) : above(vb, va);
        });
        for (int64_t j = 0; j < k; ++j) {
          int64_t at = (o * k + j) * l.inner + i;
          pv[at] = row[order[static_cast<size_t>(j)] * l.inner];
          if (pidx) pidx[at] = order[static_cast<size_t>(j)];
        }
      }
  });
}

void cumsum(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const Tensor& axis_t = ctx.input(1);
  LATHE_CHECK(axis_t.numel() == 1 && is_integer(axis_t.dtype()),
              "axis must be a single integer, got ", axis_t.type().to_string());
  const AxisLoop l = around_axis(x.shape(), normalize_axis(axis_t.to_int64_vector()[0], x.rank()));
  const bool exclusive = ctx.attrs().get_int("exclusive", 0) != 0;
  const bool reverse = ctx.attrs().get_int("reverse", 0) != 0;
  dispatch_types<LATHE_NUMERIC_TYPES>(x.dtype(), "CumSum", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    // Sums in T, as NumPy's cumsum does for the expected outputs.
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i) {
        T acc{};
        for (int64_t s = 0; s < l.n; ++s) {
          int64_t j = reverse ? l.n - 1 - s : s;
          int64_t at = (o * l.n + j) * l.inner + i;
          if (exclusive) py[at] = acc;
          acc = static_cast<T>(acc + px[at]);
          if (!exclusive) py[at] = acc;
        }
      }
  });
}

void hardmax(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const AxisLoop l =
      around_axis(x.shape(), normalize_axis(ctx.attrs().get_int("axis", -1), x.rank()));
  dispatch_types<float, double>(x.dtype(), "Hardmax", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    std::fill_n(py, y.numel(), T{0});
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i) {
        if (l.n == 0) continue;
        const int64_t base = o * l.n * l.inner + i;
        // The first maximum wins, and a NaN counts as one, as in NumPy's argmax.
        int64_t best = 0;
        for (int64_t j = 1; j < l.n && !std::isnan(px[base + best * l.inner]); ++j) {
          T v = px[base + j * l.inner];
          if (std::isnan(v) || v > px[base + best * l.inner]) best = j;
        }
        py[base + best * l.inner] = T{1};
      }
  });
}

void mean_variance_normalization(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const size_t rank = x.shape().size();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : ctx.attrs().get_ints("axes", {0, 2, 3}))
    reduced[static_cast<size_t>(normalize_axis(a, static_cast<int>(rank)))] = true;
  // Elements sharing their index off the reduced axes form one group.
  Shape kept = x.shape();
  for (size_t d = 0; d < rank; ++d)
    if (reduced[d]) kept[d] = 1;
  const std::vector<int64_t> kept_strides = shape_strides(kept);
  const int64_t groups = shape_numel(kept);
  if (x.numel() == 0) return;
  const double count = static_cast<double>(x.numel() / groups);
  std::vector<size_t> group(static_cast<size_t>(x.numel()));
  std::vector<int64_t> pos(rank, 0);
  for (size_t i = 0; i < group.size(); ++i) {
    int64_t g = 0;
    for (size_t d = 0; d < rank; ++d)
      if (!reduced[d]) g += pos[d] * kept_strides[d];
    group[i] = static_cast<size_t>(g);
    next_index(pos, x.shape());
  }
  dispatch_types<float, double>(x.dtype(), "MeanVarianceNormalization", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    std::vector<double> sum(static_cast<size_t>(groups), 0.0), sumsq(sum);
    for (size_t i = 0; i < group.size(); ++i) {
      double v = static_cast<double>(px[i]);
      sum[group[i]] += v;
      sumsq[group[i]] += v * v;
    }
    // The ONNX function: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9). Rounding
    // can push the variance of a constant group just below zero; clamp it so
    // that it does not turn into NaN.
    for (size_t i = 0; i < group.size(); ++i) {
      double mean = sum[group[i]] / count;
      double var = std::max(0.0, sumsq[group[i]] / count - mean * mean);
      py[i] = static_cast<T>((static_cast<double>(px[i]) - mean) / (std::sqrt(var) + 1e-9));
    }
  });
}

}  // namespace

void register_indexing_kernels(OpRegistry& r) {
  r.find_mutable("GatherElements")->kernel = gather_elements;
  r.find_mutable("ScatterElements")->kernel = scatter_elements;
  r.find_mutable("Scatter")->kernel = scatter_elements;
  r.find_mutable("GatherND")->kernel = gather_nd;
  r.find_mutable("ScatterND")->kernel = scatter_nd;
  r.find_mutable("OneHot")->kernel = one_hot;
  r.find_mutable("Trilu")->kernel = trilu;
  r.find_mutable("EyeLike")->kernel = eye_like;
  r.find_mutable("TopK")->kernel = top_k;
  r.find_mutable("CumSum")->kernel = cumsum;
  r.find_mutable("Hardmax")->kernel = hardmax;
  r.find_mutable("MeanVarianceNormalization")->kernel = mean_variance_normalization;
}

}  // namespace lathe::reference
