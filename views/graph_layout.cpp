// Graph IR -> DOT -> Graphviz `dot` layout (in lathe-layout-worker) -> plain
// geometry. The DOT text is the single description: the export and the
// layout can never disagree. No Qt here.
#include "views/graph_layout.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "ir/control_flow.h"
#include "ir/op_registry.h"
#include "support/error.h"
#include "support/program_files.h"
#include "support/timer.h"
#include "support/worker_process.h"
#include "views/dot_geometry.h"

namespace lathe::views {

namespace {

constexpr size_t kMaxConstantLines = 3;
// How often a layout waiting for its worker looks at its cancel flag.
constexpr int kCancelPollMs = 20;

// Measured on a 2-core machine (bench_layout): the 24-layer encoder's fused
// graph (1,106 nodes) takes 0.5 s with spline edges; DenseNet-121 (377 nodes,
// 911 edges whose spans add up to tens of thousands of ranks) ran for minutes,
// and finishes in about 0.8 s once dot's network-simplex and crossing
// searches are capped and its edges are straight: most of the time went into
// positioning and routing the spans' virtual nodes. Edge shapes are external
// labels (xlabel), placed after the layout, in either effort: as ordinary
// labels dot gives each one a rank of its own, which made the encoder 2 s.
constexpr int64_t kDetailedLayoutBudget = 6000;
constexpr const char* kBoundedLayoutAttributes =
    ", nslimit=0.1, nslimit1=0.1, mclimit=0.1, splines=false";

// A DOT quoted string; label line breaks are written by the caller as "\n".
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

std::string join_label(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += '\n';
    out += lines[i];
  }
  return out;
}

bool all_equal(const std::vector<int64_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
}

// "3×3", or "2" when every entry is the same.
std::string compact_ints(const std::vector<int64_t>& v, const char* separator, bool collapse) {
  if (collapse && !v.empty() && all_equal(v)) return std::to_string(v.front());
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += separator;
    out += std::to_string(v[i]);
  }
  return out;
}

bool any_not(const std::vector<int64_t>& v, int64_t value) {
  return std::any_of(v.begin(), v.end(), [value](int64_t x) { return x != value; });
}

// The attributes that tell one node of an op from another, on one line.
std::vector<std::string> attribute_lines(const Node& node) {
  const Attributes& a = node.attrs;
  std::vector<std::string> parts;
  if (a.has("kernel_shape"))
    parts.push_back("k " + compact_ints(a.get_ints("kernel_shape"), "×", false));
  if (a.has("strides") && any_not(a.get_ints("strides"), 1))
    parts.push_back("s " + compact_ints(a.get_ints("strides"), "×", true));
  if (a.has("pads") && any_not(a.get_ints("pads"), 0))
    parts.push_back("p " + compact_ints(a.get_ints("pads"), ",", true));
  if (a.has("dilations") && any_not(a.get_ints("dilations"), 1))
    parts.push_back("d " + compact_ints(a.get_ints("dilations"), "×", true));
  if (a.has("group") && a.get_int("group", 1) != 1)
    parts.push_back("g " + std::to_string(a.get_int("group", 1)));
  if (a.has("axis")) parts.push_back("axis " + std::to_string(a.get_int("axis", 0)));
  if (a.has("axes")) parts.push_back("axes " + compact_ints(a.get_ints("axes"), ",", false));
  if (a.has("perm")) parts.push_back("perm " + compact_ints(a.get_ints("perm"), ",", false));
  if (a.get_int("transA", 0) != 0) parts.push_back("transA");
  if (a.get_int("transB", 0) != 0) parts.push_back("transB");

  std::vector<std::string> lines;
  if (!parts.empty()) {
    std::string line;
    for (const std::string& part : parts) line += (line.empty() ? "" : "  ") + part;
    lines.push_back(line);
  }
  if (a.has("src_layout") && a.has("dst_layout"))
    lines.push_back(a.get_string("src_layout", "") + " → " + a.get_string("dst_layout", ""));
  return lines;
}

// Weights and other constants are not drawn as nodes: their shapes are listed
// in the reader's label ("W" and "B" for an anchor's weight and bias).
std::vector<std::string> constant_lines(const Graph& graph, const Node& node, OpCategory category) {
  std::vector<std::string> lines;
  size_t hidden = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!node.has_input(i)) continue;
    const Value& v = graph.value(node.inputs[i]);
    if (!v.is_constant()) continue;
    if (lines.size() == kMaxConstantLines) {
      ++hidden;
      continue;
    }
    std::string role = "const";
    if (category == OpCategory::Anchor && i == 1) role = "W";
    if (category == OpCategory::Anchor && i == 2) role = "B";
    lines.push_back(role + " " + shape_to_string(v.type.shape));
  }
  if (hidden) lines.push_back("+" + std::to_string(hidden) + " more");
  return lines;
}

struct EdgeSpec {
  int from;
  int to;
  ValueId value;      // in the model's graph; kNoValue inside a subgraph
  std::string label;  // the tensor's shape; empty for an edge into a subgraph
  bool dashed = false;
};

// Everything to_dot decides, kept so the layout can map Graphviz's ids back.
struct DotGraph {
  std::string text;
  std::vector<LayoutNode> nodes;
  std::vector<EdgeSpec> edges;
  // The subgraphs' clusters by path; a subgraph node's cluster is
  // cluster_<groups + k> for subgraphs[k].
  std::vector<std::string> subgraphs;
  LayoutEffort effort = LayoutEffort::Detailed;
};

// The ranks `dot` threads the edges through, estimated by longest paths from
// the sources: dot's cost follows the nodes plus one virtual node per rank an
// edge spans, not the node count (a dense-concat network's edges each span up
// to dozens of ranks). Edges come in the consumers' topological order, so one
// sweep settles the ranks; the loop only guards against any other order.
int64_t spanned_ranks(size_t nodes, const std::vector<EdgeSpec>& edges) {
  std::vector<int64_t> rank(nodes, 0);
  bool changed = true;
  for (size_t sweep = 0; changed && sweep < nodes; ++sweep) {
    changed = false;
    for (const EdgeSpec& e : edges) {
      int64_t& to = rank[static_cast<size_t>(e.to)];
      const int64_t from = rank[static_cast<size_t>(e.from)];
      if (to <= from) {
        to = from + 1;
        changed = true;
      }
    }
  }
  int64_t spans = 0;
  for (const EdgeSpec& e : edges)
    spans +=
        std::max<int64_t>(1, rank[static_cast<size_t>(e.to)] - rank[static_cast<size_t>(e.from)]);
  return spans;
}

// Adds `graph`'s nodes, inputs, outputs and edges to `dot`: the model's graph
// (`path` empty, node ids "n3", "in0", "out0") or a subgraph at `path`
// (ids prefixed "s<k>_"), then each control-flow node's subgraphs. Returns
// the index in dot.nodes of each graph input's node.
std::vector<int> add_graph(DotGraph& dot, const Graph& graph,
                           const std::vector<driver::FusedGroup>& groups, const std::string& path) {
  const std::string prefix =
      path.empty() ? "" : "s" + std::to_string(dot.subgraphs.size() - 1) + "_";
  const int n = static_cast<int>(graph.nodes.size());
  const int first = static_cast<int>(dot.nodes.size());
  std::vector<int> group_of(graph.nodes.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int node : groups[g].nodes)
      if (node >= 0 && node < n) group_of[static_cast<size_t>(node)] = static_cast<int>(g);

  for (int i = 0; i < n; ++i) {
    const Node& node = graph.nodes[static_cast<size_t>(i)];
    LayoutNode ln;
    ln.id = prefix + "n" + std::to_string(i);
    ln.name = node.name;
    ln.op = node.op;
    ln.category = op_category(node.op);
    ln.label.push_back(node.op);
    for (std::string& line : attribute_lines(node)) ln.label.push_back(std::move(line));
    for (std::string& line : constant_lines(graph, node, ln.category))
      ln.label.push_back(std::move(line));
    ln.graph_node = path.empty() ? i : -1;
    ln.group = group_of[static_cast<size_t>(i)];
    ln.subgraph = path;
    dot.nodes.push_back(std::move(ln));
  }
  std::vector<int> input_node(graph.values.size(), -1), inputs;
  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const Value& v = graph.value(graph.inputs[k]);
    LayoutNode ln;
    ln.id = prefix + "in" + std::to_string(k);
    ln.name = path.empty() ? v.name : path + "/" + v.name;
    ln.category = OpCategory::GraphInput;
    ln.label = {v.name, v.type.to_string()};
    ln.subgraph = path;
    input_node[static_cast<size_t>(graph.inputs[k])] = static_cast<int>(dot.nodes.size());
    inputs.push_back(static_cast<int>(dot.nodes.size()));
    dot.nodes.push_back(std::move(ln));
  }
  // The node a value comes from: its producer or the graph input node.
  auto source_of = [&](ValueId id) {
    const Value& v = graph.value(id);
    if (v.producer >= 0) return first + v.producer;
    return input_node[static_cast<size_t>(id)];
  };
  auto add_edge = [&](int from, int to, ValueId id) {
    dot.edges.push_back(
        {from, to, path.empty() ? id : kNoValue, shape_to_string(graph.type(id).shape)});
  };
  for (int i = 0; i < n; ++i) {
    const Node& node = graph.nodes[static_cast<size_t>(i)];
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (!node.has_input(k) || graph.value(node.inputs[k]).is_constant()) continue;
      const int from = source_of(node.inputs[k]);
      if (from >= 0) add_edge(from, first + i, node.inputs[k]);
    }
  }
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const Value& v = graph.value(graph.outputs[k]);
    LayoutNode ln;
    ln.id = prefix + "out" + std::to_string(k);
    ln.name = path.empty() ? v.name : path + "/" + v.name;
    ln.category = OpCategory::GraphOutput;
    ln.label = {v.name, v.type.to_string()};
    ln.subgraph = path;
    const int index = static_cast<int>(dot.nodes.size());
    dot.nodes.push_back(std::move(ln));
    const int from = source_of(graph.outputs[k]);
    if (from >= 0) add_edge(from, index, graph.outputs[k]);
  }
  for (int i = 0; i < n; ++i) {
    const Node& node = graph.nodes[static_cast<size_t>(i)];
    if (!is_control_flow(node)) continue;
    for (size_t k = 0; k < node.subgraphs.size(); ++k) {
      const std::string sub_path =
          (path.empty() ? "" : path + "/") + node.name + "/" + subgraph_role(node, k);
      dot.subgraphs.push_back(sub_path);
      const int sub_first = static_cast<int>(dot.nodes.size());
      std::vector<int> sub_inputs = add_graph(dot, *node.subgraphs[k], {}, sub_path);
      // The node hands its inputs to the subgraph's: a dashed edge to each,
      // or to the subgraph's first node when it takes none.
      if (sub_inputs.empty() && static_cast<int>(dot.nodes.size()) > sub_first)
        sub_inputs.push_back(sub_first);
      for (int to : sub_inputs) dot.edges.push_back({first + i, to, kNoValue, "", true});
    }
  }
  return inputs;
}

DotGraph build_dot(const Graph& graph, const std::vector<driver::FusedGroup>& groups) {
  DotGraph dot;
  add_graph(dot, graph, groups, "");

  dot.effort =
      spanned_ranks(dot.nodes.size(), dot.edges) + static_cast<int64_t>(dot.nodes.size()) <=
              kDetailedLayoutBudget
          ? LayoutEffort::Detailed
          : LayoutEffort::Bounded;
  std::ostringstream os;
  os << "digraph " << quoted(graph.name.empty() ? "graph" : graph.name) << " {\n"
     << "  graph [rankdir=TB, nodesep=0.3, ranksep=0.3, fontname=\"Helvetica\", fontsize=10"
     << (dot.effort == LayoutEffort::Bounded ? kBoundedLayoutAttributes : "") << "];\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, "
        "margin=\"0.12,0.04\", color=\"#555555\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6, color=\"#666666\"];\n";
  auto write_node = [&](const LayoutNode& ln, const char* indent) {
    os << indent << quoted(ln.id) << " [label=" << quoted(join_label(ln.label))
       << ", tooltip=" << quoted(ln.name) << ", fillcolor=\"" << op_category_color(ln.category)
       << "\"];\n";
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    os << "  subgraph " << quoted("cluster_" + std::to_string(g)) << " {\n"
       << "    label=" << quoted(groups[g].name)
       << "; style=\"rounded,filled\"; fillcolor=\"#f3efe4\"; color=\"#b0a583\"; fontsize=9;\n";
    for (const LayoutNode& ln : dot.nodes)
      if (ln.group == static_cast<int>(g)) write_node(ln, "    ");
    os << "  }\n";
  }
  for (size_t k = 0; k < dot.subgraphs.size(); ++k) {
    os << "  subgraph " << quoted("cluster_" + std::to_string(groups.size() + k)) << " {\n"
       << "    label=" << quoted(dot.subgraphs[k])
       << "; style=\"rounded,dashed\"; color=\"#7f7f7f\"; fontsize=9;\n";
    for (const LayoutNode& ln : dot.nodes)
      if (ln.subgraph == dot.subgraphs[k]) write_node(ln, "    ");
    os << "  }\n";
  }
  for (const LayoutNode& ln : dot.nodes)
    if (ln.group < 0 && ln.subgraph.empty()) write_node(ln, "  ");
  for (size_t e = 0; e < dot.edges.size(); ++e) {
    const EdgeSpec& spec = dot.edges[e];
    os << "  " << quoted(dot.nodes[static_cast<size_t>(spec.from)].id) << " -> "
       << quoted(dot.nodes[static_cast<size_t>(spec.to)].id) << " [id=\"e" << e << "\""
       << (spec.dashed ? ", style=dashed" : "") << ", xlabel=" << quoted(spec.label) << "];\n";
  }
  os << "}\n";
  dot.text = os.str();
  return dot;
}

// Sends the DOT text to a lathe-layout-worker and reads its geometry back;
// kills the worker and throws LayoutCancelled once `cancel` is set.
DotGeometry run_layout_worker(const std::string& dot, const std::atomic<bool>* cancel) {
  const std::string executable =
      find_program_file("lathe-layout-worker", "LATHE_LAYOUT_WORKER", ProgramFileKind::Helper);
  WorkerProcess worker(executable);
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  size_t sent = 0;
  std::string reply;
  char buffer[1 << 16];
  for (;;) {
    if (cancelled()) {
      worker.kill();
      throw LayoutCancelled();
    }
    pollfd fds[2] = {{worker.from_child(), POLLIN, 0}, {worker.to_child(), POLLOUT, 0}};
    const nfds_t count = worker.to_child() >= 0 ? 2 : 1;
    if (::poll(fds, count, kCancelPollMs) < 0 && errno != EINTR)
      fail(str("graph layout: poll: ", std::strerror(errno)));
    if (count == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const SigpipeBlocked no_sigpipe;  // a dead worker fails the write, not the studio
      const ssize_t n = ::write(worker.to_child(), dot.data() + sent, dot.size() - sent);
      if (n > 0) sent += static_cast<size_t>(n);
      if (sent == dot.size() || (n < 0 && errno != EAGAIN && errno != EINTR))
        worker.close_to_child();
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(worker.from_child(), buffer, sizeof buffer);
      if (n > 0) reply.append(buffer, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
    }
  }
  const std::string ended = worker.wait(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  if (reply.rfind("error: ", 0) == 0)
    fail(str("graph layout: ", reply.substr(7, reply.find_last_not_of('\n') - 6)));
  if (ended != "exited with status 0") fail(str("graph layout: lathe-layout-worker ", ended));
  return read_dot_geometry(reply);
}

}  // namespace

bool LayoutRect::contains(const LayoutRect& other) const {
  constexpr double kSlack = 0.5;  // Graphviz rounds boxes to whole points
  return other.x >= x - kSlack && other.y >= y - kSlack &&
         other.x + other.width <= x + width + kSlack &&
         other.y + other.height <= y + height + kSlack;
}

OpCategory op_category(const std::string& op) {
  if (op == "LayoutTransform") return OpCategory::Layout;
  const OpDef* def = OpRegistry::global().find(op);
  if (!def) return OpCategory::Opaque;
  switch (def->kind) {
    case FusionKind::OutEWiseFusable:
      return OpCategory::Anchor;
    case FusionKind::ElemWise:
    case FusionKind::Broadcast:
      return OpCategory::ElementWise;
    case FusionKind::Injective:
      return OpCategory::Injective;
    case FusionKind::CommReduce:
      return OpCategory::Reduction;
    case FusionKind::Opaque:
      return OpCategory::Opaque;
  }
  return OpCategory::Opaque;
}

std::string op_category_name(OpCategory category) {
  switch (category) {
    case OpCategory::Anchor:
      return "conv/dense anchor";
    case OpCategory::ElementWise:
      return "elementwise";
    case OpCategory::Injective:
      return "injective/shape";
    case OpCategory::Reduction:
      return "reduction";
    case OpCategory::Opaque:
      return "opaque";
    case OpCategory::Layout:
      return "layout transform";
    case OpCategory::GraphInput:
      return "graph input";
    case OpCategory::GraphOutput:
      return "graph output";
  }
  return "opaque";
}

std::string op_category_color(OpCategory category) {
  switch (category) {
    case OpCategory::Anchor:
      return "#f6b26b";
    case OpCategory::ElementWise:
      return "#a4c2f4";
    case OpCategory::Injective:
      return "#b6d7a8";
    case OpCategory::Reduction:
      return "#d5a6bd";
    case OpCategory::Opaque:
      return "#cccccc";
    case OpCategory::Layout:
      return "#ffe599";
    case OpCategory::GraphInput:
      return "#ffffff";
    case OpCategory::GraphOutput:
      return "#ffffff";
  }
  return "#cccccc";
}

int GraphLayout::find_node(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string to_dot(const Graph& graph, const std::vector<driver::FusedGroup>& groups) {
  return build_dot(graph, groups).text;
}

GraphLayout layout_graph(const Graph& graph, const std::vector<driver::FusedGroup>& groups,
                         const std::atomic<bool>* cancel) {
  const Timer timer;
  DotGraph dot = build_dot(graph, groups);
  const DotGeometry geometry = run_layout_worker(dot.text, cancel);
  GraphLayout layout;
  layout.nodes = std::move(dot.nodes);
  layout.width = geometry.upper_right.x - geometry.lower_left.x;
  layout.height = geometry.upper_right.y - geometry.lower_left.y;
  // Graphviz's y grows upwards from the bottom left.
  auto point = [&](DotPoint p) {
    return LayoutPoint{p.x - geometry.lower_left.x, geometry.upper_right.y - p.y};
  };

  std::unordered_map<std::string, const DotGeometry::Node*> placed;
  for (const DotGeometry::Node& node : geometry.nodes) placed[node.id] = &node;
  for (LayoutNode& ln : layout.nodes) {
    auto it = placed.find(ln.id);
    LATHE_CHECK(it != placed.end(), "graph layout: Graphviz lost node ", ln.id);
    const LayoutPoint centre = point(it->second->centre);
    const double w = it->second->width, h = it->second->height;
    ln.box = {centre.x - w / 2, centre.y - h / 2, w, h};
  }

  layout.edges.resize(dot.edges.size());
  for (const DotGeometry::Edge& edge : geometry.edges) {
    if (edge.index < 0 || edge.index >= static_cast<int>(dot.edges.size())) continue;
    LayoutEdge& le = layout.edges[static_cast<size_t>(edge.index)];
    const EdgeSpec& spec = dot.edges[static_cast<size_t>(edge.index)];
    le.from = spec.from;
    le.to = spec.to;
    le.value = spec.value;
    le.label = spec.label;
    for (const DotPoint& p : edge.points) le.points.push_back(point(p));
    le.has_arrow = edge.has_arrow;
    if (edge.has_arrow) le.arrow_tip = point(edge.arrow_tip);
    if (edge.has_label) le.label_pos = point(edge.label);
  }

  for (const DotGeometry::Cluster& c : geometry.clusters) {
    const int subgraph = c.group - static_cast<int>(groups.size());
    if (c.group < 0 || subgraph >= static_cast<int>(dot.subgraphs.size())) continue;
    LayoutCluster cluster;
    cluster.name = subgraph < 0 ? groups[static_cast<size_t>(c.group)].name
                                : dot.subgraphs[static_cast<size_t>(subgraph)];
    cluster.group = subgraph < 0 ? c.group : -1;
    const LayoutPoint top_left = point({c.lower_left.x, c.upper_right.y});
    cluster.box = {top_left.x, top_left.y, c.upper_right.x - c.lower_left.x,
                   c.upper_right.y - c.lower_left.y};
    cluster.label_pos = c.has_label
                            ? point(c.label)
                            : LayoutPoint{cluster.box.x + cluster.box.width / 2, cluster.box.y + 8};
    layout.clusters.push_back(std::move(cluster));
  }
  std::sort(layout.clusters.begin(), layout.clusters.end(),
            [](const LayoutCluster& a, const LayoutCluster& b) { return a.group < b.group; });

  layout.dot = std::move(dot.text);
  layout.effort = dot.effort;
  layout.milliseconds = timer.milliseconds();
  return layout;
}

}  // namespace lathe::views
