// The GPU simulator (codegen/gpu_simulator.h) without a GPU: cuda kernels
// lowered with shared tiles, barriers and cross-thread reductions compute on
// the host what their definitions say; a kernel whose barriers are removed
// reads shared data no thread ordered and comes out wrong, and a barrier
// that half a block never reaches is reported with the threads, not hung on.
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "codegen/gpu_simulator.h"
#include "gpu_test_kernels.h"
#include "tir/stmt_functor.h"
#include "tir/transform/inject_storage_sync.h"

using namespace lathe;
using codegen::Target;

namespace {

using testing::cross_thread_row_sum;
using testing::Env;
using testing::error_of;
using testing::kGemmSharedFetch;
using testing::kH100;
using testing::lower_text;
using testing::matmul_env;
using testing::row_sum_env;

const te::DataType f32 = te::DataType::Float(32);

// TVM's shared-memory GEMM: a 32 x 32 tile per block of 8 x 8 threads, each
// 4 x 4 outputs in registers; per step of 8 k, A's and B's tiles fetched into
// shared memory by all the block's threads between barriers.
const std::string kSharedGemm = std::string(R"(s = te.create_schedule(C.op)
CL = s.cache_write(C, "local")
bi, ii = s[C].split(C.op.axis[0], factor=32)
bj, jj = s[C].split(C.op.axis[1], factor=32)
ty, ri = s[C].split(ii, nparts=8)
tx, rj = s[C].split(jj, nparts=8)
s[C].reorder(bi, bj, ty, tx, ri, rj)
s[C].bind(bi, te.thread_axis("blockIdx.y"))
s[C].bind(bj, te.thread_axis("blockIdx.x"))
s[C].bind(ty, te.thread_axis("threadIdx.y"))
s[C].bind(tx, te.thread_axis("threadIdx.x"))
s[CL].compute_at(s[C], tx)
)") + kGemmSharedFetch;

// Seeded values: small integers and quarters, whose sums are exact.
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float((i * 7 + seed) % 13) * 0.25f - 1.5f;
  return v;
}

// The kernel's barriers taken out.
class RemoveBarriers : public tir::StmtMutator {
 protected:
  tir::Stmt visit_attr(const tir::AttrStmtNode* n, const tir::Stmt& s) override {
    if (n->key == tir::kStorageSyncAttr) return tir::make_evaluate(te::make_int(0));
    return tir::StmtMutator::visit_attr(n, s);
  }
};

}  // namespace

class TestGpuSimulator : public QObject {
  Q_OBJECT

 private slots:
  void sharedTilesComputeTheProduct() {
    constexpr int64_t M = 64, N = 96, K = 40;
    const tir::PrimFunc f = lower_text(matmul_env(M, N, K), kSharedGemm, {"A", "B", "C"}, "gemm");
    const codegen::SimulatedGpuModule gpu({f}, Target::parse(kH100));
    QCOMPARE(gpu.launch("gemm").grid[0], int64_t(3));
    QCOMPARE(gpu.launch("gemm").block[1], int64_t(8));
    std::vector<float> a = values(M * K, 1), b = values(K * N, 2), c(M * N, -7.0f);
    void* buffers[] = {a.data(), b.data(), c.data()};
    gpu.run("gemm", buffers, 3);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double expected = 0;
        for (int64_t k = 0; k < K; ++k) expected += double(a[i * K + k]) * b[k * N + j];
        QCOMPARE(double(c[i * N + j]), expected);
      }
  }

  void withoutBarriersTheTilesAreWrong() {
    // The same kernel with its barriers removed: each thread runs on before
    // the others have fetched their parts of the tiles, as warps may on a
    // GPU, and reads unwritten shared memory.
    constexpr int64_t M = 64, N = 96, K = 40;
    tir::PrimFunc f = lower_text(matmul_env(M, N, K), kSharedGemm, {"A", "B", "C"}, "gemm");
    f.body = RemoveBarriers().mutate(f.body);
    const codegen::SimulatedGpuModule gpu({f}, Target::parse(kH100));
    std::vector<float> a = values(M * K, 1), b = values(K * N, 2), c(M * N, 0.0f);
    void* buffers[] = {a.data(), b.data(), c.data()};
    gpu.run("gemm", buffers, 3);
    int wrong = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double expected = 0;
        for (int64_t k = 0; k < K; ++k) expected += double(a[i * K + k]) * b[k * N + j];
        wrong += !(double(c[i * N + j]) == expected);
      }
    QVERIFY2(wrong > M * N / 2, qPrintable(QString::number(wrong)));
  }

  void crossThreadReductions_data() {
    QTest::addColumn<QString>("schedule");
    // Shuffles within warps, then the warps' partials through shared memory.
    QTest::newRow("256 threads on x") << QString::fromStdString(cross_thread_row_sum(256));
    QTest::newRow("one warp") << QString::fromStdString(cross_thread_row_sum(32));
    QTest::newRow("half a warp, lanes masked") << QString::fromStdString(cross_thread_row_sum(16));
    // Groups that are not a power of two go through shared memory: in a loop,
    // or unrolled when short.
    QTest::newRow("108 threads on x") << QString::fromStdString(cross_thread_row_sum(108));
    QTest::newRow("6 threads on x") << QString::fromStdString(cross_thread_row_sum(6));
    QTest::newRow("12 threads on x, 4 rows on y") << QString(R"(s = te.create_schedule(R.op)
io, ii = s[R].split(R.op.axis[0], factor=4)
ko, ki = s[R].split(R.op.reduce_axis[0], factor=12)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.y"))
s[R].bind(ki, te.thread_axis("threadIdx.x"))
)");
    QTest::newRow("8 threads on y") << QString(R"(s = te.create_schedule(R.op)
io, ii = s[R].split(R.op.axis[0], factor=32)
ko, ki = s[R].split(R.op.reduce_axis[0], factor=8)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.x"))
s[R].bind(ki, te.thread_axis("threadIdx.y"))
)");
  }

  void crossThreadReductions() {
    QFETCH(QString, schedule);
    constexpr int64_t rows = 64, cols = 1000;  // 1000: the threads' last shares are partial
    const tir::PrimFunc f =
        lower_text(row_sum_env(rows, cols), schedule.toStdString(), {"A", "R"}, "row_sum");
    const codegen::SimulatedGpuModule gpu({f}, Target::parse(kH100));
    std::vector<float> a = values(rows * cols, 3), r(rows, -7.0f);
    void* buffers[] = {a.data(), r.data()};
    gpu.run("row_sum", buffers, 2);
    for (int64_t i = 0; i < rows; ++i) {
      double expected = 0;
      for (int64_t k = 0; k < cols; ++k) expected += a[i * cols + k];
      QCOMPARE(double(r[i]), expected);
    }
  }

  void barrierHalfTheBlockSkipsIsReported() {
    // for tx in threadIdx.x (64): if tx < 32: barrier; C[tx] = 1
    const te::Var tx("tx");
    const te::Var data("C", te::DataType::Handle());
    const tir::Stmt body =
        tir::make_seq({tir::make_if(te::Expr(tx) < te::make_int(32),
                                    tir::make_attr(tir::kStorageSyncAttr, te::make_int(0),
                                                   tir::make_evaluate(te::make_int(0)))),
                       tir::make_store(data, te::make_const(f32, 1.0), tx)});
    tir::PrimFunc f;
    f.name = "diverges";
    f.params = {tir::Buffer{data, "C", f32, {64}}};
    f.body = tir::make_for(tx, te::make_int(0), te::make_int(64), tir::ForKind::ThreadBinding, body,
                           "threadIdx.x");
    f.target = kH100;
    const codegen::SimulatedGpuModule gpu({f}, Target::parse(kH100));
    std::vector<float> c(64, 0.0f);
    void* buffers[] = {c.data()};
    const QString error = error_of([&] { gpu.run("diverges", buffers, 1); });
    for (const char* piece : {"kernel 'diverges', block (0, 0, 0)", "32 wait at a barrier",
                              "32 have finished", "(32, 0, 0)"})
      QVERIFY2(error.contains(piece), qPrintable(error));
  }

  void refusesWhatTheGpuBuildRefuses() {
    // The simulator verifies for the device as the PTX build does.
    const Env env = row_sum_env(4, 2048);
    const tir::PrimFunc f = lower_text(env, R"(s = te.create_schedule(R.op)
s[R].bind(R.op.axis[0], te.thread_axis("blockIdx.x"))
ko, ki = s[R].split(R.op.reduce_axis[0], factor=2048)
s[R].bind(ki, te.thread_axis("threadIdx.x"))
)",
                                       {"A", "R"}, "too_wide");
    const QString error = error_of([&] { codegen::SimulatedGpuModule({f}, Target::parse(kH100)); });
    QVERIFY2(error.contains("too_wide") && error.contains("1024"), qPrintable(error));
    QVERIFY2(error_of([&] {
               codegen::SimulatedGpuModule({f}, Target::host());
             }).contains("is not a GPU"),
             "a CPU target is refused");
  }
};

QTEST_GUILESS_MAIN(TestGpuSimulator)
#include "tst_gpu_simulator.moc"
