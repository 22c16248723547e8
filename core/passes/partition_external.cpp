#include "passes/partition_external.h"

#include "passes/external_codegen.h"
#include "passes/graph_edit.h"
#include "support/error.h"

namespace lathe::passes {
namespace {

// The nodes of `pattern` starting at node `first`, or empty.
std::vector<int> match_chain(const Graph& graph, const std::vector<std::vector<int>>& consumers,
                             const std::vector<bool>& claimed, const ExternalPattern& pattern,
                             int first) {
  std::vector<int> chain;
  int n = first;
  for (size_t k = 0; k < pattern.ops.size(); ++k) {
    const Node& node = graph.nodes[static_cast<size_t>(n)];
    if (claimed[static_cast<size_t>(n)] || node.op != pattern.ops[k] || node.outputs.size() != 1)
      return {};
    chain.push_back(n);
    if (k + 1 == pattern.ops.size()) break;
    const ValueId out = node.outputs[0];
    const std::vector<int>& readers = consumers[static_cast<size_t>(out)];
    if (readers.size() != 1 || is_graph_output(graph, out)) return {};
    n = readers[0];
  }
  return chain;
}

}  // namespace

Graph partition_external(const Graph& input, const std::vector<std::string>& codegens) {
  Graph graph = input;
  std::vector<const ExternalCodegen*> selected;
  for (const std::string& name : codegens) {
    const ExternalCodegen* codegen = ExternalCodegenRegistry::global().find(name);
    if (!codegen) fail(str("no external codegen '", name, "' (load the plugin that provides it)"));
    selected.push_back(codegen);
  }
  const std::vector<std::vector<int>> consumers = value_consumers(graph);
  std::vector<bool> claimed(graph.nodes.size(), false);
  // The node each match's call replaces: its last, where all its inputs exist.
  std::vector<std::optional<Node>> replacement(graph.nodes.size());
  NameTable names(graph);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const ExternalCodegen* codegen : selected) {
      std::optional<ExternalCall> call;
      std::vector<int> chain;
      const ExternalPattern* matched = nullptr;
      for (const ExternalPattern& pattern : codegen->patterns) {
        chain = match_chain(graph, consumers, claimed, pattern, static_cast<int>(n));
        if (chain.empty()) continue;
        call = codegen->lower(graph, pattern, chain);
        if (call) {
          matched = &pattern;
          break;
        }
      }
      if (!call) continue;
      const Node& last = graph.nodes[static_cast<size_t>(chain.back())];
      const TensorType& type = graph.type(last.outputs[0]);
      Node node;
      node.name = names.node(codegen->name + "_" + matched->name + "_" + graph.nodes[n].name);
      node.op = kExternalCallOp;
      node.inputs = call->inputs;
      node.outputs = {last.outputs[0]};
      node.attrs.set("codegen", codegen->name);
      node.attrs.set("pattern", matched->name);
      node.attrs.set("params", call->params);
      node.attrs.set("function", codegen->runtime_symbol);
      node.attrs.set("library", codegen->runtime_library);
      node.attrs.set("dtype", std::string(dtype_name(type.dtype)));
      node.attrs.set("shape", type.shape);
      std::vector<std::string> claimed_names;
      for (int c : chain) claimed_names.push_back(graph.nodes[static_cast<size_t>(c)].name);
      node.attrs.set("nodes", std::move(claimed_names));
      for (int c : chain) claimed[static_cast<size_t>(c)] = true;
      replacement[static_cast<size_t>(chain.back())] = std::move(node);
      break;
    }
  }
  std::vector<Node> nodes;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (replacement[n])
      nodes.push_back(std::move(*replacement[n]));
    else if (!claimed[n])
      nodes.push_back(std::move(graph.nodes[n]));
  }
  graph.nodes = std::move(nodes);
  reset_producers(graph);
  graph.remove_unused_values();
  for (const ExternalCodegen* codegen : selected)
    if (codegen->finalize) codegen->finalize(graph);
  graph.verify();
  return graph;
}

}  // namespace lathe::passes
