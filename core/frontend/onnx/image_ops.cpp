// Image ops from opsets 18 to 20 that are compositions of ops Lathe has:
// LpPool (and GlobalLpPool) as |x|^p summed by a depthwise Conv of ones,
// AffineGrid as a constant grid of normalised coordinates times theta, and
// CenterCropPad as a Slice and a Pad.
#include <cmath>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/node_sequence.h"
#include "ir/ops/window_geometry.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

std::vector<int64_t> constant_ints(const Node& node, size_t i, const char* what,
                                   const UpgradeHooks& hooks) {
  LATHE_CHECK(i < node.inputs.size() && node.inputs[i] != kNoValue, node.op, " needs ", what);
  const Tensor* t = hooks.constant_of(node.inputs[i]);
  LATHE_CHECK(t, node.op, " ", what, " (input ", i, ") must be a constant");
  return t->to_int64_vector();
}

// |x|^p, exactly for p = 1 and 2.
ValueId power_of_magnitude(NodeSequence& u, ValueId x, double p) {
  if (p == 2) return u.op("Mul", {x, x});
  const ValueId magnitude = u.op("Abs", {x});
  return p == 1 ? magnitude : u.op("Pow", {magnitude, u.scalar(static_cast<float>(p))});
}

// The p-th root that undoes power_of_magnitude, written into `out`.
void root(NodeSequence& u, ValueId sum, double p, ValueId out) {
  if (p == 1)
    u.into(out, "Identity", {sum});
  else if (p == 2)
    u.into(out, "Sqrt", {sum});
  else
    u.into(out, "Pow", {sum, u.scalar(static_cast<float>(1 / p))});
}

// LpPool: (sum over the window of |x|^p)^(1/p). A depthwise Conv of ones
// sums the window exactly, padding included as zeros; ceil_mode's last
// window becomes extra zero padding at the end.
std::vector<Node> expand_lp_pool(const Node& node, const UpgradeHooks& hooks) {
  const TensorType& x = known_type(node, 0, hooks);
  LATHE_CHECK(x.rank() >= 3, "LpPool input must be [N, C, spatial...], got ", x.to_string());
  const size_t n = static_cast<size_t>(x.rank()) - 2;
  const double p = static_cast<double>(node.attrs.get_int("p", 2));
  LATHE_CHECK(p >= 1, "LpPool p must be at least 1, got ", p);
  const Shape kernel = node.attrs.get_ints("kernel_shape");
  LATHE_CHECK(kernel.size() == n, "LpPool kernel_shape has ", kernel.size(), " values for ", n,
              " spatial axes");
  const std::vector<int64_t> strides = spatial_ints(node.attrs, "strides", n, 1, 1);
  const std::vector<int64_t> dilations = spatial_ints(node.attrs, "dilations", n, 1, 1);
  const bool ceil_mode = node.attrs.get_int("ceil_mode", 0) != 0;
  const Shape in(x.shape.begin() + 2, x.shape.end());
  Shape dilated(n);
  for (size_t d = 0; d < n; ++d) dilated[d] = (kernel[d] - 1) * dilations[d] + 1;
  const Shape out = window_output_extents(node.attrs, in, dilated, strides, ceil_mode);
  SpatialWindow w = resolve_window(node.attrs, in, out, kernel);
  for (size_t d = 0; d < n; ++d) {
    const int64_t short_by =
        (out[d] - 1) * strides[d] + dilated[d] - (in[d] + w.pad_begin[d] + w.pad_end[d]);
    if (short_by > 0) w.pad_end[d] += short_by;
  }
  Shape ones_shape = {x.shape[1], 1};
  ones_shape.insert(ones_shape.end(), kernel.begin(), kernel.end());
  Tensor ones = float_tensor(
      x.dtype, std::vector<double>(static_cast<size_t>(shape_numel(ones_shape)), 1.0), ones_shape);
  Attributes conv;
  conv.set("kernel_shape", std::vector<int64_t>(kernel.begin(), kernel.end()));
  conv.set("strides", strides);
  conv.set("dilations", dilations);
  std::vector<int64_t> pads = w.pad_begin;
  pads.insert(pads.end(), w.pad_end.begin(), w.pad_end.end());
  conv.set("pads", pads);
  conv.set("group", x.shape[1]);
  NodeSequence u(node.name, hooks);
  const ValueId sum = u.op("Conv",
                           {power_of_magnitude(u, node.inputs[0], p),
                            hooks.add_constant(node.name + "/ones", std::move(ones))},
                           std::move(conv));
  root(u, sum, p, node.outputs.at(0));
  return std::move(u.nodes);
}

// GlobalLpPool: the same over every spatial position.
std::vector<Node> expand_global_lp_pool(const Node& node, const UpgradeHooks& hooks) {
  const TensorType& x = known_type(node, 0, hooks);
  LATHE_CHECK(x.rank() >= 3, "GlobalLpPool input must be [N, C, spatial...], got ", x.to_string());
  const double p = static_cast<double>(node.attrs.get_int("p", 2));
  LATHE_CHECK(p >= 1, "GlobalLpPool p must be at least 1, got ", p);
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < x.rank(); ++d) axes.push_back(d);
  NodeSequence u(node.name, hooks);
  Attributes keep;
  keep.set("keepdims", int64_t{1});
  const ValueId sum =
      u.op("ReduceSum", {power_of_magnitude(u, node.inputs[0], p), u.ints(axes)}, keep);
  root(u, sum, p, node.outputs.at(0));
  return std::move(u.nodes);
}

// torch's affine_grid coordinates along an axis of n: the centres of n
// cells spanning [-1, 1], or with align_corners the n points from -1 to 1.
double normalised_coordinate(int64_t i, int64_t n, bool align_corners) {
  if (n <= 1) return 0;
  const auto di = static_cast<double>(i), dn = static_cast<double>(n);
  return align_corners ? -1 + 2 * di / (dn - 1) : (2 * di + 1) / dn - 1;
}

// AffineGrid (opset 20): theta [N, k, k + 1] applied to every output
// position's homogeneous normalised coordinates (x first, as GridSample
// reads them): one MatMul of a constant [positions, k + 1] grid with theta
// transposed.
std::vector<Node> expand_affine_grid(const Node& node, const UpgradeHooks& hooks) {
  const TensorType& theta = known_type(node, 0, hooks);
  const std::vector<int64_t> size = constant_ints(node, 1, "size", hooks);
  LATHE_CHECK(size.size() == 4 || size.size() == 5,
              "AffineGrid size must be [N, C, H, W] or [N, C, D, H, W], got ", size.size(),
              " values");
  const auto k = static_cast<int64_t>(size.size()) - 2;
  LATHE_CHECK(theta.rank() == 3 && theta.shape[0] == size[0] && theta.shape[1] == k &&
                  theta.shape[2] == k + 1,
              "AffineGrid theta must be [", size[0], ", ", k, ", ", k + 1, "], got ",
              theta.to_string());
  LATHE_CHECK(theta.dtype == DType::Float32 || theta.dtype == DType::Float64,
              "AffineGrid theta of dtype ", dtype_name(theta.dtype), " is not supported");
  const bool align = node.attrs.get_int("align_corners", 0) != 0;
  const Shape extents(size.begin() + 2, size.end());  // [D,] H, W
  int64_t positions = 1;
  for (int64_t e : extents) positions *= e;
  std::vector<double> base;
  std::vector<int64_t> at(static_cast<size_t>(k), 0);
  for (int64_t pos = 0; pos < positions; ++pos) {
    for (int64_t d = k - 1, rest = pos; d >= 0; --d) {
      at[static_cast<size_t>(d)] = rest % extents[static_cast<size_t>(d)];
      rest /= extents[static_cast<size_t>(d)];
    }
    // Column c is axis k - 1 - c (x is the last axis); column k is 1.
    for (int64_t c = 0; c < k; ++c)
      base.push_back(normalised_coordinate(at[static_cast<size_t>(k - 1 - c)],
                                           extents[static_cast<size_t>(k - 1 - c)], align));
    base.push_back(1.0);
  }
  NodeSequence u(node.name, hooks);
  const ValueId grid =
      u.op("MatMul", {hooks.add_constant(node.name + "/base_grid",
                                         float_tensor(theta.dtype, base, {positions, k + 1})),
                      u.transpose(node.inputs[0], {0, 2, 1})});
  std::vector<int64_t> shape = {size[0]};
  shape.insert(shape.end(), extents.begin(), extents.end());
  shape.push_back(k);
  u.into(node.outputs.at(0), "Reshape", {grid, u.ints(shape)});
  return std::move(u.nodes);
}

// CenterCropPad (opset 18): each listed axis cropped to its centred window
// or zero-padded equally on both sides (the odd element at the end).
std::vector<Node> expand_center_crop_pad(const Node& node, const UpgradeHooks& hooks) {
  const TensorType& x = known_type(node, 0, hooks);
  const std::vector<int64_t> target = constant_ints(node, 1, "shape", hooks);
  const auto rank = static_cast<int64_t>(x.rank());
  std::vector<int64_t> axes =
      node.attrs.has("axes") ? node.attrs.get_ints("axes") : std::vector<int64_t>();
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  LATHE_CHECK(target.size() == axes.size(), "CenterCropPad shape has ", target.size(),
              " values for ", axes.size(), " axes");
  std::vector<int64_t> starts, ends, sliced, pads(2 * static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    LATHE_CHECK(a >= 0 && a < rank, "CenterCropPad axis ", axes[i], " is out of range for rank ",
                rank);
    LATHE_CHECK(target[i] >= 0, "CenterCropPad shape values must not be negative");
    const int64_t have = x.shape[static_cast<size_t>(a)];
    if (have > target[i]) {
      const int64_t start = (have - target[i]) / 2;
      starts.push_back(start);
      ends.push_back(start + target[i]);
      sliced.push_back(a);
    } else if (have < target[i]) {
      pads[static_cast<size_t>(a)] = (target[i] - have) / 2;
      pads[static_cast<size_t>(a + rank)] = target[i] - have - (target[i] - have) / 2;
    }
  }
  NodeSequence u(node.name, hooks);
  ValueId y = node.inputs[0];
  if (!sliced.empty()) y = u.op("Slice", {y, u.ints(starts), u.ints(ends), u.ints(sliced)});
  bool padded = false;
  for (int64_t v : pads) padded = padded || v != 0;
  if (padded)
    u.into(node.outputs.at(0), "Pad", {y, u.ints(pads)});
  else
    u.into(node.outputs.at(0), "Identity", {y});
  return std::move(u.nodes);
}

}  // namespace

bool is_image_op(const std::string& op) {
  return op == "LpPool" || op == "GlobalLpPool" || op == "AffineGrid" || op == "CenterCropPad";
}

std::vector<int> image_shape_inputs(const std::string& op) {
  if (op == "AffineGrid" || op == "CenterCropPad") return {1};
  return {};
}

std::vector<Node> expand_image_op(const Node& node, const UpgradeHooks& hooks) {
  if (node.op == "LpPool") return expand_lp_pool(node, hooks);
  if (node.op == "GlobalLpPool") return expand_global_lp_pool(node, hooks);
  if (node.op == "AffineGrid") return expand_affine_grid(node, hooks);
  return expand_center_crop_pad(node, hooks);
}

}  // namespace lathe::onnx_frontend
