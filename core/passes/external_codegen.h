// External codegens (bring your own codegen, as TVM's BYOC): a plugin names
// the fused chains of ops it runs faster than Lathe's kernels (composite
// patterns: Conv + bias + ReLU, Conv + Add + ReLU, Gemm + ReLU, pooling)
// and how to hand a match to its runtime library. partition_external turns
// each accepted match into one ExternalCall node, which fusion leaves alone,
// tuning never sees, and the graph executor runs through the library's
// table (runtime/external_abi.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace lathe::passes {

// A chain of ops in dataflow order: each node's only output is read by the
// next node only (and is no graph output).
struct ExternalPattern {
  std::string name;  // "conv_add_relu"
  std::vector<std::string> ops;
};

// What the codegen makes of a match: the text its runtime's create() gets,
// and the values the kernel reads, in the order of its arguments.
struct ExternalCall {
  std::string params;
  std::vector<ValueId> inputs;
};

struct ExternalCodegen {
  std::string name;  // "dnnl"
  // Tried in order at each node, so longer chains go first.
  std::vector<ExternalPattern> patterns;
  // The call for `nodes` (a match of `pattern`), or nullopt to leave it to
  // Lathe (an attribute it does not support, weights that are no constants).
  std::function<std::optional<ExternalCall>(const Graph& graph, const ExternalPattern& pattern,
                                            const std::vector<int>& nodes)>
      lower;
  // Optional: sees the partitioned graph once all calls exist and may change
  // its own calls' "params" attribute, for what depends on neighbours (the
  // data layout two calls hand each other without leaving the codegen).
  std::function<void(Graph& graph)> finalize;
  // The library (path) exporting `runtime_symbol`, a LatheExternalEntry.
  std::string runtime_library;
  std::string runtime_symbol;
};

// Codegens by name; open to plugins while they load (core/plugin).
class ExternalCodegenRegistry {
 public:
  static ExternalCodegenRegistry& global();
  // Throws lathe::Error for a second codegen of the same name.
  void define(ExternalCodegen codegen);
  const ExternalCodegen* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<ExternalCodegen> codegens_;
};

// The op of the nodes partition_external makes. Attributes: codegen,
// pattern, params, function (the runtime symbol), library, nodes (the names
// of the nodes it replaced, which match it to the groups of a build without
// it: driver/group_match.h), and the output's dtype and shape, from which it
// infers.
inline constexpr const char* kExternalCallOp = "ExternalCall";

}  // namespace lathe::passes
