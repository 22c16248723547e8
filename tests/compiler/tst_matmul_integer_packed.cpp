// The int8 dense packing pass (passes/pack_matmul_integer.h): MatMulInteger
// with a constant int8 B becomes MatMulIntegerPacked on a B packed at
// compile time. Every result is compared exactly with the reference
// executor running the graph before the pass (MatMulInteger's own
// definition), on pseudo-random operands: a dynamic a_zero_point (an input,
// as DynamicQuantizeLinear gives it), none, a per-column b_zero_point, a
// b_zero_point of zeros (dropped), rank 2 and 3 A. Shapes the packed form
// does not take (N not a multiple of 16, a uint8 B) stay MatMulInteger.
#include <QtTest>

#include <algorithm>
#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "int8_operands.h"
#include "passes/pack_matmul_integer.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

using namespace lathe::testing;

namespace {

std::map<std::string, Tensor> by_name(const Graph& g, const std::vector<Tensor>& inputs) {
  std::map<std::string, Tensor> named;
  for (size_t i = 0; i < inputs.size(); ++i) named[g.value(g.inputs[i]).name] = inputs[i];
  return named;
}

Tensor run_reference(const Graph& g, const std::vector<Tensor>& inputs) {
  return reference::Executor(g).run(by_name(g, inputs))[0];
}

struct Compiled {
  Tensor output;
  Graph optimized;
};

Compiled run_compiled(const Graph& g, const std::vector<Tensor>& inputs) {
  driver::CompileOptions options;
  options.passes.record_snapshots = false;
  const driver::CompiledGraph compiled = driver::compile_graph(g, options);
  driver::JitGraphModule module(compiled, options.target);
  runtime::GraphExecutor& exec = module.executor();
  for (size_t i = 0; i < inputs.size(); ++i)
    exec.set_input(exec.input_name(static_cast<int>(i)), inputs[i].raw(), inputs[i].nbytes());
  exec.run();
  return {driver::from_ndarray(exec.output(0)), compiled.optimized.graph};
}

enum class AZero { None, Input };
enum class BZero { None, Zeros, PerColumn };

struct Case {
  Shape a;  // [..., M, K]
  int64_t n = 0;
  AZero a_zero = AZero::Input;
  BZero b_zero = BZero::None;
};

// MatMulInteger(a, B constant, a_zero_point?, b_zero_point?); the inputs to run it on.
Graph matmul_graph(const Case& c, std::vector<Tensor>& inputs) {
  lathe::testing::GraphBuilder b;
  const int64_t k = c.a.back();
  const ValueId a = b.input("a", c.a, DType::UInt8);
  inputs = {random_tensor<uint8_t>(c.a, 0, 255, 7)};
  std::vector<ValueId> mm_inputs = {
      a, b.constant("b", random_tensor<int8_t>({k, c.n}, -128, 127, 11)), kNoValue, kNoValue};
  if (c.a_zero == AZero::Input) {
    mm_inputs[2] = b.input("a_zero_point", {}, DType::UInt8);
    inputs.push_back(Tensor::scalar<uint8_t>(131));
  }
  if (c.b_zero == BZero::Zeros) mm_inputs[3] = b.constant("bzp", Tensor(DType::Int8, {c.n}));
  if (c.b_zero == BZero::PerColumn)
    mm_inputs[3] = b.constant("bzp", random_tensor<int8_t>({c.n}, -5, 5, 13));
  while (mm_inputs.back() == kNoValue) mm_inputs.pop_back();
  const ValueId y = b.node("MatMulInteger", "mmi", mm_inputs);
  return b.finish({y});
}

}  // namespace

class TestMatMulIntegerPacked : public QObject {
  Q_OBJECT

 private slots:
  void packedAgreesWithMatMulInteger_data() {
    QTest::addColumn<int>("index");
    QTest::newRow("rank 2, dynamic a zero point") << 0;
    QTest::newRow("rank 3, dynamic a zero point, zeros b zero point") << 1;
    QTest::newRow("rank 3, no zero points") << 2;
    QTest::newRow("per-column b zero point") << 3;
    QTest::newRow("one row") << 4;
  }

  // The pass alone on the reference executor, then the compiled kernel:
  // both exactly MatMulInteger's result.
  void packedAgreesWithMatMulInteger() {
    QFETCH(int, index);
    const Case cases[] = {
        {{5, 24}, 48, AZero::Input, BZero::None},     {{2, 3, 64}, 32, AZero::Input, BZero::Zeros},
        {{2, 7, 16}, 16, AZero::None, BZero::None},   {{6, 12}, 32, AZero::Input, BZero::PerColumn},
        {{1, 1, 128}, 64, AZero::Input, BZero::None},
    };
    const Case& c = cases[index];
    std::vector<Tensor> inputs;
    const Graph g = matmul_graph(c, inputs);
    const Tensor expected = run_reference(g, inputs);

    const Graph packed = passes::pack_matmul_integer(g);
    QCOMPARE(count_op(packed, "MatMulInteger"), 0);
    QCOMPARE(count_op(packed, "MatMulIntegerPacked"), 1);
    const Node& node = *std::ranges::find_if(
        packed.nodes, [](const Node& n) { return n.op == "MatMulIntegerPacked"; });
    // ΣB only with an a_zero_point; a b_zero_point of zeros dropped.
    QCOMPARE(node.has_input(2), c.a_zero == AZero::Input);
    QCOMPARE(node.has_input(4), c.b_zero == BZero::PerColumn);
    const Tensor reference = run_reference(packed, inputs);
    QCOMPARE(reference.shape(), expected.shape());
    QCOMPARE(values<int32_t>(reference), values<int32_t>(expected));

    const Compiled compiled = run_compiled(g, inputs);
    QCOMPARE(count_op(compiled.optimized, "MatMulIntegerPacked"), 1);
    QCOMPARE(values<int32_t>(compiled.output), values<int32_t>(expected));
  }

  // N not a multiple of 16 and a uint8 B keep MatMulInteger (the generic
  // and the repacking computes), still exact.
  void unpackableShapesStay() {
    std::vector<Tensor> inputs;
    const Graph g = matmul_graph({{3, 8}, 20, AZero::Input, BZero::None}, inputs);
    QCOMPARE(count_op(passes::pack_matmul_integer(g), "MatMulIntegerPacked"), 0);
    const Compiled compiled = run_compiled(g, inputs);
    QCOMPARE(values<int32_t>(compiled.output), values<int32_t>(run_reference(g, inputs)));

    lathe::testing::GraphBuilder b;
    const ValueId a = b.input("a", {2, 4}, DType::UInt8);
    const ValueId y = b.node("MatMulInteger", "mmi",
                             {a, b.constant("b", random_tensor<uint8_t>({4, 16}, 0, 255, 3))});
    QCOMPARE(count_op(passes::pack_matmul_integer(b.finish({y})), "MatMulIntegerPacked"), 0);
  }

  // A packed B of the wrong shape is refused by inference, naming the op.
  void wrongPackedShapeIsRefused() {
    lathe::testing::GraphBuilder b;
    const ValueId a = b.input("a", {2, 8}, DType::UInt8);
    bool threw = false;
    try {
      b.node("MatMulIntegerPacked", "mmp",
             {a, b.constant("b", Tensor(DType::Int8, {1, 3, 16, 4}))});
    } catch (const lathe::Error& e) {
      threw = QString(e.what()).contains("MatMulIntegerPacked");
    }
    QVERIFY(threw);
  }
};

QTEST_APPLESS_MAIN(TestMatMulIntegerPacked)
#include "tst_matmul_integer_packed.moc"
