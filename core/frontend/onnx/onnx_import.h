// ONNX → graph IR. The importer checks the model with libonnx's checker and
// shape inference, fills attribute defaults from ONNX's schemas, rewrites
// older-opset forms into the newest one, infers static types with Lathe's op
// registry and folds shape computations. It reports every problem it finds at
// once, as a DiagnosticError; it never crashes on malformed input.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "frontend/onnx/input_shapes.h"
#include "ir/graph.h"

namespace lathe::onnx_frontend {

struct ImportOptions {
  // Overrides of graph-input shapes, as tvmc's --input-shapes.
  std::map<std::string, Shape> input_shapes;
  // The shapes of the arrays given for graph inputs (--inputs): they give the
  // model's symbolic dimensions their values (input_shapes.h); where one
  // contradicts the model's rank or fixed sizes, the import fails saying so,
  // or, with `unfitting_arrays_are_notes`, a note says it is left out.
  std::map<std::string, Shape> input_array_shapes;
  bool unfitting_arrays_are_notes = false;
  // Receives what the importer assumed for the user (a symbolic batch
  // dimension taken as 1), one sentence each.
  std::function<void(const std::string&)> note;
  // Graph inputs bound to fixed values: they become constants (TVM's freeze_params).
  std::map<std::string, Tensor> frozen_inputs;
  // Values for graph inputs, used only for those inputs that decide a shape
  // (Reshape's shape, Slice's starts ...): such an input is frozen to its
  // value, since the IR's shapes are static. Other inputs stay runtime inputs.
  std::map<std::string, Tensor> shape_input_values;
  // Nodes whose inputs are all constant are evaluated when their outputs are at
  // most this many elements (shape chains); larger constant work is left to the
  // constant-folding pass.
  int64_t fold_limit = 4096;
};

// The lowest and highest default-domain opsets the importer accepts. Opsets
// after 17 are checked node by node (frontend/onnx/opset_changes.h).
constexpr int kMinOpset = 7;
constexpr int kMaxOpset = 23;

Graph import_model_file(const std::string& path, const ImportOptions& options = {});
// `source` names the model in diagnostics; `base_dir` resolves external data.
Graph import_model_bytes(const std::string& bytes, const std::string& source,
                         const std::string& base_dir, const ImportOptions& options = {});

// The runtime inputs a model declares (graph inputs that are not initializers),
// in order, as ONNX's test data numbers them.
struct ModelInput {
  std::string name;
  bool is_tensor = true;  // false for sequences, maps and optionals
};
std::vector<ModelInput> model_inputs(const std::string& path);

// A serialized onnx.TensorProto (the .pb files of ONNX's test data) as a
// Tensor; its name goes to *name when given.
Tensor read_tensor_pb_file(const std::string& path, std::string* name = nullptr);

// Parses tvmc's --input-shapes syntax: "input:[1,3,224,224] mask:[1,64]" (entries
// separated by spaces or commas outside brackets).
std::map<std::string, Shape> parse_input_shapes(const std::string& text);

}  // namespace lathe::onnx_frontend
