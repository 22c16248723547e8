// The primitive table: every entry is reachable from the schedule text and
// records a step that prints, parses and replays from JSON to the same trace;
// the C++ API records what the text records; signatures and the errors of
// methods with several entries come from the table.
#include <QtTest>

#include "schedule/primitives.h"
#include "schedule/schedule_json.h"
#include "schedule/schedule_text.h"

using namespace lathe;
using namespace lathe::schedule;

namespace {

using Env = std::map<std::string, te::Tensor>;

// C[i, j] = sum_k A[i, k] * B[k, j]; D = C + 1 reads C.
Env matmul_env(int64_t n = 64) {
  te::Tensor A = te::placeholder({n, n}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n, n}, te::DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(n, "k");
  te::Tensor C = te::compute({n, n},
                             [&](const std::vector<te::Var>& v) {
                               return te::sum(A(v[0], k.var()) * B(k.var(), v[1]), {k});
                             },
                             "C", {"i", "j"});
  te::Tensor D = te::compute(
      {n, n}, [&](const std::vector<te::Var>& v) { return C(v[0], v[1]) + 1.0f; }, "D", {"i", "j"});
  // An int8 product whose inner loops are dot_16x4_u8s8's, once reordered.
  te::Tensor X = te::placeholder({8, 32}, te::DataType::UInt(8), "X");
  te::Tensor W = te::placeholder({2, 8, 16, 4}, te::DataType::Int(8), "W");
  te::IterVar kq = te::reduce_axis(8, "kq"), kl = te::reduce_axis(4, "kl");
  te::Tensor Q = te::compute({8, 2, 16},
                             [&](const std::vector<te::Var>& v) {
                               const te::DataType i32 = te::DataType::Int(32);
                               return te::sum(te::cast(i32, X(v[0], kq.var() * 4 + kl.var())) *
                                                  te::cast(i32, W(v[1], kq.var(), v[2], kl.var())),
                                              {kq, kl});
                             },
                             "Q", {"m", "nb", "ni"});
  return {{"A", A}, {"B", B}, {"C", C}, {"D", D}, {"X", X}, {"W", W}, {"Q", Q}};
}

// One use of each primitive, its statement last, on s = te.create_schedule(D.op).
const std::map<std::string, std::string> kSamples = {
    {"split", "xo, xi = s[C].split(C.op.axis[0], factor=8)"},
    {"split_nparts", "xo, xi = s[C].split(C.op.axis[0], nparts=4)"},
    {"tile", "xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 16)"},
    {"fuse",
     "xo, yo, xi, yi = s[D].tile(D.op.axis[0], D.op.axis[1], 8, 8)\n"
     "f = s[D].fuse(xo, yo, xi)"},
    {"reorder", "s[C].reorder(C.op.reduce_axis[0], C.op.axis[1], C.op.axis[0])"},
    {"parallel", "s[C].parallel(C.op.axis[0])"},
    {"vectorize", "s[D].vectorize(D.op.axis[1])"},
    {"unroll", "s[C].unroll(C.op.reduce_axis[0])"},
    {"compute_at", "s[C].compute_at(s[D], D.op.axis[0])"},
    {"compute_inline", "CC = s.cache_write(C, \"local\")\ns[C].compute_inline()"},
    {"compute_root", "s[C].compute_at(s[D], D.op.axis[0])\ns[C].compute_root()"},
    {"cache_read", "AA = s.cache_read(A, \"local\", [C])"},
    {"cache_write", "CC = s.cache_write(C, \"local\")"},
    {"rfactor",
     "ko, ki = s[C].split(C.op.reduce_axis[0], factor=4)\n"
     "CF = s.rfactor(C, ki, factor_axis=1)"},
    {"storage_align",
     "AA = s.cache_read(A, \"local\", [C])\n"
     "s[AA].storage_align(AA.op.axis[0], 16, 1)"},
    {"pragma", "s[C].pragma(C.op.axis[0], \"auto_unroll_max_step\", 16)"},
    {"prefetch", "s[C].prefetch(B, C.op.axis[0], 1)"},
    {"bind", "s[C].bind(C.op.axis[0], te.thread_axis(\"blockIdx.x\"))"},
    {"set_scope", "s[C].set_scope(\"local\")"},
    {"tensorize",
     "s[Q].reorder(Q.op.axis[0], Q.op.axis[1], Q.op.reduce_axis[0], Q.op.axis[2], "
     "Q.op.reduce_axis[1])\n"
     "s[Q].tensorize(Q.op.axis[2], \"dot_16x4_u8s8\")"},
};

std::string sample_text(const std::string& primitive) {
  const char* head = primitive == "tensorize" ? "s = te.create_schedule(Q.op)\n"
                                              : "s = te.create_schedule(D.op)\n";
  return head + kSamples.at(primitive) + "\n";
}

}  // namespace

class TestPrimitiveTable : public QObject {
  Q_OBJECT

 private slots:
  void everyPrimitiveHasASample() {
    for (const Primitive& p : primitives())
      QVERIFY2(kSamples.contains(p.name),
               qPrintable(QString("primitive '%1' has no sample in this test").arg(p.name)));
  }

  void everyPrimitiveRoundTrips_data() {
    QTest::addColumn<QString>("primitive");
    for (const Primitive& p : primitives()) QTest::newRow(p.name) << QString(p.name);
  }

  // Parsed, the sample records a step of its primitive; printed and parsed
  // again, or written to JSON and replayed, the trace is the same.
  void everyPrimitiveRoundTrips() {
    QFETCH(QString, primitive);
    const std::string name = primitive.toStdString();
    Env env = matmul_env();
    std::unique_ptr<Schedule> s;
    try {
      s = parse_schedule(sample_text(name), env);
    } catch (const ScheduleTextError& e) {
      QFAIL(e.what());
    }
    QCOMPARE(QString::fromStdString(s->trace().back().primitive), primitive);
    std::string printed;
    std::unique_ptr<Schedule> again, replayed;
    try {
      printed = print_schedule(*s);
      again = parse_schedule(printed, env);
      replayed = schedule_from_json(schedule_to_json(*s), env);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString::fromStdString(printed + "\n" + e.what())));
    }
    QVERIFY2(again->trace() == s->trace(), printed.c_str());
    QVERIFY(replayed->trace() == s->trace());
  }

  // n axes fuse in one step, which replays pairwise as TVM fuses them.
  void fuseOfThreeAxesIsOneStep() {
    std::unique_ptr<Schedule> s = parse_schedule(sample_text("fuse"), matmul_env());
    const ScheduleStep& step = s->trace().back();
    QCOMPARE(step.axes, (std::vector<std::string>{"xo", "yo", "xi"}));
    QCOMPARE(step.results, std::vector<std::string>{"f"});
    std::vector<std::string> leaves;
    for (const IterVar& v : s->find_stage("D").node().leaf_iter_vars) leaves.push_back(v.name());
    QCOMPARE(leaves, (std::vector<std::string>{"f", "yi"}));
  }

  // The C++ API goes through the same entries: its trace is the text's.
  void cppApiRecordsWhatTheTextRecords() {
    Env env = matmul_env();
    Schedule s({env["D"].op()});
    Stage c = s[env["C"]];
    auto [ko, ki] = c.split(c.reduce_axis()[0], 4);
    Tensor cf = s.rfactor(env["C"], ki, 1, "CF");
    s[cf].compute_at(s[env["C"]], s[env["C"]].reduce_axis()[0]);
    Tensor aa = s.cache_read(env["A"], "local", {cf.op()});
    s[env["D"]].bind(env["D"].op().as_compute()->axis[0], "blockIdx.x");
    std::unique_ptr<Schedule> text = parse_schedule(
        "s = te.create_schedule(D.op)\n"
        "k_outer, k_inner = s[C].split(C.op.reduce_axis[0], factor=4)\n"
        "CF = s.rfactor(C, k_inner, factor_axis=1)\n"
        "s[CF].compute_at(s[C], s[C].op.reduce_axis[0])\n"
        "A_local = s.cache_read(A, \"local\", [CF])\n"
        "s[D].bind(D.op.axis[0], te.thread_axis(\"blockIdx.x\"))\n",
        env);
    QVERIFY(text->trace() == s.trace());
  }

  void signaturesComeFromTheTable() {
    std::map<std::string, std::string> signatures;
    for (const MethodSignature& m : method_signatures()) signatures[m.method] = m.signature;
    QCOMPARE(signatures.size(), primitives().size() - 1);  // split_nparts is split's
    QCOMPARE(QString::fromStdString(signatures["split"]),
             QString("split(parent, factor=None, nparts=None) → outer, inner"));
    QCOMPARE(QString::fromStdString(signatures["fuse"]), QString("fuse(*args) → fused"));
    QCOMPARE(QString::fromStdString(signatures["rfactor"]),
             QString("s.rfactor(tensor, axis, factor_axis=0) → factored"));
    QCOMPARE(QString::fromStdString(signatures["bind"]), QString("bind(ivar, thread_ivar)"));
  }

  void methodErrors_data() {
    QTest::addColumn<QString>("statement");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    QTest::newRow("both entries") << "xo, xi = s[C].split(C.op.axis[0], factor=2, nparts=2)" << 45
                                  << "split() takes factor or nparts, not both";
    QTest::newRow("neither entry")
        << "xo, xi = s[C].split(C.op.axis[0])" << 15 << "split() needs factor= or nparts=";
    QTest::newRow("wrong kind") << "s[C].compute_at(D, D.op.axis[0])" << 17
                                << "compute_at() expects a stage (s[C]) here, got tensor 'D'";
    QTest::newRow("thread tag") << "s[C].bind(C.op.axis[0], \"blockIdx.x\")" << 25
                                << "bind() expects te.thread_axis";
    QTest::newRow("readers")
        << "AA = s.cache_read(A, \"local\", [C, 3])" << 31
        << "cache_read() expects tensors or operations here, got the integer 3";
    QTest::newRow("rejected") << "s[C].double_buffer()" << 6
                              << "Stage.double_buffer is not supported by Lathe: there are no";
    QTest::newRow("set_scope of an output")
        << "s[D].set_scope(\"local\")" << 1 << "set_scope: 'D' is an output";
    QTest::newRow("set_scope unknown")
        << "s[C].set_scope(\"texture\")" << 1 << "unknown storage scope 'texture'";
    QTest::newRow("rejected on s") << "s.normalize()" << 3 << "s.normalize is not supported";
    QTest::newRow("one thread index, two loops")
        << "s[C].bind(C.op.axis[0], te.thread_axis(\"threadIdx.x\")); "
           "s[C].bind(C.op.axis[1], te.thread_axis(\"threadIdx.x\"))"
        << 57 << "bind: loop 'i' of stage 'C' is already bound to threadIdx.x";
  }

  void methodErrors() {
    QFETCH(QString, statement);
    QFETCH(int, column);
    QFETCH(QString, message);
    try {
      parse_schedule("s = te.create_schedule(D.op)\n" + statement.toStdString() + "\n",
                     matmul_env());
      QFAIL("expected a ScheduleTextError");
    } catch (const ScheduleTextError& e) {
      QCOMPARE(int(e.diagnostics().size()), 1);
      const ScheduleDiagnostic& d = e.diagnostics()[0];
      QVERIFY2(QString::fromStdString(d.message).contains(message), e.what());
      QCOMPARE(d.line, 2);
      QCOMPARE(d.column, column);
    }
  }
};

QTEST_GUILESS_MAIN(TestPrimitiveTable)
#include "tst_primitive_table.moc"
