// Ops whose outputs share a reduction, one node per output read, for GPU
// targets.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// A LayerNormalization whose mean or inverse deviation is read too, a TopK
// whose values and indices both are, a MaxPool with its indices, a
// SoftmaxCrossEntropyLoss with its log-probabilities: one kernel of a GPU
// cannot write them all (its outputs are computed at the root, so the
// reduction they share would be computed again for every element, or one
// output would read another's writes from other blocks). Each such node
// becomes one copy per output that something reads, the copy writing that
// output alone; the reductions are computed once per kernel. Other nodes
// are left as they are.
Graph split_shared_outputs(const Graph& graph);

}  // namespace lathe::passes
