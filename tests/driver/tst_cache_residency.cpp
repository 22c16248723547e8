// The cache state tuning measures a model's kernels in (driver/cache_residency):
// what one inference touches, and warm or cold against the last-level cache.
#include <QtTest>

#include "../graph_builder.h"
#include "driver/cache_residency.h"
#include "passes/pipeline.h"

using namespace lathe;
using driver::CacheDecision;
using driver::ModelFootprint;
using tune::CacheFlush;

namespace {

// x[1,1000] -> MatMul W1[1000,512] -> Relu -> MatMul W2[512,10]: two
// kernels, weights 2 048 000 + 20 480 bytes; x (4 000 B) and the first
// kernel's output (2 048 B) are alive together while it runs, then that
// output and the model's (40 B).
Graph two_layer_mlp() {
  testing::GraphBuilder b;
  ValueId x = b.input("x", {1, 1000});
  ValueId w1 = b.constant("w1", testing::random_tensor({1000, 512}, 1));
  ValueId w2 = b.constant("w2", testing::random_tensor({512, 10}, 2));
  ValueId h = b.add("Relu", {b.add("MatMul", {x, w1})});
  return b.finish({b.add("MatMul", {h, w2})});
}

std::vector<CacheLevel> caches_with_last_level(int64_t bytes) {
  return {{1, 48 << 10, 2}, {2, 1 << 20, 2}, {3, bytes, 16}};
}

}  // namespace

class TestCacheResidency : public QObject {
  Q_OBJECT

 private slots:
  void footprintCountsWeightsOnceAndActivationsAlive() {
    const passes::OptimizedGraph optimized = passes::optimize_graph(two_layer_mlp());
    QCOMPARE(optimized.groups.size(), size_t{2});
    const ModelFootprint f = driver::model_footprint(optimized.graph, optimized.groups);
    QCOMPARE(f.weight_bytes, int64_t{(1000 * 512 + 512 * 10) * 4});
    QCOMPARE(f.activation_bytes, int64_t{(1000 + 512) * 4});
  }

  void warmWhenTheModelFitsInHalfTheLastLevel() {
    const passes::OptimizedGraph optimized = passes::optimize_graph(two_layer_mlp());
    const ModelFootprint f = driver::model_footprint(optimized.graph, optimized.groups);
    // 2.0 MB touched: warm within half of 32 MB, cold against half of 3 MB
    // (it would fit in the whole 3 MB, which a cache shared with code and
    // neighbours does not give).
    const CacheDecision warm =
        driver::decide_cache_flush(f, CacheFlush::Auto, caches_with_last_level(32 << 20));
    QVERIFY(!warm.flush);
    QVERIFY2(warm.reason.find("warm") != std::string::npos &&
                 warm.reason.find("32.0 MB L3") != std::string::npos,
             warm.reason.c_str());
    const CacheDecision cold =
        driver::decide_cache_flush(f, CacheFlush::Auto, caches_with_last_level(3 << 20));
    QVERIFY(cold.flush);
    QVERIFY2(cold.reason.find("cold") != std::string::npos &&
                 cold.reason.find("more than half the 3.0 MB L3") != std::string::npos,
             cold.reason.c_str());
  }

  void askedStatesAndUnknownCaches() {
    const ModelFootprint small{.weight_bytes = 1024, .activation_bytes = 1024};
    QVERIFY(driver::decide_cache_flush(small, CacheFlush::Always, caches_with_last_level(32 << 20))
                .flush);
    const ModelFootprint large{.weight_bytes = int64_t{1} << 32, .activation_bytes = 0};
    QVERIFY(!driver::decide_cache_flush(large, CacheFlush::Never, caches_with_last_level(1 << 20))
                 .flush);
    const CacheDecision unknown = driver::decide_cache_flush(small, CacheFlush::Auto, {});
    QVERIFY(unknown.flush);
    QVERIFY2(unknown.reason.find("names no data cache") != std::string::npos,
             unknown.reason.c_str());
  }
};

QTEST_APPLESS_MAIN(TestCacheResidency)
#include "tst_cache_residency.moc"
