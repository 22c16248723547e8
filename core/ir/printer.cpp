#include "ir/printer.h"

#include <sstream>

namespace lathe {

std::string print_graph(const Graph& graph) {
  std::ostringstream os;
  auto ref = [&](ValueId id) {
    return id == kNoValue ? std::string("none") : "%" + graph.value(id).name;
  };
  os << "graph \"" << graph.name << "\" {\n";
  for (ValueId id : graph.inputs)
    os << "  input " << ref(id) << " : " << graph.type(id).to_string() << "\n";
  std::vector<int> uses = graph.use_counts();
  for (size_t i = 0; i < graph.values.size(); ++i)
    if (graph.values[i].is_constant() && uses[i] > 0)
      os << "  const " << ref(static_cast<ValueId>(i)) << " : " << graph.values[i].type.to_string()
         << "\n";
  for (const Node& n : graph.nodes) {
    os << "  ";
    for (size_t k = 0; k < n.outputs.size(); ++k) os << (k ? ", " : "") << ref(n.outputs[k]);
    os << " = " << n.op << "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << ref(n.inputs[k]);
    os << ")";
    if (!n.attrs.empty()) {
      os << " {";
      bool first = true;
      for (const auto& [name, value] : n.attrs.all()) {
        os << (first ? "" : ", ") << name << "=" << attribute_to_string(value);
        first = false;
      }
      os << "}";
    }
    os << " :";
    for (size_t k = 0; k < n.outputs.size(); ++k)
      os << (k ? ", " : " ")
         << (n.outputs[k] == kNoValue ? "none" : graph.type(n.outputs[k]).to_string());
    os << "  # " << n.name << "\n";
  }
  for (ValueId id : graph.outputs) os << "  output " << ref(id) << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace lathe
