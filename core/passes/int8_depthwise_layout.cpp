// The depthwise part of the int8 layout pass (passes/int8_depthwise_layout.h).
#include "passes/int8_depthwise_layout.h"

#include "passes/graph_edit.h"

namespace lathe::passes {

int64_t depthwise_block(int64_t channels) {
  for (int64_t b = 16; b >= 4; b -= 4)
    if (channels % b == 0) return b;
  return 0;
}

bool packable_depthwise(const Graph& graph, const Node& node) {
  if (node.op != "ConvInteger" || node.outputs.size() != 1 || !node.has_input(0) ||
      !node.has_input(1))
    return false;
  const TensorType& x = graph.type(node.inputs[0]);
  const Tensor* w = constant_input(graph, node, 1);
  if ((x.dtype != DType::UInt8 && x.dtype != DType::Int8) || x.rank() != 4 || !w ||
      w->dtype() != DType::Int8 || w->rank() != 4)
    return false;
  const int64_t channels = x.shape[1];
  if (node.attrs.get_int("group", 1) != channels || channels < 2 || w->shape()[0] != channels ||
      w->shape()[1] != 1 || depthwise_block(channels) == 0)
    return false;
  // Zero points read per call would need their own path; quantized models' are constants.
  for (size_t i = 2; i < 4; ++i)
    if (node.has_input(i) && !constant_input(graph, node, i)) return false;
  return true;
}

bool packable_grouped(const Graph& graph, const Node& node) {
  if (node.op != "ConvInteger" || node.outputs.size() != 1 || !node.has_input(0) ||
      !node.has_input(1))
    return false;
  const TensorType& x = graph.type(node.inputs[0]);
  const Tensor* w = constant_input(graph, node, 1);
  if ((x.dtype != DType::UInt8 && x.dtype != DType::Int8) || x.rank() != 4 || !w ||
      w->dtype() != DType::Int8 || w->rank() != 4)
    return false;
  const int64_t channels = x.shape[1], groups = node.attrs.get_int("group", 1);
  if (groups < 2 || channels % groups != 0 || channels % 16 != 0 || w->shape()[0] != channels)
    return false;
  const int64_t width = channels / groups;
  if (width < 2 || 16 % width != 0 || w->shape()[1] != width) return false;
  if (node.has_input(2) && !constant_input(graph, node, 2)) return false;
  if (node.has_input(3)) {
    // The data's sums per group would be needed for a weight zero point.
    const Tensor* z = constant_input(graph, node, 3);
    if (!z) return false;
    for (int64_t i = 0; i < z->numel(); ++i)
      if (z->data<int8_t>()[i] != 0) return false;
  }
  return true;
}

Tensor pack_grouped_weight(const Tensor& w) {
  const Shape& s = w.shape();
  const int64_t c = s[0], width = s[1], kh = s[2], kw = s[3];
  Tensor packed(DType::Int8, {c / 16, 1, kh, kw, 4, 16, 4});  // zero-filled
  const int8_t* src = w.data<int8_t>();
  int8_t* dst = packed.data<int8_t>();
  for (int64_t o = 0; o < c; ++o)
    for (int64_t j = 0; j < width; ++j) {
      const int64_t lane = (o / width * width + j) % 16;  // the input channel's lane in o's block
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          dst[((((o / 16 * kh + y) * kw + x) * 4 + lane / 4) * 16 + o % 16) * 4 + lane % 4] =
              src[((o * width + j) * kh + y) * kw + x];
    }
  return packed;
}

Tensor pack_depthwise_weight(const Tensor& w, int64_t block) {
  const Shape& s = w.shape();
  const int64_t c = s[0], kh = s[2], kw = s[3];
  Tensor packed(DType::Int8, {c / block, kh, kw, block});
  const int8_t* src = w.data<int8_t>();
  int8_t* dst = packed.data<int8_t>();
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t y = 0; y < kh; ++y)
      for (int64_t x = 0; x < kw; ++x)
        dst[((ch / block * kh + y) * kw + x) * block + ch % block] = src[(ch * kh + y) * kw + x];
  return packed;
}

Tensor depthwise_weight_sums(const Tensor& w, int64_t block) {
  const int64_t c = w.shape()[0], taps = w.numel() / c;
  Tensor sums(DType::Int32, {c / block, block});
  const int8_t* src = w.data<int8_t>();
  for (int64_t ch = 0; ch < c; ++ch) {
    int32_t s = 0;
    for (int64_t i = 0; i < taps; ++i) s += src[ch * taps + i];
    sums.data<int32_t>()[ch] = s;
  }
  return sums;
}

}  // namespace lathe::passes
