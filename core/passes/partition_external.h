// The BYOC partitioning pass: each chain of nodes that an external codegen's
// pattern matches and its lower() accepts becomes one ExternalCall node.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace lathe::passes {

// `codegens` names registered codegens (ExternalCodegenRegistry), tried in
// order; throws lathe::Error naming an unknown one.
Graph partition_external(const Graph& graph, const std::vector<std::string>& codegens);

}  // namespace lathe::passes
