// Virtual threads (bind to "vthread", tir/transform/inject_virtual_thread.h):
// the loop is gone after lowering, its iterations interleaved in each thread
// with allocations expanded per virtual thread; the kernel assembles with
// ptxas; the lowered GPU kernel, run on the host with its thread loops made
// serial, computes what a plain matrix product does; shared fetches stay
// outside the virtual threads so barriers fall between them.
#include <QtTest>

#include <cstdlib>

#include "codegen/codegen.h"
#include "codegen/gpu_launch.h"
#include "gpu_test_kernels.h"
#include "tir/printer.h"
#include "tir/stmt_functor.h"
#include "tir/transform/inject_storage_sync.h"
#include "tir/transform/inject_virtual_thread.h"

using namespace lathe;
using codegen::Target;

namespace {

using testing::Env;
using testing::error_of;
using testing::kH100;

constexpr int64_t kM = 64, kN = 64, kK = 32;

Env matmul_env() {
  return testing::matmul_env(kM, kN, kK);
}

// The GEMM of kM x kN x kK lowered into one kernel "gemm".
tir::PrimFunc lower_text(const Env& env, const std::string& text, const std::string& target) {
  return testing::lower_text(env, text, {"A", "B", "C"}, "gemm", target);
}

// A 32 x 32 tile per block; in it 2 x 2 virtual threads, each an 8 x 8 grid
// of threads computing 2 x 2 outputs in registers (TVM's GEMM tutorial).
const char* kVthreadGemm = R"(s = te.create_schedule(C.op)
CL = s.cache_write(C, "local")
bi, ii = s[C].split(C.op.axis[0], factor=32)
bj, jj = s[C].split(C.op.axis[1], factor=32)
vi, ti = s[C].split(ii, nparts=2)
vj, tj = s[C].split(jj, nparts=2)
ty, ri = s[C].split(ti, nparts=8)
tx, rj = s[C].split(tj, nparts=8)
s[C].reorder(bi, bj, vi, vj, ty, tx, ri, rj)
s[C].bind(bi, te.thread_axis("blockIdx.y"))
s[C].bind(bj, te.thread_axis("blockIdx.x"))
s[C].bind(vi, te.thread_axis("vthread"))
s[C].bind(vj, te.thread_axis("vthread"))
s[C].bind(ty, te.thread_axis("threadIdx.y"))
s[C].bind(tx, te.thread_axis("threadIdx.x"))
s[CL].compute_at(s[C], tx)
)";

// Counts statements of the lowered body that satisfy `pred`.
int count_stmts(const tir::Stmt& s, const std::function<bool(const tir::Stmt&)>& pred) {
  int n = 0;
  tir::visit_stmt(s, [&](const tir::Stmt& x) { n += pred(x); });
  return n;
}

// The kernel's thread-bound loops made serial: what one thread after another
// would compute, valid where no data crosses threads (no shared memory).
class SerializeThreads : public tir::StmtMutator {
 protected:
  tir::Stmt visit_for(const tir::ForNode* n, const tir::Stmt& s) override {
    tir::Stmt body = mutate(n->body);
    if (n->kind != tir::ForKind::ThreadBinding) return tir::StmtMutator::visit_for(n, s);
    return tir::make_for(n->loop_var, n->min, n->extent, tir::ForKind::Serial, body);
  }
};

struct AlignedFloats {
  explicit AlignedFloats(size_t n)
      : data(static_cast<float*>(std::aligned_alloc(64, ((n * 4 + 63) / 64) * 64))), size(n) {}
  ~AlignedFloats() { std::free(data); }
  float* data;
  size_t size;
};

}  // namespace

class TestVirtualThread : public QObject {
  Q_OBJECT

 private slots:
  void vthreadLoopsAreInterleavedPerThread() {
    const tir::PrimFunc f = lower_text(matmul_env(), kVthreadGemm, kH100);
    const QString ir = QString::fromStdString(tir::to_string(f));
    QVERIFY2(!ir.contains("vthread"), qPrintable(ir));
    // The launch counts physical threads only: 8 x 8, a block per 32 x 32.
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.block[0], int64_t(8));
    QCOMPARE(launch.block[1], int64_t(8));
    QCOMPARE(launch.grid[0], int64_t(2));
    QCOMPARE(launch.grid[1], int64_t(2));
    // The register tile is one per virtual thread: 2 x 2 copies of 2 x 2.
    int local_elements = 0;
    tir::visit_stmt(f.body, [&](const tir::Stmt& x) {
      const auto* a = x.as<tir::AllocateNode>();
      if (!a || a->storage_scope != "local") return;
      int64_t n = 1;
      for (const te::Expr& e : a->extents) n *= *te::as_const_int(e);
      local_elements = int(n);
    });
    QCOMPARE(local_elements, 16);
    // Interleaved: the innermost multiply-add appears once per virtual
    // thread (unrolled, no loop over them), inside the loop over k.
    const int updates = count_stmts(f.body, [](const tir::Stmt& x) {
      const auto* st = x.as<tir::StoreNode>();
      return st && st->buffer.name() == "C_local" && st->value.as<te::BinaryNode>() != nullptr;
    });
    QVERIFY2(updates == 4, qPrintable(QString("%1 updates in\n%2").arg(updates).arg(ir)));
  }

  void vthreadKernelComputesTheProduct() {
    const Env env = matmul_env();
    tir::PrimFunc f = lower_text(env, kVthreadGemm, kH100);
    // Run the GPU kernel's loop nest on the host, thread after thread.
    f.body = SerializeThreads().mutate(f.body);
    f.target = "";
    codegen::CompiledKernel kernel = codegen::jit_compile(f, Target::host());
    AlignedFloats a(kM * kK), b(kK * kN), c(kM * kN);
    for (int64_t t = 0; t < kM * kK; ++t) a.data[t] = float((t * 7) % 13) - 6.0f;
    for (int64_t t = 0; t < kK * kN; ++t) b.data[t] = float((t * 5) % 11) * 0.25f - 1.0f;
    kernel.run({a.data, b.data, c.data});
    for (int64_t i = 0; i < kM; ++i)
      for (int64_t j = 0; j < kN; ++j) {
        double expected = 0;
        for (int64_t k = 0; k < kK; ++k)
          expected += double(a.data[i * kK + k]) * b.data[k * kN + j];
        QCOMPARE(double(c.data[i * kN + j]), expected);  // small integers and quarters: exact
      }
  }

  void vthreadOnTheCpuComputesTheProduct() {
    // Virtual threads are not a GPU matter: on the CPU they interleave too.
    const Env env = matmul_env();
    const tir::PrimFunc f = lower_text(env, R"(s = te.create_schedule(C.op)
CL = s.cache_write(C, "local")
vi, ii = s[C].split(C.op.axis[0], nparts=4)
vj, jj = s[C].split(C.op.axis[1], nparts=2)
s[C].reorder(vi, vj, ii, jj)
s[C].bind(vi, te.thread_axis("vthread"))
s[C].bind(vj, te.thread_axis("vthread"))
s[CL].compute_at(s[C], vj)
)",
                                       "");
    QVERIFY(!QString::fromStdString(tir::to_string(f)).contains("vthread"));
    codegen::CompiledKernel kernel = codegen::jit_compile(f, Target::host());
    AlignedFloats a(kM * kK), b(kK * kN), c(kM * kN);
    for (int64_t t = 0; t < kM * kK; ++t) a.data[t] = float(t % 9) - 4.0f;
    for (int64_t t = 0; t < kK * kN; ++t) b.data[t] = float(t % 7) * 0.5f;
    kernel.run({a.data, b.data, c.data});
    for (int64_t i = 0; i < kM; ++i)
      for (int64_t j = 0; j < kN; ++j) {
        double expected = 0;
        for (int64_t k = 0; k < kK; ++k)
          expected += double(a.data[i * kK + k]) * b.data[k * kN + j];
        QCOMPARE(double(c.data[i * kN + j]), expected);
      }
  }

  void sharedFetchesStayOutsideTheVirtualThreads() {
    const tir::PrimFunc f =
        lower_text(matmul_env(), std::string(kVthreadGemm) + testing::kGemmSharedFetch, kH100);
    const QString ir = QString::fromStdString(tir::to_string(f));
    QVERIFY2(!ir.contains("vthread"), qPrintable(ir));
    // The block's tiles are shared by its virtual threads: 32 rows of A and
    // 32 columns of B by 8 k, not a virtual thread's 16.
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.shared_bytes, int64_t((32 * 8 + 8 * 32) * 4));
    // The barriers of each k step sit between the fetches and the virtual
    // threads' interleaved work, never inside it (the loop over ki).
    auto is_barrier = [](const tir::Stmt& x) {
      const auto* attr = x.as<tir::AttrStmtNode>();
      return attr && attr->key == tir::kStorageSyncAttr;
    };
    QVERIFY2(count_stmts(f.body, is_barrier) >= 2, qPrintable(ir));
    int inside = -1;
    tir::visit_stmt(f.body, [&](const tir::Stmt& x) {
      const auto* loop = x.as<tir::ForNode>();
      if (loop && loop->loop_var.name() == "ki") inside = count_stmts(loop->body, is_barrier);
    });
    QVERIFY2(inside == 0, qPrintable(ir));
    // The fetch is one store per thread iteration, not one per virtual thread.
    const int fetches = count_stmts(f.body, [](const tir::Stmt& x) {
      const auto* st = x.as<tir::StoreNode>();
      return st && st->buffer.name() == "A_shared";
    });
    QCOMPARE(fetches, 1);
    const QString ptx = QString::fromStdString(codegen::emit_assembly({f}, Target::parse(kH100)));
    for (const char* piece : {".entry gemm(", "bar.sync", "ld.shared", ".maxntid 8, 8, 1"})
      QVERIFY2(ptx.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, ptx)));
  }

  void ptxasAcceptsVirtualThreadKernels() {
    if (!testing::has_ptxas())
      QSKIP(
          "no CUDA ptxas at /usr/local/cuda/bin/ptxas (not a Debian package: NVIDIA's CUDA "
          "toolkit, e.g. the cuda-nvcc package of its apt repository); the PTX is checked by its "
          "text alone");
    for (const std::string& text :
         {std::string(kVthreadGemm), std::string(kVthreadGemm) + testing::kGemmSharedFetch}) {
      const tir::PrimFunc f = lower_text(matmul_env(), text, kH100);
      const QString errors =
          testing::ptxas_errors(codegen::emit_assembly({f}, Target::parse(kH100)), "gemm");
      QVERIFY2(errors.isEmpty(), qPrintable(errors));
    }
  }

  // Hand-written loop IR: the pass alone.
  void manyVirtualThreadsMakeASerialLoop() {
    const te::DataType f32 = te::DataType::Float(32);
    tir::Var out("Out", te::DataType::Handle()), v("v"), j("j");
    // for v in vthread(32): for j in 0..4: Out[v * 4 + j] = v
    tir::Stmt body =
        tir::make_for(v, te::make_int(0), te::make_int(32), tir::ForKind::ThreadBinding,
                      tir::make_for(j, te::make_int(0), te::make_int(4), tir::ForKind::Serial,
                                    tir::make_store(out, te::cast(f32, v), v * 4 + j)),
                      "vthread");
    // The loop over j does not depend on v: the virtual threads go inside it,
    // around the store, as a serial loop (too many to unroll).
    const tir::Stmt lowered = tir::inject_virtual_thread(body);
    const auto* outer = lowered.as<tir::ForNode>();
    QVERIFY(outer && outer->loop_var.same_as(j));
    const auto* loop = outer->body.as<tir::ForNode>();
    QVERIFY(loop);
    QCOMPARE(loop->kind, tir::ForKind::Serial);
    QCOMPARE(loop->loop_var.name(), std::string("v.s"));
    QCOMPARE(*te::as_const_int(loop->extent), int64_t(32));
    // Few virtual threads around a statement without loops: unrolled.
    tir::Stmt few = tir::make_for(v, te::make_int(0), te::make_int(3), tir::ForKind::ThreadBinding,
                                  tir::make_store(out, te::cast(f32, v), v), "vthread");
    const auto* seq = tir::inject_virtual_thread(few).as<tir::SeqNode>();
    QVERIFY(seq);
    QCOMPARE(int(seq->seq.size()), 3);
  }

  void barrierInsideAVirtualThreadIsRefused() {
    const te::DataType f32 = te::DataType::Float(32);
    tir::Var shared("S", te::DataType::Handle()), out("Out", te::DataType::Handle());
    tir::Var v("vx"), k("k");
    // for vx in vthread(2): for k in 0..vx+1: { S[k] = k; Out[k] = S[k] } —
    // the loop's extent reads vx, so the loop stays whole in each copy, and
    // it writes and reads shared memory.
    tir::Stmt loop =
        tir::make_for(k, te::make_int(0), v + 1, tir::ForKind::Serial,
                      tir::make_seq({tir::make_store(shared, te::cast(f32, k), k),
                                     tir::make_store(out, te::load(f32, shared, k), k)}));
    tir::Stmt body = tir::make_allocate(shared, f32, {te::make_int(4)},
                                        tir::make_for(v, te::make_int(0), te::make_int(2),
                                                      tir::ForKind::ThreadBinding, loop, "vthread"),
                                        "shared");
    const QString message = error_of([&] { tir::inject_virtual_thread(body); });
    QVERIFY2(message.contains("virtual-thread loop 'vx'") &&
                 message.contains("writes and reads shared buffer 'S'"),
             qPrintable(message));
  }
};

QTEST_GUILESS_MAIN(TestVirtualThread)
#include "tst_virtual_thread.moc"
