// The whole graph pipeline on every test model: the optimized
// graph computes what the imported one does (normalized error <= 1e-5 on the
// reference executor), and on ResNet-18 fusion puts each blocked convolution
// with the ops after it and keeps every group consistent.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

#include "../test_models.h"
#include "frontend/onnx/onnx_import.h"
#include "ir/normalized_error.h"
#include "passes/pipeline.h"
#include "reference/executor.h"
#include "support/error.h"
#include "support/npz.h"
#include "support/timer.h"

using namespace lathe;

namespace {

QString models_dir() {
  return lathe::testing::test_models_dir();
}

// The float32 array `name` of an .npz file.
Tensor npz_float_array(const std::string& path, const std::string& name) {
  for (auto& [member, array] : read_npz(path)) {
    if (member != name) continue;
    if (array.descr != "<f4") throw Error(path + ": " + name + " is not float32");
    Tensor t(DType::Float32, array.shape);
    std::copy(array.data.begin(), array.data.end(), static_cast<char*>(t.raw()));
    return t;
  }
  throw Error(path + ": no array " + name);
}

struct LoadedModel {
  Graph graph;
  Tensor input;
};

LoadedModel load(const QString& model) {
  const std::string base = (models_dir() + "/" + model).toStdString();
  return {onnx_frontend::import_model_file(base + ".onnx"),
          npz_float_array(base + ".io.npz", "input")};
}

int count_op(const Graph& g, const std::string& op) {
  return static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; }));
}

// Every node in exactly one group; inputs and outputs as the graph says.
void check_groups(const Graph& g, const std::vector<passes::FusedGroup>& groups) {
  std::vector<int> group_of(g.nodes.size(), -1);
  for (const auto& grp : groups) {
    QVERIFY(!grp.nodes.empty());
    QVERIFY(std::is_sorted(grp.nodes.begin(), grp.nodes.end()));
    QVERIFY(std::find(grp.nodes.begin(), grp.nodes.end(), grp.anchor) != grp.nodes.end());
    for (int i : grp.nodes) {
      QCOMPARE(group_of[static_cast<size_t>(i)], -1);
      group_of[static_cast<size_t>(i)] = grp.id;
    }
  }
  QVERIFY(std::find(group_of.begin(), group_of.end(), -1) == group_of.end());
  std::set<std::string> names;
  for (const auto& grp : groups) {
    QVERIFY2(names.insert(grp.name).second, grp.name.c_str());
    std::set<ValueId> inputs(grp.inputs.begin(), grp.inputs.end());
    QCOMPARE(inputs.size(), grp.inputs.size());
    for (ValueId in : grp.inputs) {
      QVERIFY(in != kNoValue);
      const int p = g.value(in).producer;
      QVERIFY(p < 0 || group_of[static_cast<size_t>(p)] != grp.id);
      if (p >= 0) QVERIFY(group_of[static_cast<size_t>(p)] < grp.id);  // topological
    }
    for (ValueId out : grp.outputs) {
      const int p = g.value(out).producer;
      QCOMPARE(group_of[static_cast<size_t>(p)], grp.id);
      // Only the group's last node is read from outside.
      QCOMPARE(p, grp.nodes.back());
    }
    bool has_opaque = false;
    for (int i : grp.nodes) {
      const OpDef* op = OpRegistry::global().find(g.nodes[static_cast<size_t>(i)].op);
      has_opaque |= !op || op->kind == FusionKind::Opaque;
      // Inputs read from outside are listed.
      for (ValueId in : g.nodes[static_cast<size_t>(i)].inputs) {
        if (in == kNoValue) continue;
        const int p = g.value(in).producer;
        if (p < 0 || group_of[static_cast<size_t>(p)] != grp.id) QVERIFY(inputs.count(in));
      }
    }
    if (has_opaque) QCOMPARE(grp.nodes.size(), size_t{1});
  }
}

}  // namespace

class TestPassesModels : public QObject {
  Q_OBJECT

 private slots:
  void optimizedGraphMatchesOriginal_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"mlp", "transformer_block", "squeezenet1_1", "mobilenet_v2", "resnet18"})
      QTest::newRow(m) << QString(m);
  }

  void optimizedGraphMatchesOriginal() {
    QFETCH(QString, model);
    LoadedModel m = load(model);
    const std::string input_name = m.graph.value(m.graph.inputs[0]).name;
    Timer timer;
    passes::OptimizedGraph opt = passes::optimize_graph(m.graph);
    const double pass_ms = timer.milliseconds();
    opt.graph.verify();
    check_groups(opt.graph, opt.groups);

    timer.restart();
    const Tensor want = reference::Executor(m.graph).run({{input_name, m.input}})[0];
    const double ref_ms = timer.milliseconds();
    timer.restart();
    const Tensor got = reference::Executor(opt.graph).run({{input_name, m.input}})[0];
    const double opt_ms = timer.milliseconds();
    QCOMPARE(got.shape(), want.shape());
    const double err = normalized_error(got, want);
    qInfo(
        "%s: %zu nodes -> %zu nodes, %zu groups, %d Conv2dNCHWc, %d LayoutTransform; passes "
        "%.0f ms, reference run %.0f ms, optimized %.0f ms, normalized error %.2g",
        qPrintable(model), m.graph.nodes.size(), opt.graph.nodes.size(), opt.groups.size(),
        count_op(opt.graph, "Conv2dNCHWc"), count_op(opt.graph, "LayoutTransform"), pass_ms, ref_ms,
        opt_ms, err);
    QVERIFY2(err <= 1e-5, qPrintable(QString("normalized error %1 > 1e-5").arg(err)));
    // Nothing is left for the simplifier: BatchNormalization, Identity and
    // Dropout are gone, and every Conv is blocked.
    for (const char* op : {"BatchNormalization", "Identity", "Dropout", "Conv"})
      QVERIFY2(count_op(opt.graph, op) == 0, op);
  }

  void resnetConvolutionsFuseWithTheirEpilogue() {
    LoadedModel m = load("resnet18");
    passes::OptimizedGraph opt =
        passes::optimize_graph(m.graph, {.alter_layout = true,
                                         .record_snapshots = false,
                                         .vector_unit = {},
                                         .external_codegens = std::nullopt});
    const Graph& g = opt.graph;
    std::vector<int> group_of(g.nodes.size(), -1);
    for (const auto& grp : opt.groups)
      for (int i : grp.nodes) group_of[static_cast<size_t>(i)] = grp.id;
    std::vector<std::vector<int>> readers(g.values.size());
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (ValueId in : g.nodes[i].inputs)
        if (in != kNoValue) readers[static_cast<size_t>(in)].push_back(static_cast<int>(i));

    int convs = 0, fused = 0, beside_other_anchor = 0;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].op != "Conv2dNCHWc") continue;
      ++convs;
      const auto& grp = opt.groups[static_cast<size_t>(group_of[i])];
      QCOMPARE(grp.anchor, static_cast<int>(i));
      QCOMPARE(grp.kind, FusionKind::OutEWiseFusable);
      // The convolution's one reader, a Relu or the residual Add, is in its
      // group, unless (as in TVM) that Add already took the other
      // convolution of a downsampling block: two anchors never share a group.
      const std::vector<int>& next = readers[static_cast<size_t>(g.nodes[i].outputs[0])];
      QCOMPARE(next.size(), size_t{1});
      const Node& after = g.nodes[static_cast<size_t>(next[0])];
      QVERIFY2(after.op == "Relu" || after.op == "Add", after.op.c_str());
      const auto& next_group =
          opt.groups[static_cast<size_t>(group_of[static_cast<size_t>(next[0])])];
      if (next_group.id == grp.id) {
        QVERIFY2(grp.name.rfind("fused_conv2dnchwc_", 0) == 0, grp.name.c_str());
        ++fused;
      } else {
        QCOMPARE(after.op, std::string("Add"));
        QCOMPARE(g.nodes[static_cast<size_t>(next_group.anchor)].op, std::string("Conv2dNCHWc"));
        QCOMPARE(grp.nodes.size(), size_t{1});
        ++beside_other_anchor;
      }
    }
    QCOMPARE(fused, 17);
    QCOMPARE(beside_other_anchor, 3);  // the downsampling convolutions
    QCOMPARE(convs, 20);
    qInfo("resnet18: %zu groups", opt.groups.size());
  }
};

QTEST_GUILESS_MAIN(TestPassesModels)
#include "tst_passes_models.moc"
