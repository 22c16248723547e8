#include "passes/fuse_ops.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

using Kind = FusionKind;

// Pattern kinds are ordered from most to least fusable, as TVM's.
bool at_most(Kind a, Kind b) {
  return static_cast<int>(a) <= static_cast<int>(b);
}
Kind combine(Kind a, Kind b) {
  return at_most(a, b) ? b : a;
}

// TVM caps a group's size so that kernels stay compilable.
constexpr int kMaxFusedNodes = 256;

// Ops whose output reads each input element many times where it is larger
// (an upsampling: a linear 2-D Resize's output element reads 4 of them):
// fused into one, a producer's work is redone for every read.
bool expands_its_input(const std::string& op) {
  return op == "Resize" || op == "Upsample" || op == "Expand" || op == "Tile";
}
// From this many output elements per producer element on, an expanding
// sink does not take the producer in: LR-ASPP's 8x bilinear upsampling of
// the sum of two sliced blocked values recomputed the layout transforms, the
// slices and the Add for each of 4 taps per output, 2.7 ms, where the sum
// as a kernel of its own is 21 K elements.
constexpr int64_t kMinExpansion = 4;

struct Edge {
  int node;      // the consumer
  Kind pattern;  // the consumer's kind
};

class Fuser {
 public:
  explicit Fuser(const Graph& graph) : n_(static_cast<int>(graph.nodes.size())) {
    std::vector<std::vector<int>> consumers = value_consumers(graph);
    kinds_.resize(n_);
    edges_.resize(n_);
    is_output_.assign(n_, false);
    numel_.assign(n_, 0);
    for (int i = 0; i < n_; ++i) {
      const Node& node = graph.nodes[static_cast<size_t>(i)];
      kinds_[i] = op_kind(node.op);
      expands_.push_back(expands_its_input(node.op));
      if (!node.outputs.empty() && node.outputs[0] != kNoValue)
        numel_[i] = graph.type(node.outputs[0]).numel();
      for (ValueId out : node.outputs) {
        if (out == kNoValue) continue;
        if (is_graph_output(graph, out)) is_output_[i] = true;
        for (int c : consumers[static_cast<size_t>(out)])
          edges_[i].push_back({c, op_kind(graph.nodes[static_cast<size_t>(c)].op)});
      }
    }
    build_post_dominators();
    groups_.resize(n_);
    for (int i = 0; i < n_; ++i) {
      groups_[i].pattern = kinds_[i];
      if (kinds_[i] == Kind::OutEWiseFusable) groups_[i].master = i;
    }
  }

  // Per node, the root of its group.
  std::vector<int> run() {
    for (int phase = 0; phase < 2; ++phase) fuse(phase);
    std::vector<int> root(n_);
    for (int i = 0; i < n_; ++i) root[i] = find(i);
    return root;
  }

 private:
  struct Group {
    int parent = -1;
    Kind pattern = Kind::Opaque;
    int num_nodes = 1;
    int master = -1;  // the OutEWiseFusable node the group grew from
  };

  // The immediate post-dominator of each node in the graph read forward:
  // the nearest node every path from it to the graph's end passes through,
  // with the least fusable kind met on the way. A node producing a graph
  // output (or read by nobody) has none.
  void build_post_dominators() {
    dom_parent_.assign(n_, -1);
    dom_depth_.assign(n_, 1);
    dom_pattern_.assign(n_, Kind::ElemWise);
    for (int i = n_ - 1; i >= 0; --i) {
      if (is_output_[i] || edges_[i].empty()) continue;
      Kind pattern = edges_[i][0].pattern;
      int parent = edges_[i][0].node;
      for (size_t k = 1; k < edges_[i].size(); ++k) {
        parent = common_ancestor(parent, edges_[i][k].node, pattern);
        pattern = combine(pattern, edges_[i][k].pattern);
      }
      dom_parent_[i] = parent;
      dom_depth_[i] = parent < 0 ? 1 : dom_depth_[parent] + 1;
      dom_pattern_[i] = pattern;
    }
  }

  int common_ancestor(int a, int b, Kind& pattern) const {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (dom_depth_[a] < dom_depth_[b]) {
        pattern = combine(pattern, dom_pattern_[b]);
        b = dom_parent_[b];
      } else if (dom_depth_[a] > dom_depth_[b]) {
        pattern = combine(pattern, dom_pattern_[a]);
        a = dom_parent_[a];
      } else {
        pattern = combine(pattern, combine(dom_pattern_[a], dom_pattern_[b]));
        a = dom_parent_[a];
        b = dom_parent_[b];
      }
    }
    return a;
  }

  int find(int i) {
    int root = i;
    while (groups_[root].parent >= 0) root = groups_[root].parent;
    while (groups_[i].parent >= 0) {
      const int next = groups_[i].parent;
      groups_[i].parent = root;
      i = next;
    }
    return root;
  }

  void merge(int child, int parent) {
    child = find(child);
    parent = find(parent);
    if (child == parent) return;
    groups_[parent].num_nodes += groups_[child].num_nodes;
    groups_[child].parent = parent;
    if (groups_[child].master >= 0) {
      groups_[parent].master = groups_[child].master;
      groups_[parent].pattern = combine(groups_[child].pattern, groups_[parent].pattern);
    }
  }

  using Condition = std::function<bool(Kind, bool is_sink)>;

  // Whether every node on every path from src to sink (sink included, src
  // not) satisfies `ok` with the kind of the group it is in.
  bool check_paths(int src, int sink, const Condition& ok) {
    visited_.assign(n_, false);
    for (const Edge& e : edges_[src])
      if (!check_from(e.node, sink, ok)) return false;
    return true;
  }

  bool check_from(int v, int sink, const Condition& ok) {
    if (visited_[v]) return true;
    visited_[v] = true;
    if (!ok(groups_[find(v)].pattern, v == sink)) return false;
    if (v == sink) return true;
    for (const Edge& e : edges_[v])
      if (!check_from(e.node, sink, ok)) return false;
    return true;
  }

  // Merges every node on the paths from src to sink into sink's group.
  void commit(int src, int sink) {
    visited_.assign(n_, false);
    commit_from(src, sink);
  }

  void commit_from(int v, int sink) {
    if (v == sink || visited_[v]) return;
    visited_[v] = true;
    merge(v, sink);
    for (const Edge& e : edges_[v]) commit_from(e.node, sink);
  }

  int count_up_to(int v, int sink) {
    if (v == sink || visited_[v]) return 0;
    visited_[v] = true;
    int sum = groups_[v].num_nodes;
    for (const Edge& e : edges_[v]) sum += count_up_to(e.node, sink);
    return sum;
  }

  int fused_size_with(int child, int parent) {
    visited_.assign(n_, false);
    return groups_[find(parent)].num_nodes + count_up_to(child, parent);
  }

  // Phase 0 fuses OutEWiseFusable anchors with what follows them and
  // elementwise ops forward; phase 1 then fuses injective ops, so that a
  // convolution always finishes taking its epilogue first.
  void fuse(int phase) {
    for (int i = 0; i < n_; ++i) {
      const Kind own = groups_[i].pattern;
      const int sink = dom_parent_[i];
      if (own == Kind::Opaque || sink < 0) continue;
      if (find(i) == find(sink)) continue;
      if (fused_size_with(i, sink) > kMaxFusedNodes) continue;
      if (expands_[sink] && numel_[sink] >= kMinExpansion * numel_[i]) continue;
      const Kind path = dom_pattern_[i];
      if (own == Kind::OutEWiseFusable) {
        if (phase != 0 || !at_most(path, Kind::Broadcast)) continue;
        // An epilogue that broadcasts the anchor's output to more elements
        // (an SE block's gate conv, Sigmoid, then the Mul by the whole
        // activation) would recompute its per-element work for each of
        // them: the gate stays a kernel of its own.
        if (numel_[sink] > numel_[i]) continue;
        auto ok = [](Kind k, bool) { return at_most(k, Kind::Broadcast); };
        if (check_paths(i, sink, ok)) commit(i, sink);
      } else if (at_most(own, Kind::Broadcast)) {
        if (!at_most(path, Kind::Injective) && path != Kind::CommReduce) continue;
        // Parallel branches may be injective; the sink may already hold a
        // fused anchor.
        auto ok = [](Kind k, bool is_sink) {
          return is_sink ? k != Kind::Opaque : at_most(k, Kind::Injective);
        };
        if (check_paths(i, sink, ok)) commit(i, sink);
      } else if (own == Kind::Injective) {
        if (phase != 1) continue;
        if (!at_most(path, Kind::Injective) && path != Kind::CommReduce) continue;
        auto ok = [](Kind k, bool is_sink) {
          return at_most(k, Kind::Injective) || (is_sink && k == Kind::CommReduce);
        };
        if (check_paths(i, sink, ok)) commit(i, sink);
      }
    }
  }

  int n_;
  std::vector<Kind> kinds_;
  std::vector<std::vector<Edge>> edges_;
  std::vector<bool> is_output_;
  std::vector<int64_t> numel_;  // of each node's first output
  std::vector<bool> expands_;   // expands_its_input
  std::vector<int> dom_parent_, dom_depth_;
  std::vector<Kind> dom_pattern_;
  std::vector<Group> groups_;
  std::vector<bool> visited_;
};

}  // namespace

std::string snake_case_op(const std::string& op) {
  std::string out;
  for (size_t k = 0; k < op.size(); ++k) {
    const auto c = static_cast<unsigned char>(op[k]);
    const bool starts_word =
        std::isupper(c) && k > 0 && std::islower(static_cast<unsigned char>(op[k - 1])) &&
        k + 1 < op.size() && std::islower(static_cast<unsigned char>(op[k + 1]));
    if (starts_word) out += '_';
    // A domain's dots ("com.microsoft.QLinearAdd") would not make a PTX
    // identifier of the kernel's name, nor a C one.
    out += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '_';
  }
  return out;
}

std::vector<FusedGroup> fuse_ops(const Graph& graph) {
  const std::vector<int> root = Fuser(graph).run();
  const int n = static_cast<int>(graph.nodes.size());
  // Groups in the order of their last node.
  std::map<int, std::vector<int>> members;
  for (int i = 0; i < n; ++i) members[root[static_cast<size_t>(i)]].push_back(i);
  std::map<int, int> by_last;  // last node -> root
  for (const auto& [r, nodes] : members) by_last[nodes.back()] = r;

  std::vector<int> group_of(static_cast<size_t>(n), -1);
  std::vector<FusedGroup> groups;
  for (const auto& [last, r] : by_last) {
    FusedGroup g;
    g.id = static_cast<int>(groups.size());
    g.nodes = members[r];
    for (int i : g.nodes) group_of[static_cast<size_t>(i)] = g.id;
    groups.push_back(std::move(g));
  }

  const std::vector<std::vector<int>> consumers = value_consumers(graph);
  std::map<std::string, int> name_count;
  for (FusedGroup& g : groups) {
    for (Kind wanted : {Kind::OutEWiseFusable, Kind::CommReduce})
      for (int i : g.nodes)
        if (g.anchor < 0 && op_kind(graph.nodes[static_cast<size_t>(i)].op) == wanted) g.anchor = i;
    if (g.anchor < 0) g.anchor = g.nodes.back();
    g.kind = op_kind(graph.nodes[static_cast<size_t>(g.anchor)].op);

    std::string name = "fused";
    for (int i : g.nodes) name += "_" + snake_case_op(graph.nodes[static_cast<size_t>(i)].op);
    const int seen = name_count[name]++;
    g.name = seen == 0 ? name : name + "_" + std::to_string(seen);

    for (int i : g.nodes) {
      const Node& node = graph.nodes[static_cast<size_t>(i)];
      for (ValueId in : node.inputs) {
        if (in == kNoValue) continue;
        const int producer = graph.value(in).producer;
        const bool outside = producer < 0 || group_of[static_cast<size_t>(producer)] != g.id;
        if (outside && std::find(g.inputs.begin(), g.inputs.end(), in) == g.inputs.end())
          g.inputs.push_back(in);
      }
      for (ValueId out : node.outputs) {
        if (out == kNoValue) continue;
        bool read_outside = is_graph_output(graph, out);
        for (int c : consumers[static_cast<size_t>(out)])
          read_outside |= group_of[static_cast<size_t>(c)] != g.id;
        if (read_outside) g.outputs.push_back(out);
      }
    }
  }
  return groups;
}

}  // namespace lathe::passes
