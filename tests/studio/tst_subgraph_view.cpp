// The graph view of a model with an If on a run-time condition: each branch
// drawn whole in a cluster of its own named after the node and the branch,
// its nodes inside it, and the If joined to each branch by dashed edges.
#include <onnx/onnx_pb.h>

#include <QtTest>
#include <algorithm>

#include "../frontend/onnx_model_writer.h"
#include "frontend/onnx/onnx_import.h"
#include "views/graph_layout.h"
#include "views/graph_view.h"

using namespace lathe;
using namespace lathe::testing;
using lathe::views::GraphLayout;

namespace {

// y = flag ? relu(x) + 1 : -x
Graph if_graph() {
  ModelWriter m(17, 8);
  m.input("x", {2, 3});
  m.input("flag", {}, onnx::TensorProto::BOOL);
  m.output("y", 2);
  m.floats("one", {1.f});
  auto* node = m.node("If", {"flag"}, {"y"});
  onnx::GraphProto* then_g = add_graph(node, "then_branch");
  m.node("Relu", {"x"}, {"rx"}, then_g);
  m.node("Add", {"rx", "one"}, {"sum"}, then_g);
  then_g->add_output()->set_name("sum");
  onnx::GraphProto* else_g = add_graph(node, "else_branch");
  m.node("Neg", {"x"}, {"negated"}, else_g);
  else_g->add_output()->set_name("negated");
  return onnx_frontend::import_model_bytes(m.bytes(), "if.onnx", ".");
}

}  // namespace

class TestSubgraphView : public QObject {
  Q_OBJECT

 private slots:
  void branchesAreDrawnInTheirOwnClusters() {
    const Graph g = if_graph();
    QCOMPARE(g.nodes.size(), size_t{1});
    const auto layout = std::make_shared<GraphLayout>(views::layout_graph(g));

    // Both branches, each in a cluster named after the If and the branch.
    QCOMPARE(layout->clusters.size(), size_t{2});
    std::vector<std::string> names;
    for (const auto& c : layout->clusters) {
      names.push_back(c.name);
      QCOMPARE(c.group, -1);
    }
    std::sort(names.begin(), names.end());
    QCOMPARE(names, (std::vector<std::string>{"y_node/else", "y_node/then"}));

    // Every node of a branch lies in its branch's cluster.
    for (const char* node : {"rx_node", "sum_node", "negated_node"}) {
      const int index = layout->find_node(node);
      QVERIFY2(index >= 0, node);
      const auto& ln = layout->nodes[static_cast<size_t>(index)];
      QCOMPARE(ln.graph_node, -1);
      const auto cluster =
          std::find_if(layout->clusters.begin(), layout->clusters.end(),
                       [&](const views::LayoutCluster& c) { return c.name == ln.subgraph; });
      QVERIFY2(cluster != layout->clusters.end(), ln.subgraph.c_str());
      QVERIFY2(cluster->box.contains(ln.box), node);
    }

    // The If hands x to each branch's input: one dashed edge per branch,
    // without a shape, from the If node.
    const int if_node = layout->find_node("y_node");
    QVERIFY(if_node >= 0);
    int into_branches = 0;
    for (const auto& e : layout->edges)
      if (e.from == if_node && e.label.empty()) {
        ++into_branches;
        QVERIFY(!layout->nodes[static_cast<size_t>(e.to)].subgraph.empty());
      }
    QCOMPARE(into_branches, 2);
    QVERIFY(layout->dot.find("style=dashed") != std::string::npos);

    views::GraphView view;
    view.resize(800, 600);
    view.setGraphLayout(layout);
    QCOMPARE(view.clusterItemCount(), 2);
    QCOMPARE(view.operatorItemCount(), 1);  // the If; its branches' nodes are the subgraphs'
    const QStringList shown = view.nodeNames();
    for (const char* node : {"y_node", "rx_node", "sum_node", "negated_node"})
      QVERIFY2(shown.contains(node), node);
    view.selectNode("sum_node");
    QCOMPARE(view.selectedNodeName(), QString("sum_node"));
  }
};

QTEST_MAIN(TestSubgraphView)
#include "tst_subgraph_view.moc"
