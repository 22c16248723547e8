// Per-loop costs computed by hand on small loop nests: trip counts, the
// working set of one iteration and the level it fits in, the reuse distance
// of each access and the loop that carries it, spill marks and the time
// shares of sibling loops; and the printer's line of each loop, where the
// studio puts them.
#include <QtTest>

#include "driver/loop_costs.h"
#include "hand_written_tir.h"
#include "tir/analysis/loop_costs.h"
#include "tir/printer.h"

using namespace lathe;
using namespace lathe::tir;
using te::DataType;

namespace {

const DataType f32 = testing::kF32;
constexpr auto buffer = testing::f32_buffer;
constexpr auto load = testing::f32_load;

// A small hierarchy, so that small nests spill: a 64 B register file, 1 KB
// L1, 16 KB L2, 256 KB L3. Writes cost what reads do (read+write GB/s equal
// to read GB/s), DRAM is much the slowest.
LoopCostMachine machine() {
  LoopCostMachine m;
  m.peak_gflops = 1000;
  m.register_file_bytes = 64;
  m.bandwidth.threads = 1;
  m.bandwidth.levels = {{"L1", 1 << 10, 1, 1 << 10, 1000, 1000},
                        {"L2", 16 << 10, 1, 16 << 10, 500, 500},
                        {"L3", 256 << 10, 1, 256 << 10, 200, 200},
                        {"DRAM", 0, 1, 1 << 20, 1, 1}};
  return m;
}

const AccessReuse* reuse_of(const LoopCost& loop, const std::string& buffer) {
  for (const AccessReuse& r : loop.reuse)
    if (r.buffer == buffer) return &r;
  return nullptr;
}

// for i in [0, 64): for j in [0, 64): for k in [0, 64):
//   C[i*64 + j] = C[i*64 + j] + A[i*64 + k] * B[k*64 + j]  (+ bias[j] with `bias`)
PrimFunc naive_matmul(bool bias = false) {
  Buffer a = buffer("A", 64 * 64), b = buffer("B", 64 * 64), c = buffer("C", 64 * 64),
         d = buffer("bias", 64);
  Var i("i"), j("j"), k("k");
  Expr sum = load(c, i * 64 + j) + load(a, i * 64 + k) * load(b, k * 64 + j);
  Stmt update = make_store(c.data, bias ? sum + load(d, j) : sum, i * 64 + j);
  Stmt nest =
      make_for(i, 0, 64, ForKind::Serial,
               make_for(j, 0, 64, ForKind::Serial, make_for(k, 0, 64, ForKind::Serial, update)));
  if (bias) return {"matmul_bias", {a, b, c, d}, nest};
  return {"matmul", {a, b, c}, nest};
}

}  // namespace

class TestLoopCosts : public QObject {
  Q_OBJECT

 private slots:
  void naiveMatmul() {
    const LoopCosts costs = loop_costs(naive_matmul(), machine());
    QCOMPARE(costs.loops.size(), size_t{3});
    const LoopCost &i = costs.loops[0], &j = costs.loops[1], &k = costs.loops[2];
    QCOMPARE(i.loop_var, std::string("i"));
    QCOMPARE(k.parent, 1);
    for (const LoopCost* l : {&i, &j, &k}) QCOMPARE(l->trip_count, int64_t{64});
    QCOMPARE(k.executions, 64.0 * 64);

    // One iteration of k: an element of each matrix.
    QCOMPARE(k.working_set_bytes, 12.0);
    QCOMPARE(k.fits_in, std::string("L1"));
    // One of j: a row of A, a column of B (64 floats 256 B apart: a 64-byte
    // line each), an element of C.
    QCOMPARE(j.working_set_bytes, 256.0 + 64 * 64 + 4);
    QCOMPARE(j.fits_in, std::string("L2"));
    QCOMPARE(j.buffers.size(), size_t{3});
    QCOMPARE(j.buffers[2].buffer, std::string("B"));
    QCOMPARE(j.buffers[2].bytes, 4096.0);
    QCOMPARE(j.buffers[2].used_bytes, 256.0);
    // One of i: a row of A, all of B, a row of C: 16.5 KB, over L2's 16 KB.
    QCOMPARE(i.working_set_bytes, 256.0 + 16384 + 256);
    QCOMPARE(i.fits_in, std::string("L3"));
    QCOMPARE(i.buffers.size(), size_t{3});
    QCOMPARE(i.buffers[1].buffer, std::string("A"));  // first accessed: C's load, then A, B
    QCOMPARE(i.buffers[1].bytes, 256.0);

    // C's element is reused across k, A's row across j, all of B across i:
    // each at the distance of one iteration of its carrier.
    QCOMPARE(k.reuse.size(), size_t{2});  // C read and C stored
    QCOMPARE(reuse_of(k, "C")->distance_bytes, 12.0);
    QCOMPARE(reuse_of(j, "A")->distance_bytes, 4356.0);
    QCOMPARE(reuse_of(j, "A")->hits_in, std::string("L2"));
    QVERIFY(!reuse_of(j, "B"));  // B[k*64 + j]: a column over, never the same element
    QCOMPARE(reuse_of(i, "B")->distance_bytes, 16896.0);
    QCOMPARE(reuse_of(i, "B")->hits_in, std::string("L3"));

    // So i is marked: B is read 64 times over, from L3. k fits.
    QVERIFY(i.spill);
    QCOMPARE(i.spill->level, std::string("L2"));
    QCOMPARE(i.spill->capacity_bytes, int64_t{16 << 10});
    QCOMPARE(i.spill->served_by, std::string("L3"));
    QCOMPARE(i.spill->rereads.size(), size_t{1});
    QCOMPARE(i.spill->rereads[0].buffer, std::string("B"));
    QCOMPARE(i.spill->rereads[0].times, 64.0);
    // And j: its column of B is 64 lines, over the 1 KB L1, so A's row comes
    // from L2 again for every j.
    QVERIFY(j.spill);
    QCOMPARE(j.spill->level, std::string("L1"));
    QCOMPARE(j.spill->served_by, std::string("L2"));
    QCOMPARE(j.spill->rereads.size(), size_t{1});
    QCOMPARE(j.spill->rereads[0].buffer, std::string("A"));
    QCOMPARE(j.spill->rereads[0].times, 64.0);
    QVERIFY(!k.spill);

    // The loops nest: each holds the whole kernel's FLOPs and time.
    QCOMPARE(k.flops, 2.0 * 64 * 64 * 64);
    QCOMPARE(i.time_share, 1.0);
  }

  void aSmallBufferReadAgainIsNotBlamedForTheSpill() {
    // The bias row (256 B) is read again in every iteration of i too, but
    // beside B's 16 KB it is not what overflows L2.
    const LoopCost i = loop_costs(naive_matmul(/*bias=*/true), machine()).loops[0];
    QVERIFY(reuse_of(i, "bias"));
    QVERIFY(i.spill);
    QCOMPARE(i.spill->rereads.size(), size_t{1});
    QCOMPARE(i.spill->rereads[0].buffer, std::string("B"));
  }

  void slidingWindowReuseIsCarriedByTheOuterLoop() {
    // for i in [0, 100): for k in [0, 3): B[i] = B[i] + A[i + k]
    Buffer a = buffer("A", 102), b = buffer("B", 100);
    Var i("i"), k("k");
    Stmt window = make_for(
        i, 0, 100, ForKind::Serial,
        make_for(k, 0, 3, ForKind::Serial, make_store(b.data, load(b, i) + load(a, i + k), i)));
    const LoopCosts costs = loop_costs({"window", {a, b}, window}, machine());
    const LoopCost &outer = costs.loops[0], &inner = costs.loops[1];
    // A's element i + k is read again at (i + 1, k - 1): i carries it, one
    // iteration of i (3 floats of A, one of B) apart.
    QCOMPARE(reuse_of(outer, "A")->distance_bytes, 16.0);
    QVERIFY(!reuse_of(inner, "A"));
    QCOMPARE(reuse_of(inner, "B")->distance_bytes, 8.0);
    QVERIFY(!reuse_of(outer, "B"));
    QVERIFY(!outer.spill);
  }

  void nestedLoopsThatLeaveAnIndexAloneAreOneReuse() {
    // for i in [0, 4): for j in [0, 4): for k in [0, 4): C[k] = C[k] + A[i*16 + j*4 + k]
    Buffer a = buffer("A", 64), c = buffer("C", 4);
    Var i("i"), j("j"), k("k");
    Stmt nest = make_for(
        i, 0, 4, ForKind::Serial,
        make_for(j, 0, 4, ForKind::Serial,
                 make_for(k, 0, 4, ForKind::Serial,
                          make_store(c.data, load(c, k) + load(a, i * 16 + j * 4 + k), k))));
    const LoopCosts costs = loop_costs({"sum_rows", {a, c}, nest}, machine());
    // C[k] is used again one iteration of j later (4 floats of A, 4 of C),
    // including from the last j of one i to the first of the next: no
    // second, longer reuse across i.
    QCOMPARE(reuse_of(costs.loops[1], "C")->distance_bytes, 32.0);
    QVERIFY(!reuse_of(costs.loops[0], "C"));
    QVERIFY(!reuse_of(costs.loops[2], "C"));
  }

  void bufferAllocatedInsideALoopCarriesNoReuseAcrossIt() {
    // for i in [0, 8): allocate T[4]; for j in [0, 4): T[j] = A[i*4 + j]
    //                                 for k in [0, 4): C[i*4 + k] = T[k]
    Buffer a = buffer("A", 32), c = buffer("C", 32);
    Var t("T", DataType::Handle()), i("i"), j("j"), k("k");
    Stmt produce = make_for(j, 0, 4, ForKind::Serial, make_store(t, load(a, i * 4 + j), j));
    Stmt consume =
        make_for(k, 0, 4, ForKind::Serial, make_store(c.data, te::load(f32, t, k), i * 4 + k));
    Stmt body = make_for(i, 0, 8, ForKind::Serial,
                         make_allocate(t, f32, {4}, make_seq({produce, consume})));
    const LoopCosts costs = loop_costs({"staged", {a, c}, body}, machine());
    // T's index does not use i, but each iteration of i writes T afresh.
    for (const LoopCost& l : costs.loops) QVERIFY2(l.reuse.empty(), l.loop_var.c_str());
  }

  void siblingLoopsShareTheTimeByTheirTraffic() {
    // for i in [0, 256): B[i] = A[i];  for j in [0, 768): D[j] = C[j]
    // No FLOPs; 8 KB fit L3, so DRAM (the slowest) sees each byte once:
    // 2 KB for the first loop, 6 KB for the second.
    Buffer a = buffer("A", 256), b = buffer("B", 256), c = buffer("C", 768), d = buffer("D", 768);
    Var i("i"), j("j");
    Stmt body = make_seq({make_for(i, 0, 256, ForKind::Serial, make_store(b.data, load(a, i), i)),
                          make_for(j, 0, 768, ForKind::Serial, make_store(d.data, load(c, j), j))});
    const LoopCosts costs = loop_costs({"copies", {a, b, c, d}, body}, machine());
    QCOMPARE(costs.estimated_seconds, 8192.0 / 1e9);
    QCOMPARE(costs.loops[0].time_share, 0.25);
    QCOMPARE(costs.loops[1].time_share, 0.75);
    QCOMPARE(costs.loops[1].estimated_seconds, 6144.0 / 1e9);
  }

  void printerLinesAndNotesFollowTheLoops() {
    const PrimFunc f = naive_matmul();
    const PrintedFunc printed = print_with_loop_lines(f);
    QCOMPARE(printed.text, to_string(f));
    const driver::AnnotatedLoopIR annotated = driver::annotated_loop_ir(f, machine());
    QCOMPARE(annotated.loop_ir, printed.text);
    QCOMPARE(annotated.loops.size(), size_t{3});
    const QStringList lines = QString::fromStdString(annotated.loop_ir).split(QLatin1Char('\n'));
    for (const driver::LoopNote& loop : annotated.loops) {
      const QString line = lines.value(loop.line).trimmed();
      QVERIFY2(line.startsWith(QStringLiteral("for %1 in").arg(loop.cost.loop_var.c_str())),
               qPrintable(line));
    }
    QCOMPARE(annotated.loops[1].line, annotated.loops[0].line + 1);
    QCOMPARE(annotated.loops[0].note, std::string("×64 · 100% · 16.5 KB (L3)"));
    QCOMPARE(annotated.loops[0].spill_reason,
             std::string("one iteration's working set 16.5 KB (C 256 B, A 256 B, B 16.0 KB) "
                         "exceeds L2 (16.0 KB): B is re-read 64 times from L3"));
    QCOMPARE(
        annotated.loops[1].spill_reason,
        std::string(
            "one iteration's working set 4.3 KB (C 4 B, A 256 B, B 4.0 KB for 256 B used) exceeds "
            "L1 (1.0 KB): A is re-read 64 times from L2"));
    QVERIFY(annotated.loops[2].spill_reason.empty());
    QVERIFY(annotated.loops[0].explanation.starts_with(annotated.loops[0].spill_reason));
  }
};

QTEST_GUILESS_MAIN(TestLoopCosts)
#include "tst_loop_costs.moc"
