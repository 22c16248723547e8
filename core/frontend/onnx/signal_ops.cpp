// ONNX's signal-processing ops (opset 17; DFT's opset-20 form) as ops Lathe
// has. DFT is one MatMul with a constant matrix of cosines and sines, as TVM's
// Relax frontend does: the signal axis is moved next to the trailing
// real/imaginary axis, the two are flattened into one row of n * c values,
// and the matrix maps that row to the 2 * K values of the K frequencies kept.
// Zero padding and truncation to dft_length are rows of the matrix that are
// absent; onesided keeps the first L / 2 + 1 columns. O(n * K) per signal,
// which for the frame lengths models use (a few hundred) is one dense layer.
// STFT gathers its frames, weights them by the window and applies the same
// matrix; the window generators and MelWeightMatrix depend only on constant
// inputs, so they become constants.
#include <cmath>
#include <numbers>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/node_sequence.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

// Input i, a constant of one element; nullptr when the input is omitted.
const Tensor* scalar_constant(const Node& node, size_t i, const char* what,
                              const UpgradeHooks& hooks) {
  if (i >= node.inputs.size() || node.inputs[i] == kNoValue) return nullptr;
  const Tensor* t = hooks.constant_of(node.inputs[i]);
  LATHE_CHECK(t, node.op, " ", what, " (input ", i, ") must be a constant");
  LATHE_CHECK(t->numel() == 1, node.op, " ", what, " must be a scalar, got ", t->numel(),
              " values");
  return t;
}
// A constant scalar integer input, or `fallback` when the input is omitted.
int64_t scalar_input(const Node& node, size_t i, const char* what, int64_t fallback,
                     const UpgradeHooks& hooks) {
  const Tensor* t = scalar_constant(node, i, what, hooks);
  return t ? t->to_int64_vector()[0] : fallback;
}
double scalar_float(const Node& node, size_t i, const char* what, const UpgradeHooks& hooks) {
  const Tensor* t = scalar_constant(node, i, what, hooks);
  LATHE_CHECK(t, node.op, " needs ", what, " (input ", i, ")");
  return t->to_double_vector()[0];
}

// The output_datatype attribute of the generators: float or double.
DType generated_dtype(const Node& node) {
  const auto code = static_cast<int>(node.attrs.get_int("output_datatype", 1));
  if (code == 1) return DType::Float32;
  if (code == 11) return DType::Float64;
  fail_unsupported(str(node.op, " with output_datatype ", onnx_dtype_name(code),
                       " is not supported (float and double are)"));
}

// A generator's output: Identity of the constant, which folding removes.
std::vector<Node> constant_output(const Node& node, Tensor value, const UpgradeHooks& hooks) {
  NodeSequence u(node.name, hooks);
  u.into(node.outputs.at(0), "Identity",
         {hooks.add_constant(node.name + "/value", std::move(value))});
  return std::move(u.nodes);
}

// Row n * c + p (input sample n, part p: 0 real, 1 imaginary) by column
// 2 * k + q (frequency k, part q) of the transform of length `length`.
Tensor dft_matrix(DType dtype, int64_t samples, int64_t parts, int64_t length, int64_t kept,
                  bool inverse) {
  Tensor m(dtype, {samples * parts, 2 * kept});
  const double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / static_cast<double>(length) : 1;
  for (int64_t n = 0; n < std::min(samples, length); ++n)
    for (int64_t k = 0; k < kept; ++k) {
      // The angle of e^{sign 2πi kn/L}, reduced modulo L first for accuracy.
      const double angle = sign * 2 * std::numbers::pi * static_cast<double>((k * n) % length) /
                           static_cast<double>(length);
      const double c = std::cos(angle) * scale, s = std::sin(angle) * scale;
      // (re + i im)(c + i s) = (re c - im s) + i (re s + im c)
      const double w[2][2] = {{c, s}, {-s, c}};  // [p][q]
      for (int64_t p = 0; p < parts; ++p)
        for (int64_t q = 0; q < 2; ++q) {
          const int64_t at = (n * parts + p) * 2 * kept + 2 * k + q;
          if (dtype == DType::Float64)
            m.data<double>()[at] = w[p][q];
          else
            m.data<float>()[at] = static_cast<float>(w[p][q]);
        }
    }
  return m;
}

// Rows [..., samples * parts] to spectra [..., kept, 2]: the MatMul and the
// reshape around it. `out` names the value the reshape writes, or none.
ValueId transform_rows(NodeSequence& u, const UpgradeHooks& hooks, const std::string& name,
                       ValueId rows, std::vector<int64_t> outer, DType dtype, int64_t samples,
                       int64_t parts, int64_t length, int64_t kept, bool inverse,
                       ValueId out = kNoValue) {
  const ValueId matrix = hooks.add_constant(
      name + "/dft_matrix", dft_matrix(dtype, samples, parts, length, kept, inverse));
  const ValueId y = u.op("MatMul", {rows, matrix});
  outer.push_back(kept);
  outer.push_back(2);
  return out == kNoValue ? u.reshape(y, outer) : u.into(out, "Reshape", {y, u.ints(outer)});
}

const TensorType& signal_type(const Node& node, const UpgradeHooks& hooks) {
  LATHE_CHECK(!node.inputs.empty() && node.inputs[0] != kNoValue, node.op, " needs an input");
  const TensorType* type = hooks.type_of(node.inputs[0]);
  LATHE_CHECK(type && type->rank() >= 2, node.op,
              " input must have a signal axis and a last axis of 1 or 2");
  LATHE_CHECK(type->dtype == DType::Float32 || type->dtype == DType::Float64, node.op,
              " input of dtype ", dtype_name(type->dtype), " is not supported");
  LATHE_CHECK(type->shape.back() == 1 || type->shape.back() == 2, node.op,
              " input's last axis must be 1 (real) or 2 (complex), got ", type->shape.back());
  return *type;
}

// a0 - a1 cos(2πn / N') + a2 cos(4πn / N'), N' = size (periodic) or size - 1.
std::vector<Node> expand_window(const Node& node, double a0, double a1, double a2,
                                const UpgradeHooks& hooks) {
  const int64_t size = scalar_input(node, 0, "size", -1, hooks);
  LATHE_CHECK(size > 0, node.op, " size must be positive, got ", size);
  const bool periodic = node.attrs.get_int("periodic", 1) != 0;
  const double span = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t n = 0; n < size; ++n) {
    const double t = span > 0 ? 2 * std::numbers::pi * static_cast<double>(n) / span : 0;
    w[static_cast<size_t>(n)] = a0 - a1 * std::cos(t) + a2 * std::cos(2 * t);
  }
  return constant_output(node, float_tensor(generated_dtype(node), w, {size}), hooks);
}

// Triangular filters between mel-spaced bin edges, as ONNX's definition
// computes them (edges floored to spectrogram bins).
std::vector<Node> expand_mel_weight_matrix(const Node& node, const UpgradeHooks& hooks) {
  const int64_t mels = scalar_input(node, 0, "num_mel_bins", -1, hooks);
  const int64_t length = scalar_input(node, 1, "dft_length", -1, hooks);
  const int64_t rate = scalar_input(node, 2, "sample_rate", -1, hooks);
  const double low = scalar_float(node, 3, "lower_edge_hertz", hooks);
  const double high = scalar_float(node, 4, "upper_edge_hertz", hooks);
  LATHE_CHECK(mels > 0 && length > 0 && rate > 0,
              "MelWeightMatrix num_mel_bins, dft_length and sample_rate must be positive");
  const int64_t bins = length / 2 + 1;
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double low_mel = mel(low), step = (mel(high) - low_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595) - 1);
    edge[static_cast<size_t>(i)] = static_cast<int64_t>(
        std::floor(static_cast<double>(length + 1) * hz / static_cast<double>(rate)));
  }
  std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    LATHE_CHECK(j >= 0 && j < bins, "MelWeightMatrix: a filter edge falls on bin ", j,
                ", outside the ", bins, " of dft_length ", length);
    return w[static_cast<size_t>(j * mels + i)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t left = edge[static_cast<size_t>(i)], centre = edge[static_cast<size_t>(i + 1)],
                  right = edge[static_cast<size_t>(i + 2)];
    if (centre == left)
      at(centre, i) = 1;
    else
      for (int64_t j = left; j <= centre; ++j)
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(centre - left);
    for (int64_t j = centre; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - centre);
  }
  return constant_output(node, float_tensor(generated_dtype(node), w, {bins, mels}), hooks);
}

std::vector<Node> expand_dft(Node node, int opset, const UpgradeHooks& hooks) {
  const TensorType& type = signal_type(node, hooks);
  const Shape& shape = type.shape;
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t parts = shape.back();
  // Opset 17: axis attribute, default 1; opset 20: axis input, default -2.
  int64_t axis =
      opset >= 20 ? scalar_input(node, 2, "axis", -2, hooks) : node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  LATHE_CHECK(axis >= 0 && axis < rank - 1, "DFT axis must name a signal axis of ",
              type.to_string(), ", not the last one");
  const int64_t samples = shape[static_cast<size_t>(axis)];
  const int64_t length = scalar_input(node, 1, "dft_length", samples, hooks);
  LATHE_CHECK(length > 0, "DFT dft_length must be positive, got ", length);
  const bool inverse = node.attrs.get_int("inverse", 0) != 0;
  const bool onesided = node.attrs.get_int("onesided", 0) != 0;
  if (inverse && onesided) fail_unsupported("DFT with inverse=1 and onesided=1 is not supported");
  const int64_t kept = onesided ? length / 2 + 1 : length;

  NodeSequence u(node.name, hooks);
  ValueId x = node.inputs[0];
  // [..., axis, ..., c] -> [rest..., axis, c], so the signal and its parts are last.
  std::vector<int64_t> perm, rest;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis) {
      perm.push_back(d);
      rest.push_back(shape[static_cast<size_t>(d)]);
    }
  perm.push_back(axis);
  perm.push_back(rank - 1);
  const bool moved = axis != rank - 2;
  if (moved) x = u.transpose(x, perm);
  std::vector<int64_t> rows = rest;
  rows.push_back(samples * parts);
  x = u.reshape(x, rows);
  const ValueId y = transform_rows(u, hooks, node.name, x, rest, type.dtype, samples, parts, length,
                                   kept, inverse, moved ? kNoValue : node.outputs.at(0));
  if (!moved) return std::move(u.nodes);
  // Back: the inverse of perm.
  std::vector<int64_t> back(perm.size());
  for (size_t k = 0; k < perm.size(); ++k)
    back[static_cast<size_t>(perm[k])] = static_cast<int64_t>(k);
  Attributes a;
  a.set("perm", back);
  u.into(node.outputs.at(0), "Transpose", {y}, std::move(a));
  return std::move(u.nodes);
}

// STFT: frames [batch, frames, frame_length, c] gathered from the signal,
// weighted by the window, each transformed along its samples.
std::vector<Node> expand_stft(const Node& node, const UpgradeHooks& hooks) {
  const TensorType& type = signal_type(node, hooks);
  LATHE_CHECK(type.rank() == 3, "STFT signal must be [batch, length, 1 or 2], got ",
              type.to_string());
  const int64_t batch = type.shape[0], samples = type.shape[1], parts = type.shape[2];
  const int64_t step = scalar_input(node, 1, "frame_step", -1, hooks);
  LATHE_CHECK(step > 0, "STFT frame_step must be positive, got ", step);
  const bool windowed = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  int64_t frame = scalar_input(node, 3, "frame_length", -1, hooks);
  if (windowed) {
    const TensorType* w = hooks.type_of(node.inputs[2]);
    LATHE_CHECK(w && w->rank() == 1, "STFT window must be 1-D");
    LATHE_CHECK(frame < 0 || frame == w->shape[0], "STFT frame_length ", frame,
                " differs from the window's ", w->shape[0], " samples");
    frame = w->shape[0];
  }
  if (frame < 0) frame = samples;
  LATHE_CHECK(frame > 0 && frame <= samples, "STFT frame_length ", frame, " does not fit the ",
              samples, " samples of the signal");
  const int64_t frames = 1 + (samples - frame) / step;
  const bool onesided = node.attrs.get_int("onesided", 1) != 0;
  const int64_t kept = onesided ? frame / 2 + 1 : frame;

  NodeSequence u(node.name, hooks);
  std::vector<int64_t> index;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t t = 0; t < frame; ++t) index.push_back(f * step + t);
  const ValueId positions = hooks.add_constant(node.name + "/frame_positions",
                                               Tensor::from_vector(index, {frames, frame}));
  Attributes along;
  along.set("axis", int64_t{1});
  ValueId x = u.op("Gather", {node.inputs[0], positions}, std::move(along));
  if (windowed) x = u.op("Mul", {x, u.reshape(node.inputs[2], {frame, 1})});
  x = u.reshape(x, {batch, frames, frame * parts});
  transform_rows(u, hooks, node.name, x, {batch, frames}, type.dtype, frame, parts, frame, kept,
                 false, node.outputs.at(0));
  return std::move(u.nodes);
}

}  // namespace

Tensor float_tensor(DType dtype, const std::vector<double>& values, Shape shape) {
  LATHE_CHECK(dtype == DType::Float32 || dtype == DType::Float64, "a float constant of dtype ",
              dtype_name(dtype));
  Tensor t(dtype, std::move(shape));
  LATHE_CHECK(static_cast<int64_t>(values.size()) == t.numel(), "a constant of ", t.numel(),
              " elements given ", values.size(), " values");
  for (size_t k = 0; k < values.size(); ++k) {
    if (dtype == DType::Float64)
      t.data<double>()[k] = values[k];
    else
      t.data<float>()[k] = static_cast<float>(values[k]);
  }
  return t;
}

bool is_signal_op(const std::string& op) {
  return op == "DFT" || op == "STFT" || op == "HannWindow" || op == "HammingWindow" ||
         op == "BlackmanWindow" || op == "MelWeightMatrix";
}

std::vector<int> signal_shape_inputs(const std::string& op) {
  if (op == "DFT") return {1, 2};
  if (op == "STFT") return {1, 3};
  if (op == "MelWeightMatrix") return {0, 1, 2, 3, 4};
  if (is_signal_op(op)) return {0};
  return {};
}

std::vector<Node> expand_signal_op(Node node, int opset, const UpgradeHooks& hooks) {
  if (node.op == "STFT") return expand_stft(node, hooks);
  if (node.op == "HannWindow") return expand_window(node, 0.5, 0.5, 0, hooks);
  if (node.op == "HammingWindow") return expand_window(node, 25.0 / 46, 21.0 / 46, 0, hooks);
  if (node.op == "BlackmanWindow") return expand_window(node, 0.42, 0.5, 0.08, hooks);
  if (node.op == "MelWeightMatrix") return expand_mel_weight_matrix(node, hooks);
  return expand_dft(std::move(node), opset, hooks);
}

}  // namespace lathe::onnx_frontend
