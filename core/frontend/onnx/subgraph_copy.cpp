#include "frontend/onnx/subgraph_copy.h"

#include <set>

namespace lathe::onnx_frontend {
namespace {

void collect_defined(const onnx::GraphProto& g, std::set<std::string>& names) {
  for (const auto& v : g.input()) names.insert(v.name());
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& node : g.node()) {
    for (const std::string& out : node.output())
      if (!out.empty()) names.insert(out);
    for (const auto& a : node.attribute()) {
      if (a.has_g()) collect_defined(a.g(), names);
      for (const auto& sub : a.graphs()) collect_defined(sub, names);
    }
  }
}

class Renamer {
 public:
  Renamer(std::set<std::string> defined, std::string suffix)
      : defined_(std::move(defined)), suffix_(std::move(suffix)) {}

  void rename(onnx::GraphProto& g) const {
    for (auto& v : *g.mutable_input()) rename(*v.mutable_name());
    for (auto& v : *g.mutable_output()) rename(*v.mutable_name());
    for (auto& v : *g.mutable_value_info()) rename(*v.mutable_name());
    for (auto& t : *g.mutable_initializer()) rename(*t.mutable_name());
    for (auto& node : *g.mutable_node()) {
      if (!node.name().empty()) node.set_name(node.name() + suffix_);
      for (auto& in : *node.mutable_input()) rename(in);
      for (auto& out : *node.mutable_output()) rename(out);
      for (auto& a : *node.mutable_attribute()) {
        if (a.has_g()) rename(*a.mutable_g());
        for (auto& sub : *a.mutable_graphs()) rename(sub);
      }
    }
  }

 private:
  void rename(std::string& name) const {
    if (!name.empty() && defined_.count(name)) name += suffix_;
  }

  std::set<std::string> defined_;
  std::string suffix_;
};

}  // namespace

onnx::GraphProto renamed_copy(const onnx::GraphProto& graph, const std::string& suffix) {
  std::set<std::string> defined;
  collect_defined(graph, defined);
  onnx::GraphProto copy = graph;
  Renamer(std::move(defined), suffix).rename(copy);
  return copy;
}

}  // namespace lathe::onnx_frontend
