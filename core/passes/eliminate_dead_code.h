// Dead-code elimination: nodes none of whose outputs reach a graph output go.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph eliminate_dead_code(const Graph& graph);

}  // namespace lathe::passes
