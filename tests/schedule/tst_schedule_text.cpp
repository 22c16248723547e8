// The schedule text: TVM tutorial schedules parse into the expected trace,
// print/parse and JSON round trips preserve the trace, errors are reported at
// exact line:column, and mutated text never crashes the parser.
#include <QtTest>

#include <random>

#include "schedule/schedule_json.h"
#include "schedule/schedule_text.h"

using namespace lathe;
using namespace lathe::schedule;

namespace {

using Env = std::map<std::string, te::Tensor>;

// TVM's "How to optimize GEMM on CPU": C = A x B with B packed in blocks of bn.
Env gemm_env(int64_t n = 1024, int64_t bn = 32) {
  te::Tensor A = te::placeholder({n, n}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n, n}, te::DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(n, "k");
  te::Tensor packedB = te::compute(
      {n / bn, n, bn}, [&](const std::vector<te::Var>& v) { return B(v[1], v[0] * bn + v[2]); },
      "packedB", {"bigN", "k", "littleN"});
  te::Tensor C =
      te::compute({n, n},
                  [&](const std::vector<te::Var>& v) {
                    return te::sum(A(v[0], k.var()) * packedB(v[1] / bn, k.var(), v[1] % bn), {k});
                  },
                  "C", {"m", "n"});
  return {{"A", A}, {"B", B}, {"packedB", packedB}, {"C", C}};
}

// Plain matmul, as in the brief: C[i, j] = sum_k A[i, k] * B[k, j].
Env matmul_env(int64_t n = 1024) {
  te::Tensor A = te::placeholder({n, n}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n, n}, te::DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(n, "k");
  te::Tensor C = te::compute({n, n},
                             [&](const std::vector<te::Var>& v) {
                               return te::sum(A(v[0], k.var()) * B(k.var(), v[1]), {k});
                             },
                             "C", {"i", "j"});
  // E is in the environment but not reachable from C.
  te::Tensor E = te::placeholder({n}, te::DataType::Float(32), "E");
  return {{"A", A}, {"B", B}, {"C", C}, {"E", E}};
}

// B = A + 1, C = B * 2, D = C + 1: elementwise, for inline / compute_at.
Env chain_env(int64_t n = 4096) {
  te::Tensor A = te::placeholder({n}, te::DataType::Float(32), "A");
  te::Tensor B =
      te::compute({n}, [&](const std::vector<te::Var>& v) { return A(v[0]) + 1.0f; }, "B", {"i"});
  te::Tensor C =
      te::compute({n}, [&](const std::vector<te::Var>& v) { return B(v[0]) * 2.0f; }, "C", {"i"});
  te::Tensor D =
      te::compute({n}, [&](const std::vector<te::Var>& v) { return C(v[0]) + 1.0f; }, "D", {"i"});
  return {{"A", A}, {"B", B}, {"C", C}, {"D", D}};
}

QString step_string(const ScheduleStep& s) {
  auto list = [](const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& x : v) l << QString::fromStdString(x);
    return "[" + l.join(",") + "]";
  };
  QStringList ints;
  for (int64_t i : s.ints) ints << QString::number(i);
  return QString::fromStdString(s.primitive) + " " + QString::fromStdString(s.stage) + " " +
         list(s.axes) + " [" + ints.join(",") + "] " + list(s.strings) + " " + list(s.results);
}

QStringList trace_strings(const Schedule& s) {
  QStringList out;
  for (const ScheduleStep& step : s.trace()) out << step_string(step);
  return out;
}

// Parses, expecting failure; returns the diagnostics.
std::vector<ScheduleDiagnostic> diagnostics_of(const std::string& text, const Env& env) {
  try {
    parse_schedule(text, env);
  } catch (const ScheduleTextError& e) {
    return e.diagnostics();
  }
  return {};
}

const char* kGemmSchedule = R"(# TVM tutorial "How to optimize GEMM on CPU", parallel version
import tvm
from tvm import te

bn = 32
kfactor = 4

s = te.create_schedule(C.op)

# Allocate write cache
CC = s.cache_write(C, "global")

mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)

# Write cache is computed at no
s[CC].compute_at(s[C], no)

# New inner axes
mc, nc = s[CC].op.axis

(kaxis,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kaxis, factor=kfactor)
s[CC].reorder(ko, mc, ki, nc)
s[CC].vectorize(nc)

# unroll kfactor loops
s[CC].unroll(ki)

# parallel
s[C].parallel(mo)

bigN, _, littleN = s[packedB].op.axis
s[packedB].vectorize(littleN)
s[packedB].parallel(bigN)
)";

const char* kTileSchedule = R"(s = te.create_schedule(C.op)
xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=32, y_factor=32)
k, = s[C].op.reduce_axis
ko, ki = s[C].split(k, factor=4)
s[C].reorder(xo, yo, ko, xi, ki, yi)
f = s[C].fuse(xo, yo)
s[C].parallel(f)
s[C].pragma(f, "auto_unroll_max_step", 16)
s[C].unroll(ki); s[C].vectorize(yi)
)";

const char* kPrefetchSchedule = R"(s = te.create_schedule(C.op)
ko, ki = s[C].split(C.op.reduce_axis[0], factor=16)
s[C].reorder(C.op.axis[0], ko, C.op.axis[1], ki)
s[C].prefetch(B, ko, 1)
s[C].prefetch(A, C.op.axis[0], 2)
)";

const char* kGpuSchedule = R"(s = te.create_schedule(C.op)
CL = s.cache_write(C, "local")
AA = s.cache_read(A, "shared", [CL])
BB = s.cache_read(B, "shared", [CL.op])
AL = s.cache_read(AA, "local", [CL])
BL = s.cache_read(BB, "local", CL)
by, bx, ty, tx = s[C].tile(C.op.axis[0], C.op.axis[1], 64, 64)
s[C].bind(by, te.thread_axis("blockIdx.y"))
s[C].bind(bx, te.thread_axis("blockIdx.x"))
tyo, tyi = s[C].split(ty, nparts=8)
s[C].bind(tyo, te.thread_axis("threadIdx.y"))
s[CL].compute_at(s[C], tyo)
ko, ki = s[CL].split(CL.op.reduce_axis[0], factor=8)
s[AL].compute_at(s[CL], ki)
s[BL].compute_at(s[CL], ki)
s[AA].compute_at(s[AL], AL.op.axis[0])
s[AA].storage_align(AA.op.axis[0], 64, 1)
s[BB].storage_align(s[BB].op.axis[0], 32, 0)
)";

// TVM's fuse() of no axes: a new outermost loop of extent 1.
const char* kSingletonSchedule = R"(s = te.create_schedule(C.op)
one = s[C].fuse()
s[C].bind(one, te.thread_axis("blockIdx.x"))
s[C].bind(C.op.axis[0], te.thread_axis("threadIdx.x"))
)";

const char* kChainSchedule = R"(s = te.create_schedule(D.op)
s[B].compute_inline()
xo, xi = s[D].split(D.op.axis[0], factor=16)
s[C].compute_at(s[D], xo)
s[C].compute_root()
s[D].vectorize(xi)
s[D].parallel(xo)
)";

// TVM's reduction tutorial: factor the inner reduction loop out.
const char* kRfactorSchedule = R"(s = te.create_schedule(C.op)
ko, ki = s[C].split(C.op.reduce_axis[0], factor=16)
CF = s.rfactor(C, ki)
xo, xi = s[C].split(s[C].op.axis[0], factor=32)
s[C].parallel(xo)
s[CF].compute_at(s[C], s[C].op.reduce_axis[0])
s[CF].vectorize(CF.op.axis[0])
)";

// Unnamed: the factored op keeps its default name C.rf through the round trip.
const char* kRfactorUnnamedSchedule = R"(s = te.create_schedule(C.op)
ko, ki = s[C].split(C.op.reduce_axis[0], factor=4)
s.rfactor(C, ko, factor_axis=1)
s[C].vectorize(C.op.axis[1])
)";

// A cache stage's rfactor ("C.local" is no identifier): binds C_local_rf,
// as a split-k matrix-vector product without an epilogue does.
const char* kRfactorCacheSchedule = R"(s = te.create_schedule(C.op)
C_local = s.cache_write(C, "local")
k_parts, k_part = s[C_local].split(C_local.op.reduce_axis[0], nparts=4)
s.rfactor(C_local, k_parts)
s[C_local].compute_at(s[C], C.op.axis[0])
)";

// Names rebound across stages: the printer must reach C's xo another way.
const char* kRebindSchedule = R"(s = te.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=8)
xo, xi = s[packedB].split(packedB.op.axis[0], factor=4)
s[C].parallel(s[C].leaf_iter_vars[0])
s[packedB].vectorize(packedB.op.axis[2])
i = 2 * (3 + 1) // 4 - 1
s[C].unroll(s[C].leaf_iter_vars[-i])
)";

}  // namespace

class TestScheduleText : public QObject {
  Q_OBJECT

 private slots:
  void gemmTutorialParses() {
    Env env = gemm_env();
    std::unique_ptr<Schedule> s = parse_schedule(kGemmSchedule, env);
    QStringList expected = {
        "create_schedule  [] [] [C] []",
        "cache_write C [] [] [global] [CC]",
        "tile C [m,n] [32,32] [] [mo,no,mi,ni]",
        "compute_at C.global [no] [] [C] []",
        "split C.global [k] [4] [] [ko,ki]",
        "reorder C.global [ko,m_c,ki,n_c] [] [] []",
        "vectorize C.global [n_c] [] [] []",
        "unroll C.global [ki] [] [] []",
        "parallel C [mo] [] [] []",
        "vectorize packedB [littleN] [] [] []",
        "parallel packedB [bigN] [] [] []",
    };
    QCOMPARE(trace_strings(*s), expected);
    // The stages took the user's names and the attachments.
    Stage cc = s->find_stage("C.global");
    QVERIFY(cc.ref());
    QCOMPARE(int(cc.node().attach_type), int(AttachType::Scope));
    QCOMPARE(QString::fromStdString(cc.node().attach_ivar.name()), QString("no"));
    QStringList leaves;
    for (const IterVar& v : cc.node().leaf_iter_vars) leaves << QString::fromStdString(v.name());
    QCOMPARE(leaves, QStringList({"ko", "m_c", "ki", "n_c"}));
    Stage c = s->find_stage("C");
    leaves.clear();
    for (const IterVar& v : c.node().leaf_iter_vars) leaves << QString::fromStdString(v.name());
    QCOMPARE(leaves, QStringList({"mo", "no", "mi", "ni"}));
  }

  void roundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("env");
    QTest::newRow("gemm") << kGemmSchedule << "gemm";
    QTest::newRow("tile-fuse-pragma") << kTileSchedule << "matmul";
    QTest::newRow("gpu-cache-bind-align") << kGpuSchedule << "matmul";
    QTest::newRow("inline-compute_at-root") << kChainSchedule << "chain";
    QTest::newRow("rebound-names") << kRebindSchedule << "gemm";
    QTest::newRow("rfactor") << kRfactorSchedule << "matmul";
    QTest::newRow("rfactor-unnamed") << kRfactorUnnamedSchedule << "matmul";
    QTest::newRow("rfactor-of-a-cache") << kRfactorCacheSchedule << "matmul";
    QTest::newRow("prefetch") << kPrefetchSchedule << "matmul";
    QTest::newRow("singleton") << kSingletonSchedule << "matmul";
  }

  void roundTrip() {
    QFETCH(QString, text);
    QFETCH(QString, env);
    Env tensors = env == "gemm" ? gemm_env() : env == "chain" ? chain_env() : matmul_env();
    std::unique_ptr<Schedule> s = parse_schedule(text.toStdString(), tensors);
    std::string printed = print_schedule(*s);
    std::unique_ptr<Schedule> again;
    try {
      again = parse_schedule(printed, tensors);
    } catch (const ScheduleTextError& e) {
      QFAIL(qPrintable(QString::fromStdString(printed + "\n" + e.what())));
    }
    QCOMPARE(trace_strings(*again), trace_strings(*s));
    QVERIFY(again->trace() == s->trace());
    QCOMPARE(QString::fromStdString(print_schedule(*again)), QString::fromStdString(printed));
  }

  void rfactorNames() {
    Env env = matmul_env();
    std::unique_ptr<Schedule> named = parse_schedule(kRfactorSchedule, env);
    QCOMPARE(step_string(named->trace()[2]), QString("rfactor C [ki] [0] [] [CF]"));
    QVERIFY(named->find_stage("CF").ref());
    std::unique_ptr<Schedule> unnamed = parse_schedule(kRfactorUnnamedSchedule, env);
    QCOMPARE(step_string(unnamed->trace()[2]), QString("rfactor C [ko] [1] [] [C_rf]"));
    std::unique_ptr<Schedule> again = parse_schedule(print_schedule(*unnamed), env);
    QVERIFY(again->find_stage("C.rf").ref());
    std::unique_ptr<Schedule> from_json = schedule_from_json(schedule_to_json(*unnamed), env);
    QVERIFY(from_json->find_stage("C.rf").ref());
  }

  void printedForm() {
    Env env = gemm_env();
    std::unique_ptr<Schedule> s = parse_schedule(kRebindSchedule, env);
    QString printed = QString::fromStdString(print_schedule(*s));
    QString expected =
        "s = te.create_schedule(C.op)\n"
        "xo, xi = s[C].split(C.op.axis[0], factor=8)\n"
        "xo, xi = s[packedB].split(packedB.op.axis[0], factor=4)\n"
        "s[C].parallel(s[C].leaf_iter_vars[0])\n"
        "s[packedB].vectorize(packedB.op.axis[2])\n"
        "s[C].unroll(C.op.reduce_axis[0])\n";
    QCOMPARE(printed, expected);
  }

  // A schedule made through the C++ API, with default axis names.
  void apiScheduleRoundTrips() {
    Env env = matmul_env();
    Schedule s({env["C"].op()});
    Stage c = s[env["C"]];
    auto [io, ii] = c.split(c.axis()[0], 16);
    auto [jo, ji] = c.split_nparts(c.axis()[1], 4);
    c.reorder({io, jo, ii, ji});
    IterVar f = c.fuse(io, jo);
    c.parallel(f);
    Tensor cc = s.cache_read(env["A"], "local", {env["C"].op()});
    s[cc].compute_at(s[env["C"]], ii);
    std::string printed = print_schedule(s);
    QVERIFY2(
        printed.find("i_outer, i_inner = s[C].split(C.op.axis[0], factor=16)") != std::string::npos,
        printed.c_str());
    QVERIFY2(printed.find("A_local = s.cache_read(A, \"local\", [C])") != std::string::npos,
             printed.c_str());
    std::unique_ptr<Schedule> again = parse_schedule(printed, env);
    QCOMPARE(trace_strings(*again), trace_strings(s));
    QVERIFY(again->trace() == s.trace());
  }

  void jsonRoundTrip_data() { roundTrip_data(); }

  void jsonRoundTrip() {
    QFETCH(QString, text);
    QFETCH(QString, env);
    Env tensors = env == "gemm" ? gemm_env() : env == "chain" ? chain_env() : matmul_env();
    std::unique_ptr<Schedule> s = parse_schedule(text.toStdString(), tensors);
    nlohmann::json j = schedule_to_json(*s);
    QCOMPARE(QString::fromStdString(j["format"].get<std::string>()), QString("lathe-schedule"));
    QCOMPARE(j["version"].get<int>(), 1);
    std::unique_ptr<Schedule> again = schedule_from_json_text(j.dump(2), tensors);
    QVERIFY(again->trace() == s->trace());
    QCOMPARE(schedule_to_json(*again), j);
  }

  void jsonStepShape() {
    Env env = matmul_env();
    std::unique_ptr<Schedule> s = parse_schedule(
        "s = te.create_schedule(C.op)\nxo, xi = s[C].split(C.op.axis[0], 64)\n", env);
    nlohmann::json j = schedule_to_json(*s);
    QCOMPARE(j["steps"][1],
             nlohmann::json::parse(R"(["split", "C", ["i"], [64], [], ["xo", "xi"]])"));
  }

  void jsonMalformed_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    const QString head = R"({"format": "lathe-schedule", "version": 1, "steps": [)";
    const QString create = R"(["create_schedule", "", [], [], ["C"], []])";
    QTest::newRow("not json") << "{\"format\": " << 0 << 0 << "not valid JSON";
    QTest::newRow("array") << "[1, 2]" << 0 << 0 << "JSON object";
    QTest::newRow("format") << R"({"format": "x", "version": 1, "steps": []})" << 0 << 0
                            << "\"format\"";
    QTest::newRow("version") << R"({"format": "lathe-schedule", "version": 7, "steps": [1]})" << 0
                             << 0 << "version 7";
    QTest::newRow("no steps") << R"({"format": "lathe-schedule", "version": 1})" << 0 << 0
                              << "\"steps\"";
    QTest::newRow("short step") << head + create + R"(, ["split", "C"]]})" << 2 << 0 << "a step is";
    QTest::newRow("axis type") << head + create + R"(, ["split", "C", [1], [64], [], ["a","b"]]]})"
                               << 2 << 3 << "axes";
    QTest::newRow("int type") << head + create +
                                     R"(, ["split", "C", ["i"], ["64"], [], ["a","b"]]]})"
                              << 2 << 4 << "integers";
    QTest::newRow("unknown primitive")
        << head + create + R"(, ["spilt", "C", ["i"], [64], [], ["a","b"]]]})" << 2 << 1
        << "unknown schedule primitive";
    QTest::newRow("arity") << head + create + R"(, ["split", "C", ["i"], [64], [], ["a"]]]})" << 2
                           << 6 << "results";
    QTest::newRow("unknown axis") << head + create +
                                         R"(, ["split", "C", ["q"], [64], [], ["a","b"]]]})"
                                  << 2 << 3 << "no axis 'q'";
    QTest::newRow("unknown stage")
        << head + create + R"(, ["split", "Z", ["i"], [64], [], ["a","b"]]]})" << 2 << 2
        << "no stage 'Z'";
    QTest::newRow("unknown tensor") << head + R"(["create_schedule", "", [], [], ["Q"], []]]})" << 1
                                    << 5 << "unknown tensor 'Q'";
    QTest::newRow("primitive error")
        << head + create + R"(, ["split", "C", ["i"], [0], [], ["a","b"]]]})" << 2 << 0
        << "must be positive, got 0";
    QTest::newRow("late create") << head + create + "," + create + "]}" << 2 << 1
                                 << "only be the first step";
  }

  void jsonMalformed() {
    QFETCH(QString, json);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    try {
      schedule_from_json_text(json.toStdString(), matmul_env());
      QFAIL("expected a ScheduleTextError");
    } catch (const ScheduleTextError& e) {
      QCOMPARE(int(e.diagnostics().size()), 1);
      const ScheduleDiagnostic& d = e.diagnostics()[0];
      QVERIFY2(QString::fromStdString(d.message).contains(message), e.what());
      QCOMPARE(d.line, line);
      QCOMPARE(d.column, column);
    }
  }

  void diagnostics_data() {
    QTest::addColumn<QString>("env");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    const QString head = "s = te.create_schedule(C.op)\n";
    QTest::newRow("missing paren")
        << "matmul" << head + "xo, xi = s[C].split(C.op.axis[0], factor=64\ns[C].vectorize(xi)\n"
        << 2 << 20 << "'(' was never closed";
    QTest::newRow("missing paren at end")
        << "matmul" << head + "s[C].parallel(C.op.axis[0]" << 2 << 14 << "'(' was never closed";
    QTest::newRow("unknown tensor")
        << "matmul" << head + "xo, xi = s[D].split(C.op.axis[0], factor=4)\n"
        << 2 << 12 << "name 'D' is not defined";
    QTest::newRow("tensor outside the schedule")
        << "matmul" << head + "s[E].compute_inline()\n"
        << 2 << 3 << "tensor 'E' is not part of the schedule";
    QTest::newRow("unknown axis") << "matmul" << head + "s[C].vectorize(zz)\n"
                                  << 2 << 16 << "name 'zz' is not defined";
    QTest::newRow("axis index") << "matmul" << head + "s[C].vectorize(C.op.axis[2])\n"
                                << 2 << 26 << "index 2 is out of range";
    QTest::newRow("axis of another stage")
        << "matmul"
        << head + "AA = s.cache_read(A, \"shared\", [C])\ns[C].vectorize(AA.op.axis[1])\n"
        << 3 << 1 << "'ax1' is not an axis of stage 'C'";
    QTest::newRow("split by 0") << "matmul"
                                << head + "xo, xi = s[C].split(C.op.axis[0], factor=0)\n"
                                << 2 << 1 << "must be positive, got 0";
    QTest::newRow("vectorize reduction")
        << "matmul" << head + "\n# comment\ns[C].vectorize(C.op.reduce_axis[0])\n"
        << 4 << 1 << "cannot vectorize reduction axis 'k'";
    QTest::newRow("compute_at non-consumer")
        << "chain"
        << "s = te.create_schedule(D.op)\n  s[B].compute_at(s[D], D.op.axis[0])\n"
        << 2 << 3 << "does not consume 'B'";
    QTest::newRow("reorder twice")
        << "matmul"
        << head + "xo, xi = s[C].split(C.op.axis[0], factor=8)\ns[C].reorder(xi, xo, xi)\n"
        << 3 << 1 << "named twice";
    QTest::newRow("wrong keyword")
        << "matmul" << head + "xo, xi = s[C].split(C.op.axis[0], factr=4)\n"
        << 2 << 35 << "unexpected keyword argument 'factr'";
    QTest::newRow("missing argument") << "matmul" << head + "xo, xi = s[C].split(C.op.axis[0])\n"
                                      << 2 << 15 << "needs factor= or nparts=";
    QTest::newRow("too many arguments")
        << "matmul" << head + "s[C].parallel(C.op.axis[0], C.op.axis[1])\n"
        << 2 << 29 << "takes 1 argument";
    QTest::newRow("wrong kind") << "matmul" << head + "s[C].parallel(C)\n"
                                << 2 << 15 << "expects an axis here, got tensor 'C'";
    QTest::newRow("unpack count") << "matmul"
                                  << head + "a, b, c = s[C].split(C.op.axis[0], factor=4)\n"
                                  << 2 << 1 << "cannot unpack 2 values into 3 names";
    QTest::newRow("rfactor of a data axis")
        << "matmul" << head + "CF = s.rfactor(C, C.op.axis[0])\n"
        << 2 << 1 << "'i' is not a reduction axis";
    QTest::newRow("rfactor factor_axis")
        << "matmul"
        << head +
               "ko, ki = s[C].split(C.op.reduce_axis[0], factor=4)\n"
               "CF = s.rfactor(C, ki, factor_axis=-1)\n"
        << 3 << 35 << "factor_axis must be a dimension index";
    QTest::newRow("prefetch of a tensor not read")
        << "matmul" << head + "s[C].prefetch(E, C.op.axis[0], 1)\n"
        << 2 << 1 << "stage 'C' does not read 'E'";
    QTest::newRow("prefetch of a computed tensor")
        << "chain"
        << "s = te.create_schedule(D.op)\ns[D].prefetch(C, D.op.axis[0], 1)\n"
        << 2 << 1 << "only its inputs (placeholders) can be prefetched";
    QTest::newRow("prefetch offset") << "matmul" << head + "s[C].prefetch(B, C.op.axis[0], 0)\n"
                                     << 2 << 1 << "must be at least 1, got 0";
    QTest::newRow("unsupported primitive") << "matmul" << head + "s[C].double_buffer()\n"
                                           << 2 << 6 << "not supported by Lathe";
    QTest::newRow("no schedule") << "matmul"
                                 << "bn = 32\n"
                                 << 1 << 1 << "never creates a schedule";
    QTest::newRow("before the schedule") << "matmul"
                                         << "s[C].parallel(C.op.axis[0])\n"
                                         << 1 << 1 << "name 's' is not defined";
    QTest::newRow("stray character") << "matmul" << head + "s[C].parallel($)\n"
                                     << 2 << 15 << "unexpected character '$'";
    QTest::newRow("unterminated string") << "matmul" << head + "CC = s.cache_write(C, \"global)\n"
                                         << 2 << 23 << "unterminated string";
    QTest::newRow("first semantic error only")
        << "matmul" << head + "s[C].vectorize(q)\ns[C].vectorize(r)\n"
        << 2 << 16 << "name 'q' is not defined";
  }

  void diagnostics() {
    QFETCH(QString, env);
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    Env tensors = env == "chain" ? chain_env() : matmul_env();
    std::vector<ScheduleDiagnostic> d = diagnostics_of(text.toStdString(), tensors);
    QVERIFY2(!d.empty(), "expected a diagnostic");
    QString all;
    for (const auto& x : d) all += QString::fromStdString(x.to_string()) + "\n";
    QCOMPARE(int(d.size()), 1);
    QVERIFY2(QString::fromStdString(d[0].message).contains(message), qPrintable(all));
    QCOMPARE(d[0].line, line);
    QCOMPARE(d[0].column, column);
  }

  // Every line's syntax error is reported, each at its offending token.
  void allSyntaxErrorsReported() {
    const std::string text =
        "s = te.create_schedule(C.op)\n"
        "xo, xi = s[C].split(C.op.axis[0], factor=64\n"
        "s[C].parallel(xo))\n"
        "s[C].vectorize(xi xo)\n"
        "s[C].unroll(xi)\n"
        "s[C].reorder(xo,, xi)\n";
    try {
      parse_schedule(text, matmul_env());
      QFAIL("expected a ScheduleTextError");
    } catch (const ScheduleTextError& e) {
      QStringList got;
      for (const auto& d : e.diagnostics()) got << QString::fromStdString(d.to_string());
      QCOMPARE(got, QStringList({"2:20: '(' was never closed", "3:18: unmatched ')'",
                                 "4:19: expected ',' or ')', got name 'xo'",
                                 "6:17: expected an expression, got ','"}));
      QVERIFY(QString(e.what()).startsWith("2:20: '(' was never closed\n3:18:"));
    }
  }

  void multiLineCallAndSemicolons() {
    const std::string text =
        "s = te.create_schedule([C.op])\n"
        "xo, yo, xi, yi = s[C].tile(\n"
        "    C.op.axis[0],  # rows\n"
        "    C.op.axis[1],\n"
        ")\n"
        "s[C].parallel(xo); s[C].vectorize(yi)\n";
    QVERIFY_THROWS_EXCEPTION(ScheduleTextError, parse_schedule(text, matmul_env()));
    const std::string fixed =
        "s = te.create_schedule([C.op])\n"
        "xo, yo, xi, yi = s[C].tile(\n"
        "    C.op.axis[0],  # rows\n"
        "    C.op.axis[1], 8, \\\n"
        "    y_factor=8)\n"
        "s[C].parallel(xo); s[C].vectorize(yi)\n";
    std::unique_ptr<Schedule> s = parse_schedule(fixed, matmul_env());
    QCOMPARE(int(s->trace().size()), 4);
  }

  void fuzzedTextNeverCrashes() {
    const std::string base = std::string(kGemmSchedule);
    std::mt19937 rng(20240521);
    Env env = gemm_env();
    int parsed = 0, rejected = 0;
    for (int iter = 0; iter < 500; ++iter) {
      std::string text = base;
      int mutations = 1 + static_cast<int>(rng() % 3);
      for (int m = 0; m < mutations && text.size() > 2; ++m) {
        size_t at = rng() % (text.size() - 1);
        switch (rng() % 3) {
          case 0:
            text.erase(at, 1);
            break;
          case 1:
            text.insert(at, 1, text[at]);
            break;
          default:
            std::swap(text[at], text[at + 1]);
        }
      }
      try {
        std::unique_ptr<Schedule> s = parse_schedule(text, env);
        QVERIFY(s && !s->trace().empty());
        ++parsed;
        try {
          std::unique_ptr<Schedule> again = parse_schedule(print_schedule(*s), env);
          QVERIFY(again->trace() == s->trace());
        } catch (const ScheduleTextError& e) {
          QFAIL(qPrintable(QString("printed text does not parse: ") + e.what()));
        } catch (const Error&) {
          // Some traces have no text form (a rebound tensor name); that is reported.
        }
      } catch (const ScheduleTextError& e) {
        ++rejected;
        QVERIFY(!e.diagnostics().empty());
        for (const ScheduleDiagnostic& d : e.diagnostics()) {
          QVERIFY2(d.line >= 1 && d.column >= 1, qPrintable(QString::fromStdString(text)));
          QVERIFY(!d.message.empty());
        }
      }
    }
    QVERIFY(parsed > 0);
    QVERIFY(rejected > 0);
  }
};

QTEST_GUILESS_MAIN(TestScheduleText)
#include "tst_schedule_text.moc"
