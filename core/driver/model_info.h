// What `lathe inspect` and the studio's node table show about a model:
// inputs, outputs, op histogram, parameters and multiply-accumulates.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace lathe::driver {

struct NodeInfo {
  std::string name;
  std::string op;
  std::string fusion_kind;          // TVM pattern kind
  std::vector<std::string> inputs;  // "%name : float32[...]"
  std::vector<TensorType> output_types;
  int64_t macs = 0;
  int64_t flops = 0;  // ir/node_cost.h: 2 per MAC, else one per output element
};

struct ModelInfo {
  std::vector<std::pair<std::string, TensorType>> inputs;
  std::vector<std::pair<std::string, TensorType>> outputs;
  std::map<std::string, int> op_histogram;
  int64_t parameter_count = 0;  // elements of constants the nodes read
  int64_t parameter_bytes = 0;
  int64_t total_macs = 0;
  int64_t total_flops = 0;
  std::vector<NodeInfo> nodes;
};

ModelInfo inspect_graph(const Graph& graph);
// The report `lathe inspect` prints.
std::string format_model_info(const ModelInfo& info);

}  // namespace lathe::driver
