// Drops layout transforms that undo each other and merges duplicates: a
// LayoutTransform(A -> B) reading the output of a LayoutTransform(B -> A)
// lets its readers read the original value; transforms of one value into
// one layout become one. Then removes what became dead.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph cancel_layout_transforms(const Graph& graph);

}  // namespace lathe::passes
