// Pieces of the ONNX importer shared between its files; not part of the API.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace lathe::onnx_frontend {

// Converts a node's attributes and fills in the defaults ONNX's schema
// declares for its opset. Throws UnsupportedError for graph-valued attributes.
Attributes convert_attributes(const onnx::NodeProto& node, int opset, const std::string& base_dir);

// What an opset upgrade may ask of the importer while rewriting a node.
struct UpgradeHooks {
  std::function<ValueId(const std::string& name, Tensor value)> add_constant;
  std::function<ValueId(const std::string& name)> add_value;  // type inferred later
  std::function<const TensorType*(ValueId)> type_of;          // nullptr when unknown
  std::function<const Tensor*(ValueId)> constant_of;          // nullptr when not constant
};

// The type of a rewritten node's input i; throws naming the node when the
// input is omitted or its type is not known yet (newer_ops.cpp).
const TensorType& known_type(const Node& node, size_t i, const UpgradeHooks& hooks);
// A float32 or float64 constant holding `values` (signal_ops.cpp).
Tensor float_tensor(DType dtype, const std::vector<double>& values, Shape shape);

// Ops Lathe has no kernel for that upgrade_node rewrites into ones it has:
// those removed from the newest opset (Upsample → Resize), the recurrent
// layers (LSTM, GRU, RNN → their unrolled steps), Einsum and the signal ops (→ MatMuls, constants).
bool is_rewritten_op(const std::string& op);
// The shape-deciding inputs of a rewritten op, as OpDef::shape_inputs.
std::vector<int> legacy_shape_inputs(const std::string& op);

// LSTM, GRU and RNN unrolled over their sequence (recurrent_ops.cpp); the
// nodes write the layer's own output values.
bool is_recurrent_op(const std::string& op);
std::vector<Node> expand_recurrent(Node node, const UpgradeHooks& hooks);

// Einsum as transposes, sums and batched MatMuls (einsum.cpp).
std::vector<Node> expand_einsum(Node node, const UpgradeHooks& hooks);

// The signal ops (signal_ops.cpp): DFT and STFT as MatMuls with a constant
// cosine/sine matrix; the window generators and MelWeightMatrix as constants.
// Their lengths and sizes must be constants (signal_shape_inputs).
bool is_signal_op(const std::string& op);
std::vector<int> signal_shape_inputs(const std::string& op);
std::vector<Node> expand_signal_op(Node node, int opset, const UpgradeHooks& hooks);

// LpPool, GlobalLpPool, AffineGrid and CenterCropPad as compositions of ops
// Lathe has (image_ops.cpp); AffineGrid's size and CenterCropPad's shape
// must be constants.
bool is_image_op(const std::string& op);
std::vector<int> image_shape_inputs(const std::string& op);
std::vector<Node> expand_image_op(const Node& node, const UpgradeHooks& hooks);

// Attention and RotaryEmbedding (opset 23) as MatMuls, Softmax and
// elementwise nodes (attention_ops.cpp).
bool is_attention_op(const std::string& op);
std::vector<Node> expand_attention_op(const Node& node, const UpgradeHooks& hooks);

// Ops from opsets after 17 that Lathe expands into ones it has: Gelu, Mish,
// GroupNormalization, RMSNormalization (newer_ops.cpp).
bool is_newer_expanded_op(const std::string& op);
std::vector<Node> expand_newer_op(Node node, int opset, const UpgradeHooks& hooks);
// Whether Lathe implements the form that `op` took in `opset`, the newest
// opset after 17 that changed its meaning (opset_changes.h).
bool handles_newer_form(const std::string& op, int opset);
// Brings a newer form to the one Lathe's op takes (Resize's axes) and
// refuses what it lacks (Resize's antialias) by name.
Node upgrade_newer_form(Node node, int opset, const UpgradeHooks& hooks);

// Rewrites a node written for an older opset into the newest form Lathe's ops
// implement (attributes that became inputs, changed semantics). May return
// several nodes, to be imported in order, which write the node's own
// output values.
std::vector<Node> upgrade_node(Node node, int opset, const UpgradeHooks& hooks);

}  // namespace lathe::onnx_frontend
