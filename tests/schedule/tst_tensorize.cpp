// tensorize: the schedule text's primitive over the declared tensor
// intrinsics (te/tensor_intrinsic.h). It parses, prints and replays from a
// tuning record's JSON like any primitive; lowering replaces the matched
// loops by the intrinsic's call; a stage whose loops, computation or layout
// differ from the declaration is refused at the statement's line, saying what
// differs.
#include <QtTest>

#include "schedule/schedule_json.h"
#include "schedule/schedule_text.h"
#include "tir/analysis/flop_count.h"
#include "tir/lower.h"
#include "tir/printer.h"

using namespace lathe;
using schedule::ScheduleTextError;

namespace {

using Env = std::map<std::string, te::Tensor>;

// Q[m, nb, ni] = sum int32(X[m, 4 kq + kl]) * int32(W[nb, kq, ni, kl]): the
// int8 dense that dot_16x4_u8s8 computes 16 lanes of; T reads its weights
// with the lanes and the four products swapped; C is a float matmul.
Env env() {
  const te::DataType i32 = te::DataType::Int(32);
  te::Tensor X = te::placeholder({8, 32}, te::DataType::UInt(8), "X");
  te::Tensor W = te::placeholder({2, 8, 16, 4}, te::DataType::Int(8), "W");
  te::Tensor WT = te::placeholder({2, 8, 4, 16}, te::DataType::Int(8), "WT");
  te::IterVar kq = te::reduce_axis(8, "kq"), kl = te::reduce_axis(4, "kl");
  te::Tensor Q = te::compute({8, 2, 16},
                             [&](const std::vector<te::Var>& v) {
                               return te::sum(te::cast(i32, X(v[0], kq.var() * 4 + kl.var())) *
                                                  te::cast(i32, W(v[1], kq.var(), v[2], kl.var())),
                                              {kq, kl});
                             },
                             "Q", {"m", "nb", "ni"});
  te::IterVar tq = te::reduce_axis(8, "kq"), tl = te::reduce_axis(4, "kl");
  te::Tensor T = te::compute({8, 2, 16},
                             [&](const std::vector<te::Var>& v) {
                               return te::sum(te::cast(i32, X(v[0], tq.var() * 4 + tl.var())) *
                                                  te::cast(i32, WT(v[1], tq.var(), tl.var(), v[2])),
                                              {tq, tl});
                             },
                             "T", {"m", "nb", "ni"});
  te::Tensor A = te::placeholder({16, 16}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({16, 16}, te::DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(16, "k");
  te::Tensor C = te::compute({16, 16},
                             [&](const std::vector<te::Var>& v) {
                               return te::sum(A(v[0], k.var()) * B(k.var(), v[1]), {k});
                             },
                             "C", {"i", "j"});
  return {{"X", X}, {"W", W}, {"WT", WT}, {"Q", Q}, {"T", T}, {"A", A}, {"B", B}, {"C", C}};
}

const char* kDense =
    "s = te.create_schedule(Q.op)\n"
    "m, nb, ni = s[Q].op.axis\n"
    "kq, kl = s[Q].op.reduce_axis\n"
    "s[Q].reorder(m, nb, kq, ni, kl)\n"
    "s[Q].tensorize(ni, \"dot_16x4_u8s8\")\n";

}  // namespace

class TestTensorize : public QObject {
  Q_OBJECT

 private slots:
  void printsAndReplays() {
    const Env e = env();
    std::unique_ptr<schedule::Schedule> s = schedule::parse_schedule(kDense, e);
    const schedule::ScheduleStep& step = s->trace().back();
    QCOMPARE(QString::fromStdString(step.primitive), QString("tensorize"));
    QCOMPARE(step.strings, std::vector<std::string>{"dot_16x4_u8s8"});
    const std::string printed = schedule::print_schedule(*s);
    QVERIFY2(printed.find(".tensorize(") != std::string::npos &&
                 printed.find("\"dot_16x4_u8s8\")") != std::string::npos,
             printed.c_str());
    QVERIFY(schedule::parse_schedule(printed, e)->trace() == s->trace());
    QVERIFY(schedule::schedule_from_json(schedule::schedule_to_json(*s), e)->trace() == s->trace());
  }

  // The region's two loops are gone: one call per (m, nb, kq), on the first
  // elements of Q's 16 lanes, X's 4 bytes and W's 64.
  void lowersToTheIntrinsicsCall() {
    const Env e = env();
    std::unique_ptr<schedule::Schedule> s = schedule::parse_schedule(kDense, e);
    tir::LoweredFunc f = tir::lower(*s, {e.at("X"), e.at("W"), e.at("Q")}, "dense");
    const std::string ir = tir::to_string(f.func);
    QVERIFY2(ir.find("T.dot_16x4_u8s8(Q[") != std::string::npos, ir.c_str());
    QVERIFY2(ir.find("for kl") == std::string::npos, ir.c_str());
    // What the roofline counts: 2 M N K int8 operations, none of them FLOPs.
    QCOMPARE(tir::count_int8_ops(f.func), 2.0 * 8 * 32 * 32);
    QCOMPARE(tir::count_flops(f.func), 0.0);
  }

  void mismatches_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    const QString head = "s = te.create_schedule(Q.op)\nm, nb, ni = s[Q].op.axis\n";
    QTest::newRow("loops not reordered")
        << head + "s[Q].tensorize(ni, \"dot_16x4_u8s8\")\n"
        << 3
        << "it replaces loops [i (data, 16), k (reduction, 4)], innermost last, but the loops "
           "from 'ni' inward are [ni (data, 16), kq (reduction, 8), kl (reduction, 4)]";
    QTest::newRow("too few lanes")
        << head +
               "kq, kl = s[Q].op.reduce_axis\nno, ni2 = s[Q].split(ni, factor=8)\n"
               "s[Q].reorder(m, nb, kq, no, ni2, kl)\n"
               "s[Q].tensorize(ni2, \"dot_16x4_u8s8\")\n"
        << 6 << "but the loops from 'ni2' inward are [ni2 (data, 8), kl (reduction, 4)]";
    QTest::newRow("unknown intrinsic")
        << head + "s[Q].tensorize(ni, \"dot_32x4\")\n"
        << 3 << "no tensor intrinsic 'dot_32x4'; declared are dot_16x4_u8s8, dot_8x4_u8s8";
    QTest::newRow("layout")
        << "s = te.create_schedule(T.op)\nm, nb, ni = s[T].op.axis\n"
           "kq, kl = s[T].op.reduce_axis\ns[T].reorder(m, nb, kq, ni, kl)\n"
           "s[T].tensorize(ni, \"dot_16x4_u8s8\")\n"
        << 5
        << "'WT' (the intrinsic's 'b') is not laid out as the intrinsic's b[i, k]: at ni=0, kl=1 "
           "the stage's element is 16 past the region's first, the intrinsic's 1";
    QTest::newRow("float computation")
        << "s = te.create_schedule(C.op)\ni, j = s[C].op.axis\nk, = s[C].op.reduce_axis\n"
           "ko, ki = s[C].split(k, factor=4)\ns[C].reorder(i, ko, j, ki)\n"
           "s[C].tensorize(j, \"dot_16x4_u8s8\")\n"
        << 6 << "(types and operations must agree)";
  }

  void mismatches() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, message);
    try {
      schedule::parse_schedule(text.toStdString(), env());
      QFAIL("expected a ScheduleTextError");
    } catch (const ScheduleTextError& e) {
      QCOMPARE(int(e.diagnostics().size()), 1);
      const schedule::ScheduleDiagnostic& d = e.diagnostics()[0];
      QVERIFY2(QString::fromStdString(d.message).contains(message), e.what());
      QCOMPARE(d.line, line);
      QCOMPARE(d.column, 1);
    }
  }
};

QTEST_GUILESS_MAIN(TestTensorize)
#include "tst_tensorize.moc"
