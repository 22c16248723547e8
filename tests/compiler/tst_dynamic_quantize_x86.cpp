// DynamicQuantizeLinear's x86 template (topi/dynamic_quantize_x86.cpp): its
// min/max reductions split into vectors of partial results and the
// quantization in parallel vectors give exactly the reference executor's
// quantized values, scale and zero point, on pseudo-random inputs whose last
// axis does and does not divide into 16 lanes, with the min and max placed
// anywhere (first, last and middle elements).
#include <QtTest>

#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "reference/executor.h"

using namespace lathe;

namespace {

Tensor random_floats(Shape shape, uint32_t seed) {
  Tensor t(DType::Float32, std::move(shape));
  uint32_t s = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(static_cast<int>((s >> 8) % 2001) - 1000) / 97.0f;
  }
  return t;
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

}  // namespace

class TestDynamicQuantizeX86 : public QObject {
  Q_OBJECT

 private slots:
  void agreesWithReference_data() {
    QTest::addColumn<int>("index");
    QTest::newRow("[1, 64, 512], min first, max last") << 0;
    QTest::newRow("[3, 32], extremes in the middle") << 1;
    QTest::newRow("[5, 7], no whole vector") << 2;
    QTest::newRow("[2, 3, 20], a partial vector") << 3;
  }

  void agreesWithReference() {
    QFETCH(int, index);
    const Shape shapes[] = {{1, 64, 512}, {3, 32}, {5, 7}, {2, 3, 20}};
    const Shape& shape = shapes[index];
    Tensor x = random_floats(shape, 17 + static_cast<uint32_t>(index));
    const int64_t n = x.numel();
    const int64_t lo_at = index == 0 ? 0 : n / 2 + 1, hi_at = index == 0 ? n - 1 : n / 2;
    x.data<float>()[lo_at] = -23.5f;
    x.data<float>()[hi_at] = 41.25f;

    lathe::testing::GraphBuilder b;
    const ValueId in = b.input("x", shape);
    const std::vector<ValueId> outs = b.node_n("DynamicQuantizeLinear", "dql", {in}, {}, 3);
    const Graph g = b.finish(outs);
    const std::vector<Tensor> expected = reference::Executor(g).run({{"x", x}});

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(g, options);
    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    exec.set_input(exec.input_name(0), x.raw(), x.nbytes());
    exec.run();
    QCOMPARE(values<uint8_t>(driver::from_ndarray(exec.output(0))), values<uint8_t>(expected[0]));
    QCOMPARE(values<float>(driver::from_ndarray(exec.output(1))), values<float>(expected[1]));
    QCOMPARE(values<uint8_t>(driver::from_ndarray(exec.output(2))), values<uint8_t>(expected[2]));
    // The range the reference found is the planted one: the reductions saw every element.
    QCOMPARE(expected[1].data<float>()[0], (41.25f + 23.5f) / 255.0f);
  }
};

QTEST_APPLESS_MAIN(TestDynamicQuantizeX86)
#include "tst_dynamic_quantize_x86.moc"
