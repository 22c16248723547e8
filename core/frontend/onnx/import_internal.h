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

// Rewrites a node written for an older opset into the newest form Lathe's ops
// implement (attributes that became inputs, changed semantics). May return
// several nodes, to be imported in order.
// Ops that no longer exist in the newest opset and that upgrade_node rewrites
// into ones that do (Upsample → Resize).
bool is_legacy_op(const std::string& op);
// The shape-deciding inputs of a legacy op, as OpDef::shape_inputs.
std::vector<int> legacy_shape_inputs(const std::string& op);

std::vector<Node> upgrade_node(Node node, int opset, const UpgradeHooks& hooks);

}  // namespace lathe::onnx_frontend
