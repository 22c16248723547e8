// If and Loop whose conditions are known only at run time: kept as control-
// flow nodes over subgraphs, run by the reference executor, by the compiled
// graph executor's host control flow and from a package, each against the
// model's meaning computed here; and refused, naming the node, where a
// static-shape IR cannot run them.
#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>

#include "../counting_device_api.h"
#include "../graph_builder.h"
#include "codegen/codegen.h"
#include "control_flow_models.h"
#include "driver/compiled_module.h"
#include "driver/gpu_module.h"
#include "driver/graph_compiler.h"
#include "frontend/onnx/onnx_import.h"
#include "onnx_model_writer.h"
#include "reference/executor.h"
#include "runtime/graph_json.h"
#include "runtime/package.h"
#include "support/error.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

using Inputs = std::map<std::string, Tensor>;

Tensor truth(bool value) {
  Tensor t(DType::Bool, {});
  t.data<bool>()[0] = value;
  return t;
}

void set_inputs(runtime::GraphExecutor& exec, const Inputs& inputs) {
  for (const auto& [name, t] : inputs) exec.set_input(name, t.raw(), t.nbytes());
}

std::vector<Tensor> outputs_of(runtime::GraphExecutor& exec) {
  std::vector<Tensor> outs;
  for (int k = 0; k < exec.num_outputs(); ++k) outs.push_back(driver::from_ndarray(exec.output(k)));
  return outs;
}

void expect_close(const Tensor& got, const Tensor& want, double tolerance, const QString& what) {
  QVERIFY2(got.shape() == want.shape(), qPrintable(what + ": shape differs"));
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.data<float>()[i], w = want.data<float>()[i];
    QVERIFY2(
        std::abs(g - w) <= tolerance,
        qPrintable(QString("%1: element %2 is %3, expected %4").arg(what).arg(i).arg(g).arg(w)));
  }
}

std::string import_error(const std::string& bytes, const onnx_frontend::ImportOptions& options) {
  try {
    onnx_frontend::import_model_bytes(bytes, "m.onnx", ".", options);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == op;
  return n;
}

}  // namespace

class TestControlFlow : public QObject {
  Q_OBJECT

 private slots:
  // The If stays, with both branches as subgraphs; the condition's input is
  // not frozen even when its value is given; every executor takes the
  // branch the condition says.
  void ifOnARunTimeConditionRunsEitherBranch() {
    onnx_frontend::ImportOptions options;
    options.shape_input_values["flag"] = truth(true);
    const Graph g = onnx_frontend::import_model_bytes(if_model(), "if.onnx", ".", options);
    QCOMPARE(g.inputs.size(), size_t{2});
    QCOMPARE(count_ops(g, "If"), 1);
    const Tensor x = random_tensor({2, 3}, 11);
    const driver::CompiledGraph compiled = driver::compile_graph(g);
    driver::JitGraphModule module(compiled, codegen::Target::host());
    for (bool flag : {true, false}) {
      const Inputs inputs = {{"x", x}, {"flag", truth(flag)}};
      const Tensor want = if_meaning(x, flag);
      const QString which = flag ? "then" : "else";
      expect_close(reference::Executor(g).run(inputs)[0], want, 1e-6, "reference, " + which);
      set_inputs(module.executor(), inputs);
      module.executor().run();
      expect_close(outputs_of(module.executor())[0], want, 1e-6, "compiled, " + which);
    }
    // Each branch's kernels say which subgraph they are in.
    bool then_kernel = false, else_kernel = false;
    for (const driver::KernelTask& task : driver::all_tasks(compiled)) {
      then_kernel |= task.func_name.rfind("y_node_then_", 0) == 0;
      else_kernel |= task.func_name.rfind("y_node_else_", 0) == 0;
    }
    QVERIFY(then_kernel && else_kernel);
  }

  // A Loop whose length depends on an input and on what its body computes.
  void loopOnARunTimeConditionCarriesItsValues() {
    const Graph g = onnx_frontend::import_model_bytes(loop_model(), "loop.onnx", ".");
    QCOMPARE(count_ops(g, "Loop"), 1);
    const Tensor x = random_tensor({2}, 12);
    driver::JitGraphModule module(driver::compile_graph(g), codegen::Target::host());
    for (int64_t n : {0, 1, 3, 100}) {
      const Inputs inputs = {{"n", Tensor::scalar(n)}, {"x", x}};
      const Tensor want = loop_meaning(x, n);
      const QString which = QString("n = %1").arg(n);
      expect_close(reference::Executor(g).run(inputs)[0], want, 1e-4, "reference, " + which);
      set_inputs(module.executor(), inputs);
      module.executor().run();
      expect_close(outputs_of(module.executor())[0], want, 1e-4, "compiled, " + which);
    }
  }

  // lathe compile -> lathe run: the package carries the subgraphs, their
  // kernels and parameters, and one build runs either branch.
  void packagesRunControlFlow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    struct Case {
      std::string bytes;
      std::vector<Inputs> inputs;
      std::vector<Tensor> wants;
    };
    const Tensor x = random_tensor({2, 3}, 13), v = random_tensor({2}, 14);
    const Case cases[] = {
        {if_model(),
         {{{"x", x}, {"flag", truth(true)}}, {{"x", x}, {"flag", truth(false)}}},
         {if_meaning(x, true), if_meaning(x, false)}},
        {loop_model(),
         {{{"n", Tensor::scalar(int64_t{2})}, {"x", v}},
          {{"n", Tensor::scalar(int64_t{50})}, {"x", v}}},
         {loop_meaning(v, 2), loop_meaning(v, 50)}},
    };
    int index = 0;
    for (const Case& c : cases) {
      const Graph g = onnx_frontend::import_model_bytes(c.bytes, "m.onnx", ".");
      const std::string tar = dir.filePath(QString("m%1.tar").arg(index++)).toStdString();
      driver::export_package(driver::compile_graph(g), codegen::Target::host(), tar);
      runtime::Package package(tar);
      for (size_t k = 0; k < c.inputs.size(); ++k) {
        set_inputs(package.executor(), c.inputs[k]);
        package.executor().run();
        expect_close(outputs_of(package.executor())[0], c.wants[k], 1e-4,
                     QString("package %1, run %2").arg(index).arg(k));
      }
    }
  }

  // On a device (a GPU's executor: here the host's memory behind the device
  // interface, with the host's compiled kernels) the subgraphs' storage is
  // the device's: a run copies the inputs in and the output out, and crosses
  // otherwise only for what the host decides on: an If's condition, a
  // Loop's trip count and each iteration's number, condition in and out.
  void controlFlowRunsOnADevice() {
    const Tensor x = random_tensor({2, 3}, 15), v = random_tensor({2}, 16);
    struct Case {
      std::string bytes;
      Inputs inputs;
      Tensor want;
      int to_device, to_host;  // copies of one run, set_input included
    };
    const int64_t trips = 3;
    const int iterations = [&] {  // the iterations the loop's condition allows
      for (int64_t i = 1; i <= trips; ++i) {
        if (loop_meaning(v, i).data<float>()[0] + loop_meaning(v, i).data<float>()[1] >= 50.f)
          return static_cast<int>(i);
      }
      return static_cast<int>(trips);
    }();
    const Case cases[] = {
        {if_model(), {{"x", x}, {"flag", truth(true)}}, if_meaning(x, true), 2, 2},
        {if_model(), {{"x", x}, {"flag", truth(false)}}, if_meaning(x, false), 2, 2},
        {loop_model(),
         {{"n", Tensor::scalar(trips)}, {"x", v}},
         loop_meaning(v, trips),
         2 + 2 * iterations,
         3 + iterations},
    };
    for (const Case& c : cases) {
      const Graph g = onnx_frontend::import_model_bytes(c.bytes, "m.onnx", ".");
      const driver::CompiledGraph compiled = driver::compile_graph(g);
      const codegen::CompiledModule module =
          codegen::jit_compile(driver::all_funcs(compiled), codegen::Target::host());
      auto device = std::make_shared<CountingDeviceAPI>();
      runtime::DeviceKernels kernels{
          device, [&module](const std::string& name) -> runtime::DeviceKernel {
            if (!module.has_kernel(name)) return {};
            runtime::KernelFunction f = module.kernel(name).function();
            return [f](void* const* args, size_t) { f(const_cast<void**>(args)); };
          }};
      runtime::GraphExecutor exec(compiled.desc, kernels, compiled.params);
      const int params_in = device->to_device;
      set_inputs(exec, c.inputs);
      exec.run();
      expect_close(outputs_of(exec)[0], c.want, 1e-4, "on the device");
      QCOMPARE(device->to_device - params_in, c.to_device);
      QCOMPARE(device->to_host, c.to_host);
    }
  }

  // For cuda the subgraphs' kernels are in the one PTX module with their
  // launches (the Loop's body computes its condition as a scalar: one
  // thread); the package's control-flow nodes run on the host between them.
  void controlFlowCompilesForCuda() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const driver::Target cuda = driver::Target::parse("cuda -arch=sm_90");
    int index = 0;
    for (const std::string& bytes : {if_model(), loop_model()}) {
      const Graph g = onnx_frontend::import_model_bytes(bytes, "m.onnx", ".");
      driver::CompileOptions options;
      options.target = cuda;
      const driver::CompiledGraph compiled = driver::compile_graph(g, options);
      const std::string tar = dir.filePath(QString("m%1.tar").arg(index++)).toStdString();
      const driver::GpuModule module = driver::export_gpu_package(compiled, cuda, tar);
      const runtime::GraphModuleDesc desc =
          runtime::parse_graph_json(runtime::read_package_members(tar).at("mod.json"));
      QCOMPARE(desc.subgraphs.size(), compiled.subgraphs.size());
      int sub_kernels = 0;
      for (const runtime::GraphModuleDesc& sub : desc.subgraphs)
        for (const runtime::GraphNode& node : sub.nodes) {
          if (!node.is_op()) continue;
          ++sub_kernels;
          QVERIFY2(desc.launches.count(node.func_name), node.func_name.c_str());
          QVERIFY2(module.ptx.find(".entry " + node.func_name) != std::string::npos,
                   node.func_name.c_str());
        }
      QVERIFY(sub_kernels >= 1);
      const QString ptxas = "/usr/local/cuda/bin/ptxas";
      if (!QFileInfo(ptxas).isExecutable()) continue;  // the text checks above stand
      const QString ptx = dir.filePath("m.ptx");
      QFile file(ptx);
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(QByteArray::fromStdString(module.ptx));
      file.close();
      QProcess process;
      process.start(ptxas, {"-arch=sm_90", ptx, "-o", dir.filePath("m.cubin")});
      QVERIFY(process.waitForFinished(120000));
      QVERIFY2(process.exitCode() == 0, qPrintable(process.readAllStandardError()));
    }
  }

  // Branches that give different shapes cannot follow one static-shape
  // graph: refused naming the node and the output. Given the condition's
  // value, the model is compiled for it instead, and says so.
  void branchesOfDifferentTypesAreRefused() {
    ModelWriter m(17, 8);
    m.input("x", {2, 3});
    m.input("flag", {}, onnx::TensorProto::BOOL);
    m.output("y", 2);
    auto* node = m.node("If", {"flag"}, {"y"});
    onnx::GraphProto* then_g = add_graph(node, "then_branch");
    m.node("Neg", {"x"}, {"same"}, then_g);
    then_g->add_output()->set_name("same");
    onnx::GraphProto* else_g = add_graph(node, "else_branch");
    set_int(m.node("Flatten", {"x"}, {"flat"}, else_g), "axis", 0);
    else_g->add_output()->set_name("flat");
    const std::string error = import_error(m.bytes(), {});
    QVERIFY2(error.find("'y_node' (If)") != std::string::npos, error.c_str());
    QVERIFY2(error.find("output 0 differs between the branches") != std::string::npos,
             error.c_str());
    QVERIFY2(error.find("float32[1,6]") != std::string::npos, error.c_str());

    onnx_frontend::ImportOptions options;
    options.shape_input_values["flag"] = truth(false);
    std::vector<std::string> notes;
    options.note = [&](const std::string& note) { notes.push_back(note); };
    const Graph g = onnx_frontend::import_model_bytes(m.bytes(), "m.onnx", ".", options);
    QCOMPARE(g.inputs.size(), size_t{1});
    QCOMPARE(count_ops(g, "If"), 0);
    QCOMPARE(notes.size(), size_t{1});
    QVERIFY2(notes[0].find("decides an If's branch") != std::string::npos, notes[0].c_str());
  }

  // A scan output of a loop whose length only the run knows has no static
  // shape: refused naming the node and the scan output.
  void scanOutputsOfARunTimeLoopAreRefused() {
    ModelWriter m(17, 8);
    m.input("n", {}, onnx::TensorProto::INT64);
    m.input("x", {2});
    m.output("acc", 1);
    m.output("rows", 2);
    auto* loop = m.node("Loop", {"n", "", "x"}, {"acc", "rows"});
    onnx::GraphProto* body = add_graph(loop, "body");
    ModelWriter::describe(body->add_input(), "i", {}, onnx::TensorProto::INT64);
    ModelWriter::describe(body->add_input(), "c", {}, onnx::TensorProto::BOOL);
    ModelWriter::describe(body->add_input(), "a", {2}, onnx::TensorProto::FLOAT);
    m.node("Identity", {"c"}, {"c2"}, body);
    m.node("Neg", {"a"}, {"a2"}, body);
    m.node("Abs", {"a"}, {"row"}, body);
    ModelWriter::describe(body->add_output(), "c2", {}, onnx::TensorProto::BOOL);
    ModelWriter::describe(body->add_output(), "a2", {2}, onnx::TensorProto::FLOAT);
    ModelWriter::describe(body->add_output(), "row", {2}, onnx::TensorProto::FLOAT);
    const std::string error = import_error(m.bytes(), {});
    QVERIFY2(error.find("acc_node (Loop)") != std::string::npos, error.c_str());
    QVERIFY2(error.find("scan output 'row'") != std::string::npos, error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestControlFlow)
#include "tst_control_flow.moc"
