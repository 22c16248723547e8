// The dnnl plugin (oneDNN as an external codegen) on the test zoo: the graph
// compiler hands Conv/Gemm/pool chains to it, tuning sees none of them, calls
// hand each other channels-last tensors, and the JIT-compiled graph and its
// package (whose mod.so links the plugin's runtime library) both match
// PyTorch within 1e-4.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "../test_models.h"
#include "driver/compiled_module.h"
#include "driver/executor.h"
#include "driver/graph_compiler.h"
#include "driver/group_match.h"
#include "driver/model_loader.h"
#include "driver/plugins.h"
#include "driver/tensor_files.h"
#include "ir/normalized_error.h"

using namespace lathe;

namespace {

struct Model {
  Graph graph;
  driver::NamedTensors io;  // the input, then PyTorch's output
};

Model load(const QString& name) {
  const QString dir = lathe::testing::test_models_dir();
  return {driver::load_model((dir + "/" + name + ".onnx").toStdString()),
          driver::read_npz_tensors((dir + "/" + name + ".io.npz").toStdString())};
}

Tensor run(runtime::GraphExecutor& exec, const Model& m) {
  const Tensor& input = m.io[0].second;
  exec.set_input(exec.input_name(0), input.raw(), input.nbytes());
  exec.run();
  return driver::from_ndarray(exec.output(0));
}

// Calls that read their source channels-last, from another dnnl call.
int channels_last_sources(const runtime::GraphModuleDesc& desc) {
  return static_cast<int>(
      std::count_if(desc.nodes.begin(), desc.nodes.end(), [](const runtime::GraphNode& n) {
        return n.external && n.external_params.find("\"src_nhwc\":true") != std::string::npos;
      }));
}

int external_nodes(const runtime::GraphModuleDesc& desc) {
  return static_cast<int>(
      std::count_if(desc.nodes.begin(), desc.nodes.end(), [](const runtime::GraphNode& n) {
        return n.external && n.func_name == "lathe_dnnl_functions";
      }));
}

}  // namespace

class TestDnnl : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
#ifdef LATHE_DNNL_MISSING
    QSKIP("the dnnl plugin is not built: " LATHE_DNNL_MISSING
          ", as packaging/install-deps.sh does, then configure the build again");
#endif
    QVERIFY(qgetenv("OMP_WAIT_POLICY").isEmpty());
    const driver::LoadedPlugin& dnnl = driver::load_plugin("dnnl");
    QCOMPARE(dnnl.codegens, std::vector<std::string>{"dnnl"});
    // oneDNN's OpenMP waits passively instead of spinning against Lathe's pool.
    QCOMPARE(qgetenv("OMP_WAIT_POLICY"), QByteArray("PASSIVE"));
  }

  void zooMatchesPyTorch_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("calls");  // the chains dnnl takes
    // Of those, the ones whose source another call hands over channels-last:
    // all but the first conv (the model's input) and the Gemm (after a Flatten).
    QTest::addColumn<int>("channels_last");
    // ResNet-18: 20 convolutions (8 of them with the residual Add and ReLU),
    // the max pool, the global average pool and the classifier's Gemm.
    QTest::newRow("resnet18") << "resnet18" << 23 << 21;
    QTest::newRow("mobilenet_v2") << "mobilenet_v2" << 54 << 52;
  }

  void zooMatchesPyTorch() {
    try {
      check_model();
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
  }

  // A package made with the plugin runs in a process that never loads it:
  // its mod.so brings the oneDNN kernels along.
  void packageRunsWithoutThePlugin() {
    const QString models = lathe::testing::test_models_dir();
    const QString tar = dir_.filePath("cli.tar"), out = dir_.filePath("out.npz");
    const QString lathe = qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe";
    QProcess compile;
    compile.start(lathe,
                  {"compile", models + "/resnet18.onnx", "--plugin", "dnnl", "--output", tar});
    QVERIFY(compile.waitForFinished(300000));
    QVERIFY2(compile.exitCode() == 0, compile.readAllStandardError().constData());
    QProcess run;
    run.start(lathe, {"run", tar, "--inputs", models + "/resnet18.io.npz", "--output", out});
    QVERIFY(run.waitForFinished(120000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    const driver::NamedTensors got = driver::read_npz_tensors(out.toStdString());
    const Model m = load("resnet18");
    const double error = normalized_error(got[0].second, m.io[1].second);
    QVERIFY2(error <= 1e-4, qPrintable(QString("lathe run: %1").arg(error)));

    // And in a C program that links liblathe_runtime.so only: no LLVM, no Qt,
    // no Lathe C++ but what mod.so brings (oneDNN's runtime library).
    const QString in = dir_.filePath("in.bin"), raw_out = dir_.filePath("out.bin");
    QFile input_file(in);
    QVERIFY(input_file.open(QIODevice::WriteOnly));
    const Tensor& input = m.io[0].second;
    input_file.write(static_cast<const char*>(input.raw()), static_cast<qint64>(input.nbytes()));
    input_file.close();
    QProcess c_program;
    c_program.start(LATHE_RUN_PACKAGE, {tar, in, raw_out});
    QVERIFY(c_program.waitForFinished(120000));
    QVERIFY2(c_program.exitCode() == 0, c_program.readAllStandardError().constData());
    QFile output_file(raw_out);
    QVERIFY(output_file.open(QIODevice::ReadOnly));
    const QByteArray bytes = output_file.readAll();
    Tensor from_c(m.io[1].second.type());
    QCOMPARE(static_cast<size_t>(bytes.size()), from_c.nbytes());
    std::memcpy(from_c.raw(), bytes.constData(), from_c.nbytes());
    const double c_error = normalized_error(from_c, m.io[1].second);
    QVERIFY2(c_error <= 1e-4, qPrintable(QString("lathe_run_package: %1").arg(c_error)));
  }

 private:
  void check_model() {
    QFETCH(QString, model);
    QFETCH(int, calls);
    QFETCH(int, channels_last);
    const Model m = load(model);
    const driver::CompiledGraph compiled = driver::compile_graph(m.graph);
    QCOMPARE(external_nodes(compiled.desc), calls);
    QCOMPARE(channels_last_sources(compiled.desc), channels_last);
    // Tuning (and the compiler's own kernels) see none of the claimed ops.
    for (const driver::KernelTask& task : compiled.tasks)
      for (const std::string& op : task.ops)
        QVERIFY2(op != "Conv" && op != "Conv2dNCHWc" && op != "Gemm",
                 qPrintable(QString::fromStdString(task.func_name)));

    driver::JitGraphModule jit(compiled, driver::Target::host());
    const double jit_error = normalized_error(run(jit.executor(), m), m.io[1].second);
    QVERIFY2(jit_error <= 1e-4, qPrintable(QString("JIT: %1").arg(jit_error)));

    const std::string tar = dir_.filePath(model + ".tar").toStdString();
    driver::export_package(compiled, driver::Target::host(), tar);
    driver::Package package(tar);
    QCOMPARE(external_nodes(package.executor().graph()), calls);
    const double package_error = normalized_error(run(package.executor(), m), m.io[1].second);
    QVERIFY2(package_error <= 1e-4, qPrintable(QString("package: %1").arg(package_error)));
  }

 private slots:
  // Lathe's own kernels when the codegen is not chosen.
  void withoutTheCodegenNothingIsClaimed() {
    const Model m = load("resnet18");
    driver::CompileOptions options;
    options.passes.external_codegens = std::vector<std::string>{};
    const driver::CompiledGraph compiled = driver::compile_graph(m.graph, options);
    QCOMPARE(external_nodes(compiled.desc), 0);
    QVERIFY(compiled.external_libraries.empty());
  }

  // Each call dnnl claims matches the Lathe group(s) that computed its chain
  // in the build without it: ResNet-18's 23 calls, each a match of its own
  // with its conv's (or pool's, or Gemm's) group, and every executor node of
  // both builds in exactly one match.
  void callsMatchLatheGroupsOfTheSameNodes() {
    const Model m = load("resnet18");
    driver::CompileOptions lathe_only;
    lathe_only.passes.external_codegens = std::vector<std::string>{};
    const driver::CompiledGraph lathe = driver::compile_graph(m.graph, lathe_only);
    const driver::CompiledGraph dnnl = driver::compile_graph(m.graph);
    std::map<std::string, bool> is_call;  // the dnnl build's nodes
    for (const runtime::GraphNode& node : dnnl.desc.nodes)
      if (node.op == "tvm_op") is_call[node.name] = node.external;
    std::map<std::string, int> seen;
    int call_matches = 0;
    for (const driver::MatchedGroups& match : driver::match_groups(lathe, dnnl)) {
      for (const std::string& g : match.first) ++seen["lathe:" + g];
      for (const std::string& g : match.second) ++seen["dnnl:" + g];
      const auto calls = std::count_if(match.second.begin(), match.second.end(),
                                       [&](const std::string& g) { return is_call.at(g); });
      if (calls == 0) continue;
      ++call_matches;
      QCOMPARE(calls, 1);
      QVERIFY2(!match.first.empty(), match.second.front().c_str());
      const std::string& group = match.first.front();
      QVERIFY2(
          group.find("conv2d") != std::string::npos || group.find("pool") != std::string::npos ||
              group.find("gemm") != std::string::npos || group.find("dense") != std::string::npos,
          group.c_str());
    }
    QCOMPARE(call_matches, 23);
    QCOMPARE(seen.size(), lathe.optimized.groups.size() + dnnl.optimized.groups.size());
    for (const auto& [node, times] : seen) QVERIFY2(times == 1, node.c_str());
  }
};

QTEST_GUILESS_MAIN(TestDnnl)
#include "tst_dnnl.moc"
