// Lowering, primitive by primitive: the loop IR each schedule primitive
// produces, the pass log, and numerics of the composed result.
#include <QtTest>

#include "codegen/codegen.h"
#include "kernel_harness.h"
#include "schedule/schedule.h"
#include "schedule/schedule_text.h"
#include "tir/lower.h"
#include "tir/printer.h"
#include "tir/transform/inject_prefetch.h"
#include "topi/nn.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

struct Matmul {
  te::Tensor a = te::placeholder({64, 32}, te::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({32, 48}, te::DataType::Float(32), "B");
  te::Tensor c = topi::matmul(a, b);
  std::vector<te::Tensor> args() const { return {a, b, c}; }
};

std::string lowered_ir(schedule::Schedule& sch, const std::vector<te::Tensor>& args) {
  return tir::to_string(tir::lower(sch, args, "kernel").func);
}

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

void check_numerics(schedule::Schedule& sch, const Matmul& m) {
  std::mt19937 rng(7);
  std::vector<Tensor> inputs = random_inputs({m.a, m.b}, rng);
  Tensor got = run_compiled(sch, m.args(), inputs)[0];
  Tensor want = run_reference("MatMul", {}, inputs, {DType::Float32, {64, 48}});
  QVERIFY(normalized_error(got, want) <= 1e-5);
}

}  // namespace

class TestLowering : public QObject {
  Q_OBJECT

 private slots:
  void defaultNestHasInitAndUpdate() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "for i in range(64):"), ir.c_str());
    QVERIFY2(contains(ir, "for k in range(32):"), ir.c_str());
    QVERIFY2(contains(ir, "= 0.0f"), ir.c_str());
    check_numerics(sch, m);
  }

  void passLogNamesEveryPass() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    tir::LoweredFunc f = tir::lower(sch, m.args(), "kernel");
    QStringList names;
    for (const auto& p : f.passes) names << QString::fromStdString(p.pass);
    QCOMPARE(names.first(), QString("infer_bound"));
    QVERIFY(names.contains("schedule_ops"));
    QVERIFY(names.contains("storage_flatten"));
    QVERIFY(names.contains("simplify"));
    QVERIFY(names.contains("loop_partition"));
    QVERIFY(names.contains("vectorize_loop"));
    QVERIFY(names.contains("unroll_loop"));
    for (const auto& p : f.passes) QVERIFY(!p.ir.empty());
  }

  void splitThatDividesHasNoGuard() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    auto [jo, ji] = sch[m.c].split(sch[m.c].axis()[1], 16);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "for j_outer in range(3):"), ir.c_str());
    QVERIFY2(contains(ir, "for j_inner in range(16):"), ir.c_str());
    QVERIFY2(!contains(ir, "if "), ir.c_str());
    check_numerics(sch, m);
  }

  void splitThatDoesNotDivideIsGuardedThenPartitioned() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    sch[m.c].split(sch[m.c].axis()[1], 5);
    tir::LoweredFunc f = tir::lower(sch, m.args(), "kernel");
    std::string flattened;
    for (const auto& p : f.passes)
      if (p.pass == "storage_flatten") flattened = p.ir;
    QVERIFY2(contains(flattened, "if j_outer * 5 + j_inner < 48:"), flattened.c_str());
    std::string ir = tir::to_string(f.func);
    // The main loop runs 9 whole tiles without a guard; the tail is separate.
    QVERIFY2(contains(ir, "for j_outer in range(9):"), ir.c_str());
    check_numerics(sch, m);
  }

  void parallelVectorizeUnroll() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [jo, ji] = s.split(s.axis()[1], 16);
    auto [ko, ki] = s.split(s.reduce_axis()[0], 4);
    s.reorder({s.axis()[0], jo, ko, ki, ji});
    s.parallel(s.axis()[0]);
    s.vectorize(ji);
    s.unroll(ki);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "for i in T.parallel(64):"), ir.c_str());
    QVERIFY2(contains(ir, "T.Ramp("), ir.c_str());
    QVERIFY2(!contains(ir, "for k_inner"), ir.c_str());  // unrolled away
    check_numerics(sch, m);
  }

  // A parallel loop with a few microseconds of work runs serially, and the
  // printed IR says why; one with more keeps its launch.
  void smallParallelLoopsRunSerially() {
    auto lower_matmul = [](int64_t m, int64_t n, int64_t k) {
      te::Tensor a = te::placeholder({m, k}, te::DataType::Float(32), "A");
      te::Tensor b = te::placeholder({k, n}, te::DataType::Float(32), "B");
      te::Tensor c = topi::matmul(a, b);
      schedule::Schedule sch({c.op()});
      sch[c].parallel(sch[c].axis()[0]);
      return lowered_ir(sch, {a, b, c});
    };
    const std::string small = lower_matmul(8, 16, 8);  // 1,024 FMAs
    QVERIFY2(contains(small, "with T.attr(\"too_small_to_parallelize\""), small.c_str());
    QVERIFY2(contains(small, "for i in range(8):"), small.c_str());
    QVERIFY2(!contains(small, "T.parallel"), small.c_str());
    const std::string large = lower_matmul(128, 128, 64);  // a million FMAs
    QVERIFY2(contains(large, "for i in T.parallel(128):"), large.c_str());
    QVERIFY2(!contains(large, "too_small_to_parallelize"), large.c_str());
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    sch[m.c].parallel(sch[m.c].axis()[0]);
    check_numerics(sch, m);
  }

  // The lowered vector IR reaches the machine as SIMD instructions.
  void vectorizedLoopEmitsVectorInstructions() {
    if (!__builtin_cpu_supports("avx2")) QSKIP("the host has no AVX2");
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [jo, ji] = s.split(s.axis()[1], 16);
    s.reorder({s.axis()[0], jo, s.reduce_axis()[0], ji});
    s.vectorize(ji);
    tir::LoweredFunc f = tir::lower(sch, m.args(), "kernel");
    std::string assembly = codegen::emit_assembly({f.func}, codegen::Target::host());
    QVERIFY2(contains(assembly, "ymm") || contains(assembly, "zmm"), assembly.c_str());
  }

  void computeRootUndoesComputeAt() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    te::Tensor cc = sch.cache_write(m.c, "local");
    schedule::Stage s = sch[m.c];
    sch[cc].compute_at(s, s.axis()[0]);
    sch[cc].compute_root();
    std::string ir = lowered_ir(sch, m.args());
    // At the root, the cache holds the whole output.
    QVERIFY2(contains(ir, "C_local = T.allocate([3072]"), ir.c_str());
    check_numerics(sch, m);
  }

  void tileAndFuse() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto t = s.tile(s.axis()[0], s.axis()[1], 8, 16);
    te::IterVar f = s.fuse(t[0], t[1]);
    s.parallel(f);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "for i_outer_j_outer_fused in T.parallel(24):"), ir.c_str());
    check_numerics(sch, m);
  }

  // TVM's fuse() of no axes: a new outermost loop of extent 1, which gives a
  // scalar a loop to attach its producers at and to bind.
  void fuseOfNoAxesIsASingletonLoop() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    const te::IterVar one = s.fuse(std::vector<te::IterVar>{});
    QCOMPARE(QString::fromStdString(s.node().leaf_iter_vars.front().name()), QString("singleton"));
    s.parallel(s.axis()[0]);
    check_numerics(sch, m);  // (lowering drops a loop of extent 1 that nothing binds)

    // sum(A) / sum(B * B): two scalar sums computed at a scalar's singleton.
    te::IterVar ka = te::reduce_axis(64, "ka"), kb = te::reduce_axis(32, "kb");
    te::IterVar kc = te::reduce_axis(48, "kc");
    te::Tensor sa = te::compute(
        {},
        [&](const std::vector<te::Var>&) {
          return te::sum(m.a(ka.var(), kb.var()), {ka, kb});
        },
        "sa");
    te::Tensor sb = te::compute(
        {},
        [&](const std::vector<te::Var>&) {
          return te::sum(m.b(kb.var(), kc.var()) * m.b(kb.var(), kc.var()), {kb, kc});
        },
        "sb");
    te::Tensor ratio = te::compute(
        {}, [&](const std::vector<te::Var>&) { return sa() / sb(); }, "ratio");
    schedule::Schedule scalar({ratio.op()});
    const te::IterVar at = scalar[ratio].fuse(std::vector<te::IterVar>{}, "at");
    scalar[sa].compute_at(scalar[ratio], at);
    scalar[sb].compute_at(scalar[ratio], at);
    const std::string ir = lowered_ir(scalar, {m.a, m.b, ratio});
    QVERIFY2(contains(ir, "sa = T.allocate([1]") && contains(ir, "sb = T.allocate([1]"),
             ir.c_str());
    std::mt19937 rng(3);
    std::vector<Tensor> inputs = random_inputs({m.a, m.b}, rng);
    const Tensor got = run_compiled(scalar, {m.a, m.b, ratio}, inputs)[0];
    double sum_a = 0, magnitude_a = 0, sum_b = 0;
    for (int64_t i = 0; i < inputs[0].numel(); ++i) {
      sum_a += inputs[0].data<float>()[i];
      magnitude_a += std::abs(inputs[0].data<float>()[i]);
    }
    for (int64_t i = 0; i < inputs[1].numel(); ++i)
      sum_b += double(inputs[1].data<float>()[i]) * inputs[1].data<float>()[i];
    QVERIFY2(std::abs(got.data<float>()[0] - sum_a / sum_b) <= 1e-5 * magnitude_a / sum_b,
             qPrintable(QString("%1 against %2").arg(got.data<float>()[0]).arg(sum_a / sum_b)));
    // One axis is itself, as in TVM; a second singleton is named apart
    // (replay finds loops by name).
    const te::IterVar j = s.node().leaf_iter_vars.back();
    QVERIFY(s.fuse(std::vector<te::IterVar>{j}).same_as(j));
    const te::IterVar two = s.fuse(std::vector<te::IterVar>{});
    QVERIFY(!two.same_as(one));
    QCOMPARE(QString::fromStdString(two.name()), QString("singleton_1"));
  }

  void cacheWriteComputedAtOuterLoop() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    te::Tensor cc = sch.cache_write(m.c, "local");
    schedule::Stage s = sch[m.c];
    auto t = s.tile(s.axis()[0], s.axis()[1], 8, 16);
    sch[cc].compute_at(s, t[1]);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "C_local = T.allocate([128], \"float32\", \"local\")"), ir.c_str());
    check_numerics(sch, m);
  }

  void cacheReadIntoConsumerLoop() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    te::Tensor aa = sch.cache_read(m.a, "local", {m.c.op()});
    schedule::Stage s = sch[m.c];
    sch[aa].compute_at(s, s.axis()[0]);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "A_local = T.allocate([32], \"float32\", \"local\")"), ir.c_str());
    check_numerics(sch, m);
  }

  // A producer attached at an outer loop of a stage that encloses its reader
  // (TVM's packed-panel pattern): B is packed once per column panel.
  void cacheReadAtEnclosingLoop() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    te::Tensor cc = sch.cache_write(m.c, "local");
    te::Tensor bb = sch.cache_read(m.b, "local", {cc.op()});
    schedule::Stage s = sch[m.c];
    auto t = s.tile(s.axis()[0], s.axis()[1], 8, 16);
    s.reorder({t[1], t[0], t[2], t[3]});
    sch[cc].compute_at(s, t[0]);
    sch[bb].compute_at(s, t[1]);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "B_local = T.allocate([512]"), ir.c_str());
    check_numerics(sch, m);
    // Attached where its reader does not run: an error, not wrong code.
    schedule::Schedule bad({m.c.op()});
    te::Tensor cc2 = bad.cache_write(m.c, "local");
    te::Tensor bb2 = bad.cache_read(m.b, "local", {cc2.op()});
    QVERIFY_THROWS_EXCEPTION(schedule::ScheduleError,
                             bad[bb2].compute_at(bad[m.c], bad[m.c].axis()[0]));
  }

  void computeInlineRemovesStage() {
    te::Tensor x = te::placeholder({1, 4, 8, 8}, te::DataType::Float(32), "X");
    te::Tensor w = te::placeholder({4, 4, 3, 3}, te::DataType::Float(32), "W");
    topi::Conv2dParams p;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    te::Tensor out = topi::conv2d_nchw(x, w, p);
    schedule::Schedule sch({out.op()});
    sch.find_stage("conv_pad").compute_inline();
    std::string ir = lowered_ir(sch, {x, w, out});
    QVERIFY2(!contains(ir, "conv_pad"), ir.c_str());
    QVERIFY2(contains(ir, "T.Select("), ir.c_str());
  }

  void storageAlignPadsTheStride() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    te::Tensor cc = sch.cache_write(m.c, "global");
    sch[cc].storage_align(sch[cc].axis()[0], 64, 8);
    std::string ir = lowered_ir(sch, m.args());
    // Rows of 48 padded to a stride of 72 (= 64 + 8).
    QVERIFY2(contains(ir, "C_global = T.allocate([4608]"), ir.c_str());
    check_numerics(sch, m);
  }

  // set_scope reaches the buffer's allocation; the code computes the same.
  void setScopeNamesTheAllocationsScope() {
    Matmul m;
    std::unique_ptr<schedule::Schedule> sch = schedule::parse_schedule(
        "s = te.create_schedule(C.op)\n"
        "CC = s.cache_write(C, \"global\")\n"
        "s[CC].set_scope(\"local\")\n",
        {{"A", m.a}, {"B", m.b}, {"C", m.c}});
    std::string ir = lowered_ir(*sch, m.args());
    QVERIFY2(contains(ir, "C_global = T.allocate([3072], \"float32\", \"local\")"), ir.c_str());
    check_numerics(*sch, m);
  }

  void pragmaAutoUnroll() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [jo, ji] = s.split(s.axis()[1], 4);
    s.reorder({s.axis()[0], jo, s.reduce_axis()[0], ji});
    s.pragma(jo, "auto_unroll_max_step", te::make_int(16));
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(!contains(ir, "for j_inner"), ir.c_str());
    check_numerics(sch, m);
  }

  void rfactorSplitsTheReduction() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [ko, ki] = s.split(s.reduce_axis()[0], 8);
    te::Tensor rf = sch.rfactor(m.c, ki);
    // The factored stage's new axis is data-parallel now, so it may run in parallel.
    sch[rf].parallel(sch[rf].axis()[0]);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "C_rf = T.allocate([24576]"), ir.c_str());
    QVERIFY2(contains(ir, "for k_inner_v in T.parallel(8):"), ir.c_str());
    check_numerics(sch, m);
    // Factoring a data axis is an error naming it.
    QVERIFY_THROWS_EXCEPTION(schedule::ScheduleError, sch.rfactor(m.c, s.axis()[0]));
  }

  void bindLowersToThreadLoops() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    s.bind(s.axis()[0], "blockIdx.x");
    s.bind(s.axis()[1], "threadIdx.x");
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "T.thread_binding(64, thread=\"blockIdx.x\")"), ir.c_str());
  }

  // The next k block of B (8 rows of 48, 24 cache lines) is fetched while
  // the current one runs, a line per iteration of the j loop inside rather
  // than all at the top of each block; the last block fetches its own.
  void prefetchSpreadsTheNextBlockOverTheLoopsInside() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [ko, ki] = s.split(s.reduce_axis()[0], 8);
    s.reorder({s.axis()[0], ko, s.axis()[1], ki});
    s.prefetch(m.b, ko, 1);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir,
                      "            for j in range(48):\n"
                      "                T.evaluate(T.prefetch(B[T.min(k_outer + 1, 3) * 384 + "
                      "T.min(j * 16, 383)]))\n"
                      "                for k_inner in range(8):"),
             ir.c_str());
    check_numerics(sch, m);
    if (__builtin_cpu_supports("avx2")) {
      std::string assembly = codegen::emit_assembly({tir::lower(sch, m.args(), "kernel").func},
                                                    codegen::Target::host());
      QVERIFY2(contains(assembly, "prefetcht1"), assembly.c_str());
    }
  }

  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  // A's next k block for two rows is two spans of 8 floats, 32 apart: each
  // fetched on its own, its address affine in the loop counter (ii), one
  // line per iteration of the ii loop.
  void prefetchFetchesFewSpansApart() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [io, ii] = s.split(s.axis()[0], 2);
    auto [ko, ki] = s.split(s.reduce_axis()[0], 8);
    s.reorder({io, ko, ii, s.axis()[1], ki});
    s.prefetch(m.a, ko, 1);
    std::string ir = lowered_ir(sch, m.args());
    QCOMPARE(count(ir, "T.prefetch(A["), 2);
    QVERIFY2(contains(ir, "T.min(i_inner * 16, 7)]"), ir.c_str());
    QVERIFY2(contains(ir, "T.min(i_inner * 16, 7) + 32]"), ir.c_str());
    check_numerics(sch, m);
  }

  // B's next 8 x 16 tile is 8 spans, more than are fetched apart: its 16
  // samples (a span's first and last element) are numbered across the spans,
  // 2 per iteration of the k_inner loop, which simplify back to one span each.
  void prefetchNumbersTheLinesOfManySpans() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    auto [jo, ji] = s.split(s.axis()[1], 16);
    auto [ko, ki] = s.split(s.reduce_axis()[0], 8);
    s.reorder({s.axis()[0], jo, ko, ki, ji});
    s.prefetch(m.b, ko, 1);
    std::string ir = lowered_ir(sch, m.args());
    QCOMPARE(count(ir, "T.prefetch(B["), 2);
    QVERIFY2(contains(ir,
                      "                for k_inner in range(8):\n"
                      "                    T.evaluate(T.prefetch(B["),
             ir.c_str());
    QVERIFY2(contains(ir, "k_inner * 48 + 15]"), ir.c_str());
    check_numerics(sch, m);
  }

  // At the innermost loop there is nothing to spread over: the element four
  // iterations ahead is fetched at the top of each iteration.
  void prefetchAtTheInnermostLoop() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    sch[m.c].prefetch(m.a, sch[m.c].reduce_axis()[0], 4);
    std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir,
                      "            for k in range(32):\n"
                      "                T.evaluate(T.prefetch(A[i * 32 + T.min(k + 4, 31)]))\n"),
             ir.c_str());
    check_numerics(sch, m);
  }

  // A let inside the loop the fetches go into binds the index a read uses, as
  // a pass before InjectPrefetch may make: the fetches, which go above the
  // let, use its value instead of a variable not yet defined there.
  void prefetchSeesThroughLets() {
    const te::DataType i32 = te::DataType::Int(32), f32 = te::DataType::Float(32);
    te::Var a("A", te::DataType::Handle()), c("C", te::DataType::Handle());
    te::Var ko("ko", i32), j("j", i32), at("at", i32);
    // for ko in 4: for j in 64: let at = ko * 64 + j: C[j] += A[at]
    tir::Stmt read =
        tir::make_let(at, ko * te::make_int(64, i32) + j,
                      tir::make_store(c, te::load(f32, c, j) + te::load(f32, a, at), j));
    tir::Stmt inner =
        tir::make_for(j, te::make_int(0, i32), te::make_int(64, i32), tir::ForKind::Serial, read);
    tir::Stmt loop =
        tir::make_for(ko, te::make_int(0, i32), te::make_int(4, i32), tir::ForKind::Serial, inner);
    tir::Stmt marked =
        tir::make_attr("prefetch_offset=1", te::load(f32, a, te::make_int(0, i32)), loop);
    const std::string ir = tir::to_string(tir::inject_prefetch(marked));
    QVERIFY2(
        contains(ir,
                 "    for j in range(64):\n"
                 "        T.evaluate(T.prefetch(A[T.min(ko + 1, 3) * 64 + T.min(j * 16, 63)]))\n"
                 "        at: T.int32 = ko * 64 + j\n"),
        ir.c_str());
  }

  void illegalPrimitivesThrowNamedErrors() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    QVERIFY_THROWS_EXCEPTION(schedule::ScheduleError, s.vectorize(s.reduce_axis()[0]));
    QVERIFY_THROWS_EXCEPTION(schedule::ScheduleError, s.split(s.axis()[0], 0));
    QVERIFY_THROWS_EXCEPTION(schedule::ScheduleError, s.reorder({s.axis()[0], s.axis()[0]}));
    schedule::Stage a = sch[m.a];
    QVERIFY_THROWS_EXCEPTION(schedule::ScheduleError, sch[m.c].compute_at(a, s.axis()[0]));
  }

  // The accumulators of a thread's outputs in 'shared' memory, computed at
  // the thread loop with no threads of their own: every thread would add
  // into the whole tile at once. Refused, naming the loop and its tag;
  // 'local' (each thread its own) lowers.
  void sharedAccumulatorsWithoutTheirThreadsAreRefused() {
    for (const char* scope : {"shared", "local"}) {
      Matmul m;
      schedule::Schedule sch({m.c.op()});
      const te::Tensor acc = sch.cache_write(m.c, scope);
      schedule::Stage s = sch[m.c];
      auto [io, ii] = s.split(s.axis()[0], 8);
      s.bind(io, "blockIdx.x");
      s.bind(ii, "threadIdx.x");
      sch[acc].compute_at(s, ii);
      QString message;
      try {
        tir::lower(sch, m.args(), "kernel");
      } catch (const schedule::ScheduleError& e) {
        message = e.what();
      }
      if (std::string(scope) == "local") {
        QVERIFY2(message.isEmpty(), qPrintable(message));
        continue;
      }
      QVERIFY2(message.contains("stage 'C.shared' accumulates into 'shared' memory inside loop "
                                "'i_inner' of 'C', bound to threadIdx.x"),
               qPrintable(message));
    }
  }

  // A 'local' stage may bind its reduce loop: a cross-thread reduction,
  // whose result every thread's copy receives.
  void localCrossThreadReductionLowers() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    const te::Tensor acc = sch.cache_write(m.c, "local");
    schedule::Stage s = sch[m.c];
    s.bind(s.axis()[0], "blockIdx.x");
    s.bind(s.axis()[1], "threadIdx.y");
    sch[acc].compute_at(s, s.axis()[1]);
    auto [ko, ki] = sch[acc].split(sch[acc].reduce_axis()[0], 16);
    sch[acc].bind(ki, "threadIdx.x");
    const std::string ir = lowered_ir(sch, m.args());
    QVERIFY2(contains(ir, "thread_allreduce_sum"), ir.c_str());
  }

  // A 'local' copy of A fetched by the threads together: each thread would
  // hold only its share of its own copy. Refused at lowering, naming it.
  void localStageBoundToThreadsIsRefused() {
    Matmul m;
    schedule::Schedule sch({m.c.op()});
    schedule::Stage s = sch[m.c];
    s.bind(s.axis()[0], "blockIdx.x");
    s.bind(s.axis()[1], "threadIdx.x");
    const te::Tensor local = sch.cache_read(m.a, "local", {m.c.op()});
    sch[local].compute_at(s, s.axis()[0]);
    sch[local].bind(sch[local].axis()[1], "threadIdx.x");
    try {
      tir::lower(sch, m.args(), "kernel");
      QFAIL("a thread-bound 'local' stage was lowered");
    } catch (const schedule::ScheduleError& e) {
      QVERIFY2(contains(e.what(), "stage 'A.local' binds its loop") &&
                   contains(e.what(), "(scope 'local') is each thread's own"),
               e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestLowering)
#include "tst_lowering.moc"
