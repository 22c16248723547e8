// The rewrite rules simplify() applies until none fires, one file each. Each
// rewrites the graph in place, returns whether it changed anything, and leaves
// the graph valid (dropping the nodes it replaced).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/graph_edit.h"

namespace lathe::passes::rules {

bool remove_identities(Graph& graph);                   // simplify_identity.cpp
bool fold_batch_norm(Graph& graph);                     // simplify_batch_norm.cpp
bool batch_norm_to_scale_shift(Graph& graph);           // simplify_batch_norm.cpp
bool fold_scale_and_shift(Graph& graph);                // simplify_scale_shift.cpp
bool matmul_of_transpose_to_gemm(Graph& graph);         // simplify_matmul.cpp
bool pretranspose_constant_gemm_weights(Graph& graph);  // simplify_matmul.cpp
bool drop_zero_zero_points(Graph& graph);               // simplify_zero_points.cpp

// Sets input i of `node` to the constant `value`: in place when the old
// constant there has no other reader, else as a new constant named after the
// node and `role` ("weight", "bias"). `uses` is Graph::use_counts().
void set_constant_input(Graph& graph, Node& node, size_t i, Tensor value, const std::string& role,
                        const std::vector<int>& uses, NameTable& names);

// True when value `id` is read by exactly one node and is no graph output.
bool single_use(const Graph& graph, ValueId id, const std::vector<int>& uses);

}  // namespace lathe::passes::rules
