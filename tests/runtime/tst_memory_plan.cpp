// The static memory plan: storage reused along a chain once its last reader
// ran, graph outputs and arguments never overwritten, best-fit reuse, and the
// planned graph computing the same values on the executor.
#include <QtTest>

#include "driver/memory_plan.h"
#include "runtime/graph_executor.h"
#include "support/error.h"

using namespace lathe;
using runtime::GraphEntryRef;
using runtime::GraphModuleDesc;
using runtime::GraphNode;

namespace {

GraphNode input(const std::string& name) {
  return {"null", name, {}, "", 0, 1, false, false, ""};
}

GraphNode op(const std::string& name, const std::string& func, std::vector<GraphEntryRef> in) {
  const uint32_t n = static_cast<uint32_t>(in.size());
  return {"tvm_op", name, std::move(in), func, n, 1, false, false, ""};
}

// x -> a -> b -> c -> d, each step "inc" (adds 1), all float32[n].
GraphModuleDesc chain(std::vector<GraphEntryRef> heads, int64_t n = 8) {
  GraphModuleDesc d;
  d.nodes = {input("x"), op("a", "inc", {{0, 0, 0}}), op("b", "inc", {{1, 0, 0}}),
             op("c", "inc", {{2, 0, 0}}), op("d", "inc", {{3, 0, 0}})};
  d.arg_nodes = {0};
  d.heads = std::move(heads);
  d.dltype.assign(5, "float32");
  d.shape.assign(5, {n});
  return d;
}

void inc_kernel(void** args) {
  auto* in = static_cast<const float*>(args[0]);
  auto* out = static_cast<float*>(args[1]);
  for (int i = 0; i < 8; ++i) out[i] = in[i] + 1;
}

std::vector<float> run_chain(const GraphModuleDesc& d, int output) {
  runtime::GraphExecutor ex(d, [](const std::string&) { return inc_kernel; });
  const std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  ex.set_input("x", x.data(), 32);
  ex.run();
  std::vector<float> out(8);
  ex.copy_output(output, out.data(), 32);
  return out;
}

}  // namespace

class TestMemoryPlan : public QObject {
  Q_OBJECT

 private slots:
  void chainReusesStorage() {
    GraphModuleDesc d = chain({{4, 0, 0}});
    const driver::MemoryPlanSummary s = driver::plan_memory(d);
    // x alone; a and b need two storages; c takes a's, d takes b's.
    QCOMPARE(d.storage_id, std::vector<int32_t>({0, 1, 2, 1, 2}));
    QCOMPARE(s.num_storages, size_t(3));
    QCOMPARE(s.planned_bytes, size_t(3 * 32));
    QCOMPARE(s.naive_bytes, size_t(5 * 32));
    QCOMPARE(run_chain(d, 0), std::vector<float>({4, 5, 6, 7, 8, 9, 10, 11}));
  }

  void graphOutputsAreNotClobbered() {
    // b is an output too: no later kernel may write into its storage.
    GraphModuleDesc d = chain({{2, 0, 0}, {4, 0, 0}});
    driver::plan_memory(d);
    const int32_t b = d.storage_id[2];
    QVERIFY(d.storage_id[3] != b && d.storage_id[4] != b);
    QVERIFY(d.storage_id[4] != d.storage_id[3]);
    QCOMPARE(d.storage_id[3], d.storage_id[1]);  // c still reuses a
    QCOMPARE(run_chain(d, 0), std::vector<float>({2, 3, 4, 5, 6, 7, 8, 9}));
    QCOMPARE(run_chain(d, 1), std::vector<float>({4, 5, 6, 7, 8, 9, 10, 11}));
  }

  void argumentsKeepTheirStorage() {
    // x is read only by a; its storage must still never be reused.
    GraphModuleDesc d = chain({{4, 0, 0}});
    driver::plan_memory(d);
    for (size_t e = 1; e < d.storage_id.size(); ++e) QVERIFY(d.storage_id[e] != d.storage_id[0]);
  }

  void bestFitThenGrow() {
    // x -> big (64 floats) -> small (8) -> mid (16) -> mid2 (16) -> out (32).
    GraphModuleDesc d;
    d.nodes = {input("x"),
               op("big", "f", {{0, 0, 0}}),
               op("small", "f", {{1, 0, 0}}),
               op("mid", "f", {{2, 0, 0}}),
               op("mid2", "f", {{3, 0, 0}}),
               op("out", "f", {{4, 0, 0}})};
    d.arg_nodes = {0};
    d.heads = {{5, 0, 0}};
    d.dltype.assign(6, "float32");
    d.shape = {{4}, {64}, {8}, {16}, {16}, {32}};
    const driver::MemoryPlanSummary s = driver::plan_memory(d);
    // big: new 1; small: new 2, frees big(1); mid: takes 1 (256 >= 64), frees
    // small(2); mid2: best fit among {2 (32 bytes, too small)} -> grows 2 to
    // 64, frees mid(1); out (128) fits in 1 (256).
    QCOMPARE(d.storage_id, std::vector<int32_t>({0, 1, 2, 1, 2, 1}));
    QCOMPARE(s.planned_bytes, size_t(16 + 256 + 64));
  }

  void deadOutputsAreFreedAtOnce() {
    // t is computed but read by nobody: its storage is free for u.
    GraphModuleDesc d;
    d.nodes = {input("x"), op("t", "f", {{0, 0, 0}}), op("u", "f", {{0, 0, 0}})};
    d.arg_nodes = {0};
    d.heads = {{2, 0, 0}};
    d.dltype.assign(3, "float32");
    d.shape.assign(3, {8});
    driver::plan_memory(d);
    QCOMPARE(d.storage_id, std::vector<int32_t>({0, 1, 1}));
  }

  void missingShapesAreAnError() {
    GraphModuleDesc d = chain({{4, 0, 0}});
    d.shape.pop_back();
    QVERIFY_THROWS_EXCEPTION(Error, driver::plan_memory(d));
    d = chain({{4, 0, 0}});
    d.dltype[2] = "floaty";
    try {
      driver::plan_memory(d);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("entry 2") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestMemoryPlan)
#include "tst_memory_plan.moc"
