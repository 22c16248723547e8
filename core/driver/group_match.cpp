#include "driver/group_match.h"

#include <map>
#include <numeric>
#include <variant>

#include "passes/external_codegen.h"

namespace lathe::driver {

std::vector<std::pair<std::string, std::vector<std::string>>> group_nodes(
    const CompiledGraph& compiled) {
  const Graph& graph = compiled.optimized.graph;
  std::vector<std::pair<std::string, std::vector<std::string>>> result;
  for (const passes::FusedGroup& group : compiled.optimized.groups) {
    std::vector<std::string> names;
    for (int n : group.nodes) {
      const Node& node = graph.nodes[static_cast<size_t>(n)];
      if (node.op == passes::kExternalCallOp) {
        const auto it = node.attrs.all().find("nodes");
        if (it == node.attrs.all().end()) continue;
        for (const std::string& claimed : std::get<std::vector<std::string>>(it->second))
          names.push_back(claimed);
      } else {
        names.push_back(node.name);
      }
    }
    result.emplace_back(group.name, std::move(names));
  }
  return result;
}

namespace {

// Union-find over the executor nodes of both builds.
class DisjointSets {
 public:
  explicit DisjointSets(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    // The smaller index stays the root, so a set is ordered by its first member.
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<size_t> parent_;
};

}  // namespace

std::vector<MatchedGroups> match_groups(const CompiledGraph& first, const CompiledGraph& second) {
  const auto a = group_nodes(first), b = group_nodes(second);
  DisjointSets sets(a.size() + b.size());
  // The first executor node (of either build) seen computing each graph node.
  std::map<std::string, size_t> owner;
  auto link = [&](const std::vector<std::pair<std::string, std::vector<std::string>>>& groups,
                  size_t offset) {
    for (size_t g = 0; g < groups.size(); ++g)
      for (const std::string& node : groups[g].second) {
        auto [it, added] = owner.try_emplace(node, offset + g);
        if (!added) sets.unite(it->second, offset + g);
      }
  };
  link(a, 0);
  link(b, a.size());
  std::vector<MatchedGroups> matches;
  std::map<size_t, size_t> match_of_root;
  for (size_t i = 0; i < a.size() + b.size(); ++i) {
    auto [it, added] = match_of_root.try_emplace(sets.find(i), matches.size());
    if (added) matches.emplace_back();
    MatchedGroups& match = matches[it->second];
    if (i < a.size())
      match.first.push_back(a[i].first);
    else
      match.second.push_back(b[i - a.size()].first);
  }
  return matches;
}

}  // namespace lathe::driver
