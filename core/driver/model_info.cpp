#include "driver/model_info.h"

#include <iomanip>
#include <sstream>

#include "ir/node_cost.h"
#include "ir/op_registry.h"

namespace lathe::driver {

ModelInfo inspect_graph(const Graph& graph) {
  ModelInfo info;
  for (ValueId id : graph.inputs) info.inputs.emplace_back(graph.value(id).name, graph.type(id));
  for (ValueId id : graph.outputs) info.outputs.emplace_back(graph.value(id).name, graph.type(id));
  std::vector<int> uses = graph.use_counts();
  for (size_t i = 0; i < graph.values.size(); ++i) {
    const Value& v = graph.values[i];
    if (!v.is_constant() || uses[i] == 0) continue;
    info.parameter_count += v.type.numel();
    info.parameter_bytes += static_cast<int64_t>(v.constant.nbytes());
  }
  const OpRegistry& registry = OpRegistry::global();
  for (const Node& n : graph.nodes) {
    NodeInfo ni;
    ni.name = n.name;
    ni.op = n.op;
    for (ValueId in : n.inputs)
      ni.inputs.push_back(in == kNoValue
                              ? "none"
                              : "%" + graph.value(in).name + " : " + graph.type(in).to_string());
    for (ValueId out : n.outputs)
      ni.output_types.push_back(out == kNoValue ? TensorType{} : graph.type(out));
    if (const OpDef* op = registry.find(n.op))
      ni.fusion_kind = std::string(fusion_kind_name(op->kind));
    const NodeCost cost = node_cost(graph, n);
    ni.macs = cost.macs;
    ni.flops = cost.flops;
    info.total_macs += ni.macs;
    info.total_flops += ni.flops;
    ++info.op_histogram[n.op];
    info.nodes.push_back(std::move(ni));
  }
  return info;
}

namespace {

std::string human(double v, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T"};
  int p = 0;
  while (v >= 1000 && p < 4) {
    v /= 1000;
    ++p;
  }
  std::ostringstream os;
  os << std::fixed << std::setprecision(p ? 2 : 0) << v << " " << prefixes[p] << unit;
  return os.str();
}

}  // namespace

std::string format_model_info(const ModelInfo& info) {
  std::ostringstream os;
  os << "Inputs:\n";
  for (const auto& [name, type] : info.inputs)
    os << "  " << name << "  " << type.to_string() << "\n";
  os << "Outputs:\n";
  for (const auto& [name, type] : info.outputs)
    os << "  " << name << "  " << type.to_string() << "\n";
  os << "Operators (" << info.nodes.size() << " nodes):\n";
  for (const auto& [op, count] : info.op_histogram)
    os << "  " << std::left << std::setw(24) << op << std::right << std::setw(6) << count << "\n";
  os << "Parameters: " << info.parameter_count << " (" << human(info.parameter_count, "") << "), "
     << info.parameter_bytes << " bytes (" << human(info.parameter_bytes, "B") << ")\n";
  os << "MACs per node:\n";
  os << "  " << std::left << std::setw(36) << "node" << std::setw(22) << "op" << std::setw(28)
     << "output" << std::right << std::setw(16) << "MACs"
     << "\n";
  for (const NodeInfo& n : info.nodes) {
    if (n.macs == 0) continue;
    os << "  " << std::left << std::setw(36) << n.name << std::setw(22) << n.op << std::setw(28)
       << (n.output_types.empty() ? "" : n.output_types[0].to_string()) << std::right
       << std::setw(16) << n.macs << "\n";
  }
  os << "Total MACs: " << info.total_macs << " (" << human(info.total_macs, "MAC") << ")\n";
  return os.str();
}

}  // namespace lathe::driver
