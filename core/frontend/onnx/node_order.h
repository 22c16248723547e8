// ONNX requires a graph's nodes in topological order, but not every writer
// keeps it (ONNX Runtime's float16 converter appends the Casts it inserts at
// the end), and ONNX Runtime runs such models. The importer sorts them first.
#pragma once

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

namespace lathe::onnx_frontend {

// Reorders `graph`'s nodes, and those of every subgraph (If's branches,
// Loop's body), so that each node follows the producers of its inputs and of
// the outer values its subgraphs read. The order is stable: nodes already in
// order stay where they are. `outer` holds the names visible from enclosing
// graphs. Nodes that wait on a value nothing produces (or on a cycle) keep
// their relative order at the end, where the importer reports them. Returns
// the number of nodes of `graph` itself that moved.
int sort_nodes_topologically(onnx::GraphProto& graph, const std::set<std::string>& outer = {});

// The names a subgraph reads from enclosing scopes: inputs of its nodes (and
// of theirs, recursively) that neither it nor a nested graph defines.
std::set<std::string> outer_names_read(const onnx::GraphProto& graph);

}  // namespace lathe::onnx_frontend
