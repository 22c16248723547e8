// Reference kernels for the shape and data-movement ops. Most of them are one
// strided read of the input (copy_view); the rest loop plainly over the output.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "ir/ops/grid_sample_geometry.h"
#include "ir/ops/infer_util.h"
#include "ir/ops/resize_geometry.h"
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

// out[i] = in[offset + sum_d index_d(i) * strides[d]], i running row-major over
// `view` (whose element count is out's). Transpose, Slice, Expand, Tile and
// DepthToSpace/SpaceToDepth are all such views with suitable strides.
void copy_view(const Tensor& in, Tensor& out, const Shape& view, std::vector<int64_t> strides,
               int64_t offset) {
  LATHE_CHECK(shape_numel(view) == out.numel() && view.size() == strides.size(), "internal: view ",
              shape_to_string(view), " does not match output ", out.type().to_string());
  if (out.numel() == 0) return;
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pi = in.data<T>() + offset;
    T* po = out.data<T>();
    std::array<std::vector<int64_t>, 1> s = {std::move(strides)};
    for_each_broadcast(view, s,
                       [&](int64_t i, const std::array<int64_t, 1>& off) { po[i] = pi[off[0]]; });
  });
}

// Same element order: Identity, Reshape, Flatten, Squeeze, Unsqueeze.
void copy_all(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  LATHE_CHECK(x.nbytes() == y.nbytes() && x.dtype() == y.dtype(), "input ", x.type().to_string(),
              " does not fit output ", y.type().to_string());
  if (x.nbytes()) std::memcpy(y.raw(), x.raw(), x.nbytes());
}

void dropout(KernelContext& ctx) {
  if (ctx.has_input(2) && ctx.input(2).numel() > 0 && ctx.input(2).element_as_double(0) != 0) {
    double ratio = ctx.has_input(1) ? ctx.input(1).element_as_double(0) : 0.5;
    // Training-mode dropout draws random masks, which an oracle cannot match;
    // with ratio 0 it keeps everything, so that case is still exact.
    if (ratio != 0) fail_unsupported("Dropout in training mode (random) is not supported");
  }
  copy_all(ctx);
  if (ctx.num_outputs() > 1) {
    Tensor& mask = ctx.output(1);
    std::fill_n(mask.data<bool>(), mask.numel(), true);
  }
}

void transpose(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  std::vector<int64_t> perm = ctx.attrs().get_ints("perm");
  if (!ctx.attrs().has("perm"))
    for (int d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
  std::vector<int64_t> in_strides = shape_strides(x.shape());
  std::vector<int64_t> strides;
  for (int64_t p : perm)
    strides.push_back(in_strides[static_cast<size_t>(normalize_axis(p, x.rank()))]);
  copy_view(x, y, y.shape(), strides, 0);
}

void concat(KernelContext& ctx) {
  Tensor& y = ctx.output(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), y.rank());
  int64_t outer = dims_product(y.shape(), 0, static_cast<size_t>(axis));
  size_t elem = dtype_size(y.dtype());
  auto* out = static_cast<std::byte*>(y.raw());
  // Row by row of the outer dimensions, each input contributes one block.
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      LATHE_CHECK(x.dtype() == y.dtype(), "input ", i, " has dtype ", dtype_name(x.dtype()));
      size_t block = static_cast<size_t>(
                         dims_product(x.shape(), static_cast<size_t>(axis), x.shape().size())) *
                     elem;
      if (block == 0) continue;
      std::memcpy(out, static_cast<const std::byte*>(x.raw()) + static_cast<size_t>(o) * block,
                  block);
      out += block;
    }
  }
}

void split(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  int64_t outer = dims_product(x.shape(), 0, static_cast<size_t>(axis));
  size_t elem = dtype_size(x.dtype());
  const auto* in = static_cast<const std::byte*>(x.raw());
  // The output shapes, from inference, carry the split sizes.
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& y = ctx.output(i);
      size_t block = static_cast<size_t>(
                         dims_product(y.shape(), static_cast<size_t>(axis), y.shape().size())) *
                     elem;
      if (block == 0) continue;
      std::memcpy(static_cast<std::byte*>(y.raw()) + static_cast<size_t>(o) * block, in, block);
      in += block;
    }
  }
}

// ONNX Slice clamping on one axis (the same rule as in ir/ops/shape.cpp):
// returns the clamped start.
int64_t slice_start(int64_t dim, int64_t start, int64_t step) {
  if (start < 0) start += dim;
  if (step > 0) return std::clamp<int64_t>(start, 0, dim);
  return dim == 0 ? 0 : std::clamp<int64_t>(start, 0, dim - 1);
}

void slice(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  std::vector<int64_t> starts = ctx.input(1).to_int64_vector();
  std::vector<int64_t> axes;
  if (ctx.has_input(3)) {
    axes = ctx.input(3).to_int64_vector();
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(starts.size(), 1);
  if (ctx.has_input(4)) steps = ctx.input(4).to_int64_vector();
  LATHE_CHECK(axes.size() == starts.size() && steps.size() == starts.size(),
              "starts, axes and steps differ in length");
  std::vector<int64_t> in_strides = shape_strides(x.shape());
  std::vector<int64_t> strides = in_strides;
  int64_t offset = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t a = static_cast<size_t>(normalize_axis(axes[i], x.rank()));
    LATHE_CHECK(steps[i] != 0, "step 0");
    // An empty result reads nothing, and its start may lie past the end.
    if (y.shape()[a] == 0) return;
    offset += slice_start(x.shape()[a], starts[i], steps[i]) * in_strides[a];
    strides[a] = in_strides[a] * steps[i];
  }
  copy_view(x, y, y.shape(), strides, offset);
}

void gather(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  std::vector<int64_t> indices = ctx.input(1).to_int64_vector();
  int64_t n = x.shape()[static_cast<size_t>(axis)];
  int64_t outer = dims_product(x.shape(), 0, static_cast<size_t>(axis));
  size_t inner = static_cast<size_t>(
                     dims_product(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size())) *
                 dtype_size(x.dtype());
  const auto* in = static_cast<const std::byte*>(x.raw());
  auto* out = static_cast<std::byte*>(y.raw());
  for (int64_t& k : indices) {
    LATHE_CHECK(k >= -n && k < n, "index ", k, " is out of range for dimension ", axis, " of size ",
                n);
    if (k < 0) k += n;  // negative indices count from the back
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k : indices) {
      if (inner) std::memcpy(out, in + static_cast<size_t>(o * n + k) * inner, inner);
      out += inner;
    }
  }
}

void shape(KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  Tensor& y = ctx.output(0);
  int rank = static_cast<int>(s.size());
  int64_t start = ctx.attrs().get_int("start", 0);
  if (start < 0) start += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  int64_t* out = y.data<int64_t>();
  for (int64_t i = 0; i < y.numel(); ++i) out[i] = s[static_cast<size_t>(start + i)];
}

void size(KernelContext& ctx) {
  ctx.output(0).data<int64_t>()[0] = ctx.input(0).numel();
}

void constant(KernelContext& ctx) {
  const Attributes& a = ctx.attrs();
  Tensor value;
  if (a.has("value")) {
    value = a.get_tensor("value");
  } else if (a.has("value_float")) {
    value = Tensor::scalar<float>(a.get_float("value_float", 0));
  } else if (a.has("value_floats")) {
    std::vector<float> v = a.get_floats("value_floats");
    value = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
  } else if (a.has("value_int")) {
    value = Tensor::scalar<int64_t>(a.get_int("value_int", 0));
  } else if (a.has("value_ints")) {
    std::vector<int64_t> v = a.get_ints("value_ints");
    value = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
  } else {
    fail_unsupported("no supported value attribute");
  }
  Tensor& y = ctx.output(0);
  LATHE_CHECK(value.type() == y.type(), "value ", value.type().to_string(),
              " does not match output ", y.type().to_string());
  if (y.nbytes()) std::memcpy(y.raw(), value.raw(), y.nbytes());
}

void constant_of_shape(KernelContext& ctx) {
  Tensor& y = ctx.output(0);
  Tensor value =
      ctx.attrs().has("value") ? ctx.attrs().get_tensor("value") : Tensor::scalar<float>(0.0f);
  LATHE_CHECK(value.dtype() == y.dtype() && value.numel() == 1, "value ", value.type().to_string(),
              " does not fit output ", y.type().to_string());
  size_t elem = dtype_size(y.dtype());
  auto* out = static_cast<std::byte*>(y.raw());
  for (int64_t i = 0; i < y.numel(); ++i)
    std::memcpy(out + static_cast<size_t>(i) * elem, value.raw(), elem);
}

// Index of the input element that output position `i` (already shifted by the
// leading pad) reads along an axis of size n; -1 means the constant value.
int64_t pad_source(const std::string& mode, int64_t i, int64_t n) {
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, n - 1);
  if (mode == "wrap") return ((i % n) + n) % n;
  // reflect: mirror without repeating the edge, i.e. a triangle wave of period
  // 2(n-1); this also covers pads wider than the axis, as NumPy's pad does.
  if (n == 1) return 0;
  int64_t period = 2 * (n - 1);
  int64_t m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

void pad(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  std::string mode = ctx.attrs().get_string("mode", "constant");
  std::vector<int64_t> pads = ctx.input(1).to_int64_vector();
  std::vector<int64_t> axes;
  if (ctx.has_input(3)) {
    axes = ctx.input(3).to_int64_vector();
  } else {
    for (int d = 0; d < x.rank(); ++d) axes.push_back(d);
  }
  LATHE_CHECK(pads.size() == 2 * axes.size(), "pads does not match the axes");
  std::vector<int64_t> begin(static_cast<size_t>(x.rank()), 0);
  for (size_t i = 0; i < axes.size(); ++i)
    begin[static_cast<size_t>(normalize_axis(axes[i], x.rank()))] = pads[i];
  if (y.numel() == 0) return;
  // Per axis, the source index of every output position (-1: padding value).
  const int rank = x.rank();
  std::vector<std::vector<int64_t>> source(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    size_t a = static_cast<size_t>(d);
    LATHE_CHECK(mode == "constant" || x.shape()[a] > 0, "mode '", mode,
                "' cannot pad an empty axis");
    for (int64_t o = 0; o < y.shape()[a]; ++o)
      source[a].push_back(pad_source(mode, o - begin[a], x.shape()[a]));
  }
  std::vector<int64_t> in_strides = shape_strides(x.shape());
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T fill{};
    if (ctx.has_input(2)) fill = ctx.input(2).data<T>()[0];
    const T* pi = x.data<T>();
    T* po = y.data<T>();
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    for (int64_t i = 0, n = y.numel(); i < n; ++i) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < index.size(); ++d) {
        int64_t s = source[d][static_cast<size_t>(index[d])];
        if (s < 0) inside = false;
        off += s * in_strides[d];
      }
      po[i] = inside ? pi[off] : fill;
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[static_cast<size_t>(d)] < y.shape()[static_cast<size_t>(d)]) break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
  });
}

void expand(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  copy_view(x, y, y.shape(), broadcast_strides(x.shape(), y.shape()), 0);
}

void tile(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  // Output axis d, of size repeats*n, read as [repeats, n]: the repeat index
  // has stride 0, so each copy reads the input again.
  Shape view;
  std::vector<int64_t> strides;
  std::vector<int64_t> in_strides = shape_strides(x.shape());
  for (size_t d = 0; d < x.shape().size(); ++d) {
    int64_t n = x.shape()[d];
    view.push_back(n == 0 ? 0 : y.shape()[d] / n);
    view.push_back(n);
    strides.push_back(0);
    strides.push_back(in_strides[d]);
  }
  copy_view(x, y, view, strides, 0);
}

void range(KernelContext& ctx) {
  Tensor& y = ctx.output(0);
  dispatch(y.dtype(), kNumericTypes, "Range", [&](auto tag) {
    using T = decltype(tag);
    T start = ctx.input(0).data<T>()[0];
    T delta = ctx.input(2).data<T>()[0];
    T* out = y.data<T>();
    // start + i * delta in T, as the spec's loop computes it.
    for (int64_t i = 0; i < y.numel(); ++i)
      out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  });
}

void depth_to_space(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  int64_t b = ctx.attrs().get_int("blocksize", 0);
  bool crd = ctx.attrs().get_string("mode", "DCR") == "CRD";
  const Shape& o = y.shape();
  std::vector<int64_t> s = shape_strides(x.shape());
  // The output [N, C', H*b, W*b] read as [N, C', H, b(i), W, b(j)]; it takes
  // input channel (i*b + j)*C' + c in DCR mode and c*b*b + i*b + j in CRD mode.
  Shape view = {o[0], o[1], x.shape()[2], b, x.shape()[3], b};
  std::vector<int64_t> strides =
      crd ? std::vector<int64_t>{s[0], b * b * s[1], s[2], b * s[1], s[3], s[1]}
          : std::vector<int64_t>{s[0], s[1], s[2], b * o[1] * s[1], s[3], o[1] * s[1]};
  copy_view(x, y, view, strides, 0);
}

void space_to_depth(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  int64_t b = ctx.attrs().get_int("blocksize", 0);
  const Shape& o = y.shape();
  std::vector<int64_t> s = shape_strides(x.shape());
  // Output channel (i*b + j)*C + c takes input [c, h*b + i, w*b + j]: the
  // output read as [N, b(i), b(j), C, H', W'].
  Shape view = {o[0], b, b, x.shape()[1], o[2], o[3]};
  std::vector<int64_t> strides = {s[0], s[2], s[3], s[1], b * s[2], b * s[3]};
  copy_view(x, y, view, strides, 0);
}

// ---- Resize ----------------------------------------------------------------
// Follows the ONNX reference implementation (opset 11-13): each axis maps an
// output coordinate to a fractional input coordinate, then takes a weighted
// sum of neighbours (1 for nearest, 2 for linear, 4 for cubic), clamped to the
// edge. N-D interpolation is the product of the per-axis weights.

using Tap = ResizeTap;

struct AxisTaps {
  std::vector<std::vector<Tap>> taps;  // per output coordinate
  std::vector<bool> outside;           // tf_crop_and_resize: use extrapolation_value
};

template <typename T>
double resize_accumulate(const T* in, const std::vector<const std::vector<Tap>*>& taps,
                         const std::vector<int64_t>& strides, size_t d, int64_t offset) {
  if (d == taps.size()) return static_cast<double>(in[offset]);
  double sum = 0;
  for (const Tap& t : *taps[d])
    sum += t.weight * resize_accumulate(in, taps, strides, d + 1, offset + t.index * strides[d]);
  return sum;
}

void resize(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const ResizeParams p = resize_params(ctx.attrs());
  const double extrapolation = p.extrapolation;
  const int rank = x.rank();
  if (y.numel() == 0) return;
  LATHE_CHECK(x.numel() > 0, "cannot resize an empty input to ", y.type().to_string());

  bool by_sizes = ctx.has_input(3) && ctx.input(3).numel() > 0;
  std::vector<double> scales;
  if (!by_sizes) scales = ctx.input(2).to_double_vector();
  std::vector<double> roi;
  if (p.transform == "tf_crop_and_resize") {
    LATHE_CHECK(ctx.has_input(1) && ctx.input(1).numel() == 2 * rank,
                "tf_crop_and_resize needs roi with ", 2 * rank, " values");
    roi = ctx.input(1).to_double_vector();
  }
  std::vector<AxisTaps> axes(static_cast<size_t>(rank));
  for (size_t d = 0; d < axes.size(); ++d) {
    int64_t in_n = x.shape()[d], out_n = y.shape()[d];
    const double scale = resize_axis_scale(p, d, scales, in_n, out_n);
    double r0 = roi.empty() ? 0 : roi[d], r1 = roi.empty() ? 1 : roi[d + static_cast<size_t>(rank)];
    for (int64_t o = 0; o < out_n; ++o) {
      bool outside = false;
      double c = resize_source_coord(p, o, scale, in_n, r0, r1, outside);
      axes[d].outside.push_back(outside);
      axes[d].taps.push_back(resize_taps(p, c, scale, in_n, ZeroWeightTaps::Drop));
    }
  }

  std::vector<int64_t> strides = shape_strides(x.shape());
  dispatch(x.dtype(), p.mode == "nearest" ? kAllTypes : kNumericTypes, "Resize", [&](auto tag) {
    using T = decltype(tag);
    const T* pi = x.data<T>();
    T* po = y.data<T>();
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    std::vector<const std::vector<Tap>*> taps(static_cast<size_t>(rank));
    for (int64_t i = 0, n = y.numel(); i < n; ++i) {
      bool outside = false;
      int64_t offset = 0;
      for (size_t d = 0; d < taps.size(); ++d) {
        size_t o = static_cast<size_t>(index[d]);
        outside = outside || axes[d].outside[o];
        taps[d] = &axes[d].taps[o];
        offset += (*taps[d])[0].index * strides[d];
      }
      if (outside) {
        po[i] = static_cast<T>(extrapolation);
      } else if (p.mode == "nearest") {
        po[i] = pi[offset];  // a plain copy, exact for every dtype
      } else {
        double v = resize_accumulate(pi, taps, strides, 0, 0);
        if constexpr (std::is_floating_point_v<T>) {
          po[i] = static_cast<T>(v);
        } else {
          // Cubic weights overshoot, so clamp before converting to the integer type.
          double lo = static_cast<double>(std::numeric_limits<T>::lowest());
          double hi = static_cast<double>(std::numeric_limits<T>::max());
          po[i] = static_cast<T>(std::clamp(std::round(v), lo, hi));
        }
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[static_cast<size_t>(d)] < y.shape()[static_cast<size_t>(d)]) break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
  });
}

// Keys' cubic weights (a = -0.75) of the four taps around fraction t.
std::array<double, 4> grid_cubic_weights(double t) {
  constexpr double a = -0.75;
  auto near = [](double u) { return ((a + 2) * u - (a + 3)) * u * u + 1; };
  auto far = [](double u) { return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a; };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

void grid_sample(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const GridSampleParams p = grid_sample_params(ctx.attrs());
  const std::vector<double> grid = ctx.input(1).to_double_vector();
  const size_t k = static_cast<size_t>(x.rank()) - 2;
  const Shape in(x.shape().begin() + 2, x.shape().end());
  const int64_t batch = x.shape()[0], channels = x.shape()[1];
  int64_t image = 1, points = 1;
  for (int64_t e : in) image *= e;
  for (size_t d = 2; d < y.shape().size(); ++d) points *= y.shape()[d];
  const double lo = grid_low(p.align_corners);
  struct Tap {
    int64_t index;  // after padding; -1 reads 0
    double weight;
  };
  std::vector<std::vector<Tap>> taps(k);
  dispatch(x.dtype(), kFloatTypes, "GridSample", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t o = 0; o < points; ++o) {
        for (size_t d = 0; d < k; ++d) {
          // The grid's last axis lists x (the last input axis) first.
          const double g =
              grid[static_cast<size_t>((n * points + o) * static_cast<int64_t>(k)) + (k - 1 - d)];
          const int64_t size = in[d];
          const double hi = grid_high(size, p.align_corners);
          double c = grid_unnormalize(g, size, p.align_corners);
          // PyTorch rounds 2-D (and other) coordinates half to even, 3-D
          // ones half away from zero.
          if (p.mode == GridMode::Nearest) c = k == 3 ? std::round(c) : std::nearbyint(c);
          taps[d].clear();
          auto add = [&](int64_t i, double w) {
            if (p.padding == GridPadding::Border)
              i = std::clamp<int64_t>(i, 0, size - 1);
            else if (p.padding == GridPadding::Reflection)
              i = std::clamp<int64_t>(
                  static_cast<int64_t>(grid_reflect(static_cast<double>(i), lo, hi)), 0, size - 1);
            else if (i < 0 || i >= size)
              i = -1;
            taps[d].push_back({i, w});
          };
          const double x0 = std::floor(c), t = c - x0;
          const auto i0 = static_cast<int64_t>(x0);
          if (p.mode == GridMode::Nearest) {
            add(static_cast<int64_t>(c), 1);
          } else if (p.mode == GridMode::Linear) {
            add(i0, 1 - t);
            add(i0 + 1, t);
          } else {
            const std::array<double, 4> w = grid_cubic_weights(t);
            for (int64_t j = 0; j < 4; ++j) add(i0 - 1 + j, w[static_cast<size_t>(j)]);
          }
        }
        for (int64_t ch = 0; ch < channels; ++ch) {
          const T* plane = px + (n * channels + ch) * image;
          // Sum over every combination of the axes' taps.
          std::function<double(size_t, int64_t)> sum = [&](size_t d, int64_t offset) -> double {
            if (d == k) return static_cast<double>(plane[offset]);
            double total = 0;
            for (const Tap& tap : taps[d])
              if (tap.index >= 0) total += tap.weight * sum(d + 1, offset * in[d] + tap.index);
            return total;
          };
          py[(n * channels + ch) * points + o] = static_cast<T>(sum(0, 0));
        }
      }
  });
}

}  // namespace

void register_shape_kernels(OpRegistry& r) {
  for (const char* op : {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"})
    r.find_mutable(op)->kernel = copy_all;
  r.find_mutable("Dropout")->kernel = dropout;
  r.find_mutable("Transpose")->kernel = transpose;
  r.find_mutable("Concat")->kernel = concat;
  r.find_mutable("Split")->kernel = split;
  r.find_mutable("Slice")->kernel = slice;
  r.find_mutable("Gather")->kernel = gather;
  r.find_mutable("Shape")->kernel = shape;
  r.find_mutable("Size")->kernel = size;
  r.find_mutable("Constant")->kernel = constant;
  r.find_mutable("ConstantOfShape")->kernel = constant_of_shape;
  r.find_mutable("Pad")->kernel = pad;
  r.find_mutable("Expand")->kernel = expand;
  r.find_mutable("Tile")->kernel = tile;
  r.find_mutable("Range")->kernel = range;
  r.find_mutable("Resize")->kernel = resize;
  r.find_mutable("GridSample")->kernel = grid_sample;
  r.find_mutable("DepthToSpace")->kernel = depth_to_space;
  r.find_mutable("SpaceToDepth")->kernel = space_to_depth;
}

}  // namespace lathe::reference
