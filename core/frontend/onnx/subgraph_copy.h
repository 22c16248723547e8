// A Loop body unrolled at import is imported once per iteration, each time
// into the one namespace of the importer: each copy renames what it defines.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace lathe::onnx_frontend {

// A copy of `graph` in which every name it defines (inputs, initializers,
// node outputs and node names, in nested subgraphs too) ends in `suffix`, and
// every reference to such a name follows; names it reads from enclosing
// scopes stay as they are.
onnx::GraphProto renamed_copy(const onnx::GraphProto& graph, const std::string& suffix);

}  // namespace lathe::onnx_frontend
