// TVM's graph-executor JSON (mod.json): the nodes in execution order, which of
// them are arguments, the graph outputs, and per output entry its data type,
// shape and storage. Read and written field by field as TVM does, so packages
// open in tools that read TVM's (Netron among them).
//
//   {"nodes": [{"op": "null", "name": "x", "inputs": []},
//              {"op": "tvm_op", "name": "fused_add", "inputs": [[0, 0, 0], [1, 0, 0]],
//               "attrs": {"func_name": "fused_add", "num_inputs": "2",
//                         "num_outputs": "1", "flatten_data": "0"}}, ...],
//   (a node an external codegen runs adds "external_params": "...")
//    "arg_nodes": [0, 1], "heads": [[2, 0, 0]],
//    "attrs": {"dltype": ["list_str", ["float32", ...]],
//              "storage_id": ["list_int", [0, 1, 2]],
//              "shape": ["list_shape", [[1, 4], ...]]},
//    "node_row_ptr": [0, 1, 2, 3]}
//
// Lathe adds host control flow (ir/control_flow.h), which TVM ran in its VM:
// a node whose attrs have "control_flow": "If" or "Loop" is run by the
// executor itself, over the graphs that "subgraphs" (indices into the
// top-level "subgraphs" array of nested descriptions, each with its "name")
// lists. Its func_name is the op's name; its inputs and outputs are the
// control-flow node's, in ir/control_flow.h's order.
//
// A package for a GPU adds what its kernels need to launch (TVM keeps this
// in the device module's function table): the target, and per kernel the
// grid, the block and the static shared memory its lowering recorded:
//   "target": "cuda -arch=sm_90",
//   "launches": {"fused_add": {"grid": [64, 1, 1], "block": [256, 1, 1],
//                              "shared_bytes": 0}, ...}
// A CPU package has neither key.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lathe::runtime {

// One output of one node: TVM's NodeEntry [node_id, index, version].
struct GraphEntryRef {
  uint32_t node_id = 0, index = 0, version = 0;
  bool operator==(const GraphEntryRef&) const = default;
};

struct GraphNode {
  std::string op;  // "null" (graph input or parameter) or "tvm_op" (a kernel call)
  std::string name;
  std::vector<GraphEntryRef> inputs;
  // tvm_op only: the kernel's symbol and its buffer counts.
  std::string func_name;
  uint32_t num_inputs = 0, num_outputs = 1;
  bool flatten_data = false;
  // An external codegen's call (attrs "external_params"): func_name is the
  // symbol of its runtime library's table (runtime/external_abi.h), and
  // these are the parameters its create() gets.
  bool external = false;
  std::string external_params;
  // Host control flow: "If" or "Loop", and its graphs (then and else, or the
  // body) as indices into GraphModuleDesc::subgraphs. Empty for a kernel call.
  std::string control_flow = {};
  std::vector<uint32_t> subgraphs = {};
  bool is_op() const { return op == "tvm_op"; }
};

// A GPU kernel's launch (codegen::GpuLaunch, as the runtime reads it).
struct KernelLaunch {
  std::array<int64_t, 3> grid{1, 1, 1};   // blockIdx.x/y/z extents
  std::array<int64_t, 3> block{1, 1, 1};  // threadIdx.x/y/z extents
  int64_t shared_bytes = 0;               // static shared memory, declared in the PTX
  bool operator==(const KernelLaunch&) const = default;
};

struct GraphModuleDesc {
  std::vector<GraphNode> nodes;  // in execution order; inputs refer to earlier nodes
  std::vector<uint32_t> arg_nodes;
  std::vector<GraphEntryRef> heads;
  std::vector<uint32_t> node_row_ptr;       // entry id of node i's first output; size nodes+1
  std::vector<std::string> dltype;          // per entry
  std::vector<std::vector<int64_t>> shape;  // per entry
  std::vector<int32_t> storage_id;          // per entry
  // The graphs control-flow nodes run, each a description of its own with
  // its own memory plan; `name` ("If_25/then") is a subgraph's, and prefixes
  // its parameters' names ("If_25/then/w") in the package's parameters.
  std::string name = {};
  std::vector<GraphModuleDesc> subgraphs = {};
  // A GPU package's target ("cuda -arch=sm_90") and its kernels' launches by
  // func_name; empty for the CPU.
  std::string target = {};
  std::map<std::string, KernelLaunch> launches = {};

  uint32_t entry_id(const GraphEntryRef& e) const { return node_row_ptr[e.node_id] + e.index; }
  uint32_t entry_id(uint32_t node_id, uint32_t index) const {
    return node_row_ptr[node_id] + index;
  }
  uint32_t num_entries() const { return node_row_ptr.empty() ? 0 : node_row_ptr.back(); }
};

// Recomputes node_row_ptr from the nodes' output counts ("null" nodes have one).
void finalize(GraphModuleDesc& desc);

// Checks what the executor relies on: inputs refer to earlier nodes' existing
// outputs, arg_nodes are "null" nodes, heads exist, the per-entry attributes
// have one value per entry, data types parse, control-flow nodes name
// subgraphs that exist, the subgraphs are valid, and every launch has
// extents of at least 1 (grid x below 2^31, y and z and the block's below
// 65536) and non-negative shared bytes. Throws Error naming the
// node/key (and the subgraph).
void validate(const GraphModuleDesc& desc);

// Pretty-printed JSON in TVM's layout (keys as TVM writes them).
std::string to_json(const GraphModuleDesc& desc);
// Throws Error naming the missing or malformed key and, for nodes, the node
// index and name. The result is validated.
GraphModuleDesc parse_graph_json(const std::string& text);

}  // namespace lathe::runtime
