// Statement simplification: guards that loop ranges prove, loops of extent 0
// and 1, lets of constants, and sharing of what does not change.
#include <QtTest>

#include "te/expr_printer.h"
#include "tir/arith/simplify.h"
#include "tir/printer.h"

using namespace lathe;
using namespace lathe::tir;
using te::DataType;

namespace {

const Var A("A", DataType::Handle());
const Var x("x"), y("y");

Stmt store(Expr index, Expr value = Expr(1.0f)) {
  return make_store(A, value, index);
}

bool same(const Stmt& a, const Stmt& b) {
  return to_string(a) == to_string(b);
}

QString show(const Stmt& s) {
  return QString::fromStdString(to_string(s));
}

}  // namespace

class TestSimplifyStmt : public QObject {
  Q_OBJECT

 private slots:
  void removesProvablyTrueGuard() {
    Var io("io"), ii("ii");
    // for io in [0, 4): for ii in [0, 8): if io*8 + ii < 32: A[io*8 + ii] = 1
    Stmt s = make_for(
        io, 0, 4, ForKind::Serial,
        make_for(ii, 0, 8, ForKind::Serial, make_if(io * 8 + ii < 32, store(io * 8 + ii))));
    Stmt expected = make_for(io, 0, 4, ForKind::Serial,
                             make_for(ii, 0, 8, ForKind::Serial, store(io * 8 + ii)));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void keepsGuardThatMayFail() {
    Var io("io"), ii("ii");
    // A split of 30 by 8: the last iteration of io runs past the end.
    Stmt s = make_for(
        io, 0, 4, ForKind::Serial,
        make_for(ii, 0, 8, ForKind::Serial, make_if(io * 8 + ii < 30, store(io * 8 + ii))));
    QVERIFY(arith::simplify(s).same_as(s));
  }

  void provablyFalseGuardTakesElse() {
    Var i("i");
    Stmt s = make_for(i, 0, 16, ForKind::Serial, make_if(i >= 16, store(i), store(i + 16)));
    Stmt expected = make_for(i, 0, 16, ForKind::Serial, store(i + 16));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void guardNarrowsItsBody() {
    Var i("i");
    // Inside `if i < 8`, i // 8 is 0.
    Stmt s = make_for(i, 0, 16, ForKind::Serial, make_if(i < 8, store(i / 8 + i)));
    Stmt expected = make_for(i, 0, 16, ForKind::Serial, make_if(i < 8, store(i)));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void extentOneLoopBecomesItsBody() {
    Var k("k"), i("i");
    Stmt s = make_for(i, 0, 4, ForKind::Serial,
                      make_for(k, i * 2, 1, ForKind::Serial, store(k * 3 + 1)));
    Stmt expected = make_for(i, 0, 4, ForKind::Serial, store(i * 6 + 1));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void threadLoopOfExtentOneStays() {
    Var t("t");
    Stmt s = make_for(t, 0, 1, ForKind::ThreadBinding, store(t), "threadIdx.x");
    QVERIFY(arith::simplify(s).same_as(s));
  }

  void extentZeroLoopDisappears() {
    Var i("i"), j("j");
    Stmt empty = make_for(i, 0, 0, ForKind::Serial, store(i));
    Stmt s = make_seq({empty, make_for(j, 0, 4, ForKind::Serial, store(j))});
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, make_for(j, 0, 4, ForKind::Serial, store(j))), qPrintable(show(got)));
    // Alone, it leaves the no-op Evaluate(0).
    Stmt alone = arith::simplify(empty);
    QVERIFY(alone.as<EvaluateNode>() && te::is_const_int(alone.as<EvaluateNode>()->value, 0));
  }

  void letOfConstantIsSubstituted() {
    Var n("n"), i("i");
    Stmt s = make_let(n, 16, make_for(i, 0, n, ForKind::Serial, make_if(i < n, store(i))));
    Stmt expected = make_for(i, 0, 16, ForKind::Serial, store(i));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void letBoundsItsVariable() {
    Var n("n"), i("i");
    // n = i % 8 lies in [0, 8), so n < 8 holds.
    Stmt s = make_for(i, 0, 64, ForKind::Serial, make_let(n, x % 8, make_if(n < 8, store(n))));
    Stmt expected = make_for(i, 0, 64, ForKind::Serial, make_let(n, x % 8, store(n)));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void selectArmsInValues() {
    Var i("i");
    Stmt s =
        make_for(i, 0, 16, ForKind::Serial, store(i, te::select(i < 20, Expr(1.0f), Expr(2.0f))));
    Stmt expected = make_for(i, 0, 16, ForKind::Serial, store(i, Expr(1.0f)));
    Stmt got = arith::simplify(s);
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void symbolicLoopRange() {
    Var jo("jo"), ji("ji");
    // ji covers [jo*8, jo*8 + 8): its offset within the block is below 8.
    Stmt s = make_for(jo, 0, 4, ForKind::Serial,
                      make_for(ji, jo * 8, 8, ForKind::Serial, make_if(ji < 32, store(ji / 8))));
    Stmt got = arith::simplify(s);
    Stmt expected = make_for(jo, 0, 4, ForKind::Serial,
                             make_for(ji, jo * 8, 8, ForKind::Serial, store(ji / 8)));
    QVERIFY2(same(got, expected), qPrintable(show(got)));
  }

  void unchangedIsShared() {
    Var i("i");
    Stmt s = make_for(i, 0, 16, ForKind::Parallel, store(i * 4 + x, Expr(2.0f)));
    QVERIFY(arith::simplify(s).same_as(s));
  }
};

QTEST_APPLESS_MAIN(TestSimplifyStmt)
#include "tst_simplify_stmt.moc"
