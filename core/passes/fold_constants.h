// Constant folding: a node whose inputs are all constants runs once, at
// compile time, on the reference kernels, and its outputs become constants.
// No size limit: this is what packs weights into the layouts later passes ask for.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph fold_constants(const Graph& graph);

}  // namespace lathe::passes
