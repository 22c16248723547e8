// The float rescale epilogue of a dynamic int8 MatMul (ORT's
// quantize_dynamic: MatMulInteger → Cast → Mul(scale_a * scale_b) → Add
// bias): the MatMulInteger's zero-point correction is inlined into the
// epilogue and each register tile of the int32 product is computed inside
// the epilogue's loops (topi/int8_strategy.cpp, matmul_integer_template;
// int8_schedule_x86.cpp, matmul_int8_tile_epilogue_template), so no whole
// int32 product is written and read again. The compiled group agrees with the reference
// executor on 1, 7 and 128 rows, uint8 and int8 A, per-tensor and
// per-column zero points.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "driver/kernel_workbench.h"
#include "int8_operands.h"
#include "reference/executor.h"
#include "tune/kernel_task.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

enum class BZero { None, PerTensor, PerColumn };

struct Case {
  int64_t rows = 0;
  bool int8_a = false;
  BZero b_zero = BZero::None;
  bool rows_first = false;  // A [rows, 1, K] (a sequence-first encoder) instead of [1, rows, K]
};

constexpr int64_t kDepth = 64, kColumns = 48;

// MatMulInteger(a, B, a_zero_point, b_zero_point?) → Cast → Mul → Add, the
// inputs to run it on.
Graph rescale_graph(const Case& c, std::vector<Tensor>& inputs) {
  GraphBuilder b;
  const DType a_type = c.int8_a ? DType::Int8 : DType::UInt8;
  const Shape a_shape = c.rows_first ? Shape{c.rows, 1, kDepth} : Shape{1, c.rows, kDepth};
  const ValueId a = b.input("a", a_shape, a_type);
  const ValueId a_zero = b.input("a_zero_point", {}, a_type);
  if (c.int8_a) {
    inputs = {random_tensor<int8_t>(a_shape, -128, 127, 7), Tensor::scalar<int8_t>(-3)};
  } else {
    inputs = {random_tensor<uint8_t>(a_shape, 0, 255, 7), Tensor::scalar<uint8_t>(131)};
  }
  std::vector<ValueId> mm = {
      a, b.constant("b", random_tensor<int8_t>({kDepth, kColumns}, -128, 127, 11)), a_zero};
  if (c.b_zero == BZero::PerTensor) mm.push_back(b.constant("bzp", Tensor::scalar<int8_t>(4)));
  if (c.b_zero == BZero::PerColumn)
    mm.push_back(b.constant("bzp", random_tensor<int8_t>({kColumns}, -5, 5, 13)));
  const ValueId product = b.node("MatMulInteger", "mmi", mm);
  const ValueId as_float = b.node("Cast", "cast", {product}, attrs_of({{"to", int64_t{1}}}));
  const ValueId scaled =
      b.node("Mul", "rescale", {as_float, b.constant("scale", Tensor::scalar<float>(0.0123f))});
  Tensor bias(DType::Float32, {kColumns});
  for (int64_t i = 0; i < kColumns; ++i) bias.data<float>()[i] = 0.25f * static_cast<float>(i - 20);
  const ValueId y = b.node("Add", "bias", {scaled, b.constant("bias", bias)});
  return b.finish({y});
}

}  // namespace

class TestMatMulIntegerEpilogue : public QObject {
  Q_OBJECT

 private slots:
  void epilogueReadsTheProduct_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<bool>("int8_a");
    QTest::addColumn<int>("b_zero");
    QTest::addColumn<bool>("rows_first");
    for (int rows : {1, 7, 128})
      for (bool int8_a : {false, true})
        for (BZero z : {BZero::None, BZero::PerTensor, BZero::PerColumn})
          for (bool rows_first : {false, true}) {
            const std::string name = std::to_string(rows) + " rows" +
                                     (rows_first ? " first, " : ", ") +
                                     (int8_a ? "int8" : "uint8") + " A, b zero point " +
                                     std::to_string(static_cast<int>(z));
            QTest::newRow(name.c_str()) << rows << int8_a << static_cast<int>(z) << rows_first;
          }
  }

  void epilogueReadsTheProduct() {
    QFETCH(int, rows);
    QFETCH(bool, int8_a);
    QFETCH(int, b_zero);
    QFETCH(bool, rows_first);
    const Case c{rows, int8_a, static_cast<BZero>(b_zero), rows_first};
    std::vector<Tensor> inputs;
    const Graph g = rescale_graph(c, inputs);
    std::map<std::string, Tensor> named = {{"a", inputs[0]}, {"a_zero_point", inputs[1]}};
    const Tensor expected = reference::Executor(g).run(named)[0];

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(g, options);

    // Structure: one kernel, the tensorized product with the correction
    // stage inlined into the float epilogue, its register tiles computed
    // inside the epilogue's loops.
    const passes::OptimizedGraph& optimized = compiled.optimized;
    const std::vector<tune::KernelTask> tasks =
        tune::extract_tasks(optimized.graph, optimized.groups);
    QCOMPARE(tasks.size(), size_t{1});
    const driver::KernelWorkbench bench(optimized.graph, optimized.groups, tasks[0],
                                        optimized.vector_unit);
    const std::string text = bench.default_schedule_text();
    QVERIFY2(text.find("tensorize") != std::string::npos, text.c_str());
    const std::string anchor = int8_a ? "s[matmulinteger]" : "s[matmulintegerpacked]";
    QVERIFY2(text.find(anchor + ".compute_inline()") != std::string::npos, text.c_str());
    const std::string product =
        int8_a ? "s[matmulinteger_product]" : "s[matmulintegerpacked_product]";
    QVERIFY2(text.find(product + ".compute_at(s[") != std::string::npos, text.c_str());

    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    for (size_t i = 0; i < inputs.size(); ++i)
      exec.set_input(exec.input_name(static_cast<int>(i)), inputs[i].raw(), inputs[i].nbytes());
    exec.run();
    const Tensor out = driver::from_ndarray(exec.output(0));
    QCOMPARE(out.shape(), expected.shape());
    // The same int32 product and float ops; only a fused multiply-add may
    // round the last bit differently.
    const std::vector<float> got = values<float>(out), want = values<float>(expected);
    for (size_t i = 0; i < want.size(); ++i)
      QVERIFY2(std::fabs(got[i] - want[i]) <= 1e-6f * std::max(1.0f, std::fabs(want[i])),
               qPrintable(QString("element %1: %2 vs %3").arg(i).arg(got[i]).arg(want[i])));
  }
};

QTEST_APPLESS_MAIN(TestMatMulIntegerEpilogue)
#include "tst_matmul_integer_epilogue.moc"
