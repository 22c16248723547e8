// Attention and RotaryEmbedding (opset 23) expanded into the MatMul, Softmax
// and elementwise nodes the legacy exporters wrote for the same layers, so that
// fusion and the templates treat them as they treat a BERT's or a Llama's
// attention. The arithmetic follows ONNX's reference in order (Q and K each
// scaled by sqrt(scale), softcap before the mask, the mask padded to the
// key length with -inf), which is also PyTorch's math attention.
#include <cmath>
#include <limits>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/node_sequence.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

ValueId required(const Node& node, size_t i) {
  LATHE_CHECK(i < node.inputs.size() && node.inputs[i] != kNoValue, node.op, " needs input ", i);
  return node.inputs[i];
}

bool has_input(const Node& node, size_t i) {
  return i < node.inputs.size() && node.inputs[i] != kNoValue;
}

bool has_output(const Node& node, size_t i) {
  return i < node.outputs.size() && node.outputs[i] != kNoValue;
}

const TensorType& float32_input(const Node& node, size_t i, const UpgradeHooks& hooks) {
  const TensorType& t = known_type(node, i, hooks);
  LATHE_CHECK(t.dtype == DType::Float32, node.op, " input ", i, " is ", dtype_name(t.dtype),
              ": Lathe expands it for float32 (and float16/bfloat16 models, computed in float32)");
  return t;
}

// x[..., begin:end:step] on the last axis.
ValueId slice_last(NodeSequence& u, ValueId x, int64_t begin, int64_t end, int64_t step = 1) {
  return u.op("Slice", {x, u.ints({begin}), u.ints({end}), u.ints({-1}), u.ints({step})});
}

// RotaryEmbedding: X [B, H, S, D] or [B, S, H*D] (num_heads), rotated in
// pairs (halves, or neighbours when interleaved) over its first
// rotary_embedding_dim channels by cos/sin [B, S, dim/2] or, with
// position_ids [B, S], rows of caches [positions, dim/2].
std::vector<Node> expand_rotary_embedding(const Node& node, const UpgradeHooks& hooks) {
  const Shape x_shape = float32_input(node, 0, hooks).shape;
  LATHE_CHECK(x_shape.size() == 3 || x_shape.size() == 4,
              "RotaryEmbedding input must be 3-D [batch, sequence, hidden] or 4-D [batch, heads, "
              "sequence, head_size], got rank ",
              x_shape.size());
  const bool four_d = x_shape.size() == 4;
  const int64_t batch = x_shape[0], sequence = four_d ? x_shape[2] : x_shape[1];
  int64_t head_size = x_shape.back();
  int64_t heads = four_d ? x_shape[1] : node.attrs.get_int("num_heads", 0);
  if (!four_d) {
    LATHE_CHECK(heads > 0 && x_shape[2] % heads == 0,
                "RotaryEmbedding of a 3-D input needs "
                "num_heads dividing the hidden size ",
                x_shape[2], ", got ", heads);
    head_size = x_shape[2] / heads;
  }
  int64_t dim = node.attrs.get_int("rotary_embedding_dim", 0);
  if (dim == 0) dim = head_size;
  LATHE_CHECK(dim > 0 && dim <= head_size && dim % 2 == 0, "RotaryEmbedding rotary_embedding_dim ",
              dim, " must be even and at most the head size ", head_size);
  const int64_t half = dim / 2;
  const bool interleaved = node.attrs.get_int("interleaved", 0) != 0;

  NodeSequence u(node.name, hooks);
  ValueId x = required(node, 0);
  // Work in [B, H, S, D] (4-D) or [B, S, H, D] (3-D); cos/sin get a 1 for H.
  std::vector<int64_t> work = four_d ? std::vector<int64_t>{batch, heads, sequence, head_size}
                                     : std::vector<int64_t>{batch, sequence, heads, head_size};
  std::vector<int64_t> table = four_d ? std::vector<int64_t>{batch, 1, sequence, half}
                                      : std::vector<int64_t>{batch, sequence, 1, half};
  if (!four_d) x = u.reshape(x, work);
  auto table_of = [&](size_t i) {
    float32_input(node, i, hooks);
    ValueId cache = required(node, i);
    if (has_input(node, 3)) cache = u.op("Gather", {cache, required(node, 3)});
    return u.reshape(cache, table);
  };
  ValueId cos = table_of(1), sin = table_of(2);
  ValueId rotated = dim == head_size ? x : slice_last(u, x, 0, dim);
  ValueId x1 = interleaved ? slice_last(u, rotated, 0, dim, 2) : slice_last(u, rotated, 0, half);
  ValueId x2 = interleaved ? slice_last(u, rotated, 1, dim, 2) : slice_last(u, rotated, half, dim);
  ValueId real = u.op("Sub", {u.op("Mul", {cos, x1}), u.op("Mul", {sin, x2})});
  ValueId imag = u.op("Add", {u.op("Mul", {sin, x1}), u.op("Mul", {cos, x2})});
  std::vector<ValueId> parts;
  if (interleaved) {
    std::vector<int64_t> pairs = work;
    pairs.back() = half;
    pairs.push_back(1);
    std::vector<int64_t> whole = work;
    whole.back() = dim;
    parts.push_back(
        u.reshape(u.concat({u.reshape(real, pairs), u.reshape(imag, pairs)}, -1), whole));
  } else {
    parts = {real, imag};
  }
  if (dim < head_size) parts.push_back(slice_last(u, x, dim, head_size));
  const ValueId out = node.outputs.at(0);
  if (four_d) {
    u.concat(parts, -1, out);
  } else {
    ValueId y = u.concat(parts, -1);
    u.into(out, "Reshape", {y, u.ints(std::vector<int64_t>(x_shape.begin(), x_shape.end()))});
  }
  return std::move(u.nodes);
}

// Q, K or V as [B, heads, S, head_size]: a 3-D input [B, S, heads*head_size]
// is split into its heads.
ValueId as_heads(NodeSequence& u, ValueId v, const Shape& shape, int64_t heads, const char* what) {
  if (shape.size() == 4) return v;
  LATHE_CHECK(heads > 0 && shape[2] % heads == 0, "Attention ", what, " hidden size ", shape[2],
              " does not divide into ", heads, " heads (q_num_heads/kv_num_heads)");
  return u.transpose(u.reshape(v, {shape[0], shape[1], heads, shape[2] / heads}), {0, 2, 1, 3});
}

// Attention (opset 23): softmax(Q·Kᵀ·scale + mask) · V per head, with a key/
// value cache (past_key/past_value → present_key/present_value), grouped
// query heads, a causal mask aligned to the bottom right, and softcap.
std::vector<Node> expand_attention(const Node& node, const UpgradeHooks& hooks) {
  const Shape q_shape = float32_input(node, 0, hooks).shape;
  const Shape k_shape = float32_input(node, 1, hooks).shape;
  const Shape v_shape = float32_input(node, 2, hooks).shape;
  const size_t rank = q_shape.size();
  LATHE_CHECK((rank == 3 || rank == 4) && k_shape.size() == rank && v_shape.size() == rank,
              "Attention needs Q, K and V all 3-D or all 4-D");
  const int64_t batch = q_shape[0];
  const int64_t q_heads = rank == 4 ? q_shape[1] : node.attrs.get_int("q_num_heads", 0);
  const int64_t kv_heads = rank == 4 ? k_shape[1] : node.attrs.get_int("kv_num_heads", 0);
  LATHE_CHECK(q_heads > 0 && kv_heads > 0 && q_heads % kv_heads == 0, "Attention: ", q_heads,
              " query heads are not a multiple of ", kv_heads, " key/value heads");
  const int64_t head_size = rank == 4 ? q_shape[3] : q_shape[2] / q_heads;
  const int64_t q_length = rank == 4 ? q_shape[2] : q_shape[1];
  const int64_t mode = node.attrs.get_int("qk_matmul_output_mode", 0);
  const float softcap = node.attrs.get_float("softcap", 0.0f);
  // The modes between the product and the softmax were renumbered after
  // opset 23; the two that mean one thing in every version are taken.
  if (has_output(node, 3))
    LATHE_CHECK(mode == 3 || (mode == 0 && softcap <= 0), "Attention qk_matmul_output_mode ", mode,
                softcap > 0 ? " with softcap" : "",
                " is not supported (0 without softcap, "
                "and 3, are)");

  NodeSequence u(node.name, hooks);
  ValueId q = as_heads(u, required(node, 0), q_shape, q_heads, "Q");
  ValueId k = as_heads(u, required(node, 1), k_shape, kv_heads, "K");
  ValueId v = as_heads(u, required(node, 2), v_shape, kv_heads, "V");
  int64_t past_length = 0;
  if (has_input(node, 4) != has_input(node, 5))
    fail("Attention needs both past_key and past_value, or neither");
  if (has_input(node, 4)) {
    past_length = float32_input(node, 4, hooks).shape.at(2);
    float32_input(node, 5, hooks);
    k = u.concat({required(node, 4), k}, 2);
    v = u.concat({required(node, 5), v}, 2);
  }
  if (has_output(node, 1)) u.into(node.outputs[1], "Identity", {k});
  if (has_output(node, 2)) u.into(node.outputs[2], "Identity", {v});
  const int64_t kv_length = past_length + (rank == 4 ? k_shape[2] : k_shape[1]);
  const int64_t v_size = rank == 4 ? v_shape[3] : v_shape[2] / kv_heads;

  if (q_heads != kv_heads) {
    // Each key/value head serves q_heads/kv_heads consecutive query heads.
    const int64_t reps = q_heads / kv_heads;
    auto repeat = [&](ValueId t, int64_t size) {
      ValueId spread = u.reshape(t, {batch, kv_heads, 1, kv_length, size});
      spread = u.op("Expand", {spread, u.ints({batch, kv_heads, reps, kv_length, size})});
      return u.reshape(spread, {batch, q_heads, kv_length, size});
    };
    k = repeat(k, head_size);
    v = repeat(v, v_size);
  }

  const float scale = node.attrs.has("scale") ? node.attrs.get_float("scale", 1.0f)
                                              : 1.0f / std::sqrt(float(head_size));
  ValueId root_scale = u.scalar(std::sqrt(scale));
  ValueId scores = u.op("MatMul", {u.op("Mul", {q, root_scale}),
                                   u.transpose(u.op("Mul", {k, root_scale}), {0, 1, 3, 2})});
  if (has_output(node, 3) && mode == 0) u.into(node.outputs[3], "Identity", {scores});
  if (softcap > 0) {
    ValueId cap = u.scalar(softcap);
    scores = u.op("Mul", {u.op("Tanh", {u.op("Div", {scores, cap})}), cap});
  }

  // The additive bias: the mask (bool → 0 / -inf) padded to the key length
  // with -inf, plus the causal triangle.
  const float minus_inf = -std::numeric_limits<float>::infinity();
  ValueId bias = kNoValue;
  if (has_input(node, 3)) {
    const TensorType m = known_type(node, 3, hooks);  // a copy: adding values moves types
    ValueId mask = required(node, 3);
    if (m.dtype == DType::Bool) {
      mask = u.op("Where", {mask, u.scalar(0.0f), u.scalar(minus_inf)});
    } else {
      LATHE_CHECK(m.dtype == DType::Float32, "Attention attn_mask must be bool or float, got ",
                  dtype_name(m.dtype));
    }
    const int64_t pad = kv_length - m.shape.back();
    LATHE_CHECK(pad >= 0, "Attention attn_mask covers ", m.shape.back(), " keys, more than the ",
                kv_length, " there are");
    if (pad > 0) {
      Shape pad_shape = m.shape;
      pad_shape.back() = pad;
      Tensor fill(DType::Float32, pad_shape);
      for (int64_t i = 0; i < fill.numel(); ++i) fill.data<float>()[i] = minus_inf;
      mask = u.concat({mask, hooks.add_constant(node.name + "/mask_padding", std::move(fill))}, -1);
    }
    bias = mask;
  }
  if (node.attrs.get_int("is_causal", 0) != 0) {
    // Query i (of this block) sees key j when j <= i + past_length.
    Tensor causal(DType::Float32, {q_length, kv_length});
    for (int64_t i = 0; i < q_length; ++i)
      for (int64_t j = 0; j < kv_length; ++j)
        causal.data<float>()[i * kv_length + j] = j > i + past_length ? minus_inf : 0.0f;
    ValueId triangle = hooks.add_constant(node.name + "/causal", std::move(causal));
    bias = bias == kNoValue ? triangle : u.op("Add", {bias, triangle});
  }
  if (bias != kNoValue) scores = u.op("Add", {scores, bias});

  Attributes last;
  last.set("axis", int64_t{-1});
  ValueId probabilities = u.op("Softmax", {scores}, last);
  if (has_output(node, 3) && mode == 3) u.into(node.outputs[3], "Identity", {probabilities});
  const ValueId out = node.outputs.at(0);
  if (rank == 4) {
    u.into(out, "MatMul", {probabilities, v});
  } else {
    ValueId heads = u.transpose(u.op("MatMul", {probabilities, v}), {0, 2, 1, 3});
    u.into(out, "Reshape", {heads, u.ints({batch, q_length, q_heads * v_size})});
  }
  return std::move(u.nodes);
}

}  // namespace

bool is_attention_op(const std::string& op) {
  return op == "Attention" || op == "RotaryEmbedding";
}

std::vector<Node> expand_attention_op(const Node& node, const UpgradeHooks& hooks) {
  if (node.op == "RotaryEmbedding") return expand_rotary_embedding(node, hooks);
  return expand_attention(node, hooks);
}

}  // namespace lathe::onnx_frontend
