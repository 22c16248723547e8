// Constant bounds of integer expressions, bounds of nested loop ranges, the
// symbolic regions eval_region gives bound inference, and the span grids
// access_grid gives prefetching.
#include <QtTest>

#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/arith/access_grid.h"
#include "tir/arith/eval_region.h"
#include "tir/arith/interval.h"
#include "tir/arith/simplify.h"

using namespace lathe;
using arith::IntBounds;
using te::Expr;
using te::Var;

Q_DECLARE_METATYPE(lathe::te::Expr)
Q_DECLARE_METATYPE(lathe::arith::IntBounds)

namespace {

const Var i("i"), j("j"), x("x"), b("b", te::DataType::Bool());
const Var buf("buf", te::DataType::Handle());

arith::BoundMap var_bounds() {
  return {{i, IntBounds::range(0, 15)}, {j, IntBounds::range(0, 63)}};
}

bool same(const Expr& a, const Expr& b) {
  return te::structural_equal(arith::simplify(a), arith::simplify(b));
}

}  // namespace

class TestArithBounds : public QObject {
  Q_OBJECT

 private slots:
  void constBounds_data() {
    QTest::addColumn<Expr>("expr");
    QTest::addColumn<IntBounds>("expected");
    QTest::newRow("constant") << Expr(7) << IntBounds::single(7);
    QTest::newRow("unknown var") << Expr(x) << IntBounds::everything();
    QTest::newRow("bool var") << Expr(b) << IntBounds::range(0, 1);
    QTest::newRow("linear index") << i * 64 + j << IntBounds::range(0, 1023);
    QTest::newRow("negation") << 0 - j << IntBounds::range(-63, 0);
    QTest::newRow("product") << i * j << IntBounds::range(0, 945);
    QTest::newRow("times zero") << x * 0 << IntBounds::single(0);
    QTest::newRow("floordiv") << j / 8 << IntBounds::range(0, 7);
    QTest::newRow("floordiv negative") << (j - 64) / 8 << IntBounds::range(-8, -1);
    QTest::newRow("floordiv by var") << j / (i + 1) << IntBounds::range(0, 63);
    QTest::newRow("floormod") << j % 8 << IntBounds::range(0, 7);
    QTest::newRow("floormod one block") << (j + 64) % 128 << IntBounds::range(64, 127);
    QTest::newRow("floormod unknown") << x % 8 << IntBounds::range(0, 7);
    QTest::newRow("floormod negative divisor") << x % -8 << IntBounds::range(-7, 0);
    QTest::newRow("min") << te::min(j, 10) << IntBounds::range(0, 10);
    QTest::newRow("min unbounded") << te::min(x, 10) << IntBounds::at_most(10);
    QTest::newRow("max unbounded") << te::max(x, 3) << IntBounds::at_least(3);
    QTest::newRow("select") << te::select(x < 0, i, j + 1) << IntBounds::range(0, 64);
    QTest::newRow("comparison true") << (j < 64) << IntBounds::single(1);
    QTest::newRow("comparison open") << (j < 32) << IntBounds::range(0, 1);
    QTest::newRow("ramp") << te::ramp(i, 4, 8) << IntBounds::range(0, 43);
    QTest::newRow("broadcast") << te::broadcast(j, 4) << IntBounds::range(0, 63);
    QTest::newRow("load") << te::load(te::DataType::Int(32), buf, i) << IntBounds::everything();
    QTest::newRow("narrowing cast that fits")
        << te::cast(te::DataType::Int(8), j) << IntBounds::range(0, 63);
    QTest::newRow("narrowing cast that may wrap")
        << te::cast(te::DataType::Int(8), x) << IntBounds::range(-128, 127);
    Var v("v");
    QTest::newRow("let") << te::let(v, j * 2, v + 1) << IntBounds::range(1, 127);
  }

  void constBounds() {
    QFETCH(Expr, expr);
    QFETCH(IntBounds, expected);
    IntBounds got = arith::const_bounds(expr, var_bounds());
    QVERIFY2(got == expected,
             qPrintable(QString::fromStdString(te::to_string(expr) + ": got " + got.to_string() +
                                               ", expected " + expected.to_string())));
  }

  void boundsOfNestedRanges() {
    Var jo("jo"), ji("ji");
    te::VarMap<te::Range> ranges = {{jo, te::Range(0, 4)}, {ji, te::Range(jo * 8, 8)}};
    arith::BoundMap b = arith::bounds_of_ranges(ranges);
    QCOMPARE(b.at(jo), IntBounds::range(0, 3));
    QCOMPARE(b.at(ji), IntBounds::range(0, 31));
  }

  void evalRegion_data() {
    QTest::addColumn<Expr>("index");
    QTest::addColumn<Expr>("min");
    QTest::addColumn<Expr>("extent");
    // Relaxed: j over [0, 64); jo over [0, 4); ji over [jo*8, jo*8 + 8). i stays symbolic.
    Var jo("jo_r"), ji("ji_r");
    QTest::newRow("linear") << i * 64 + j << i * 64 << Expr(64);
    QTest::newRow("negative coefficient") << i * 64 - j << i * 64 - 63 << Expr(64);
    QTest::newRow("split divides") << (i * 64 + j) / 8 << i * 8 << Expr(8);
    QTest::newRow("floormod over blocks") << j % 16 << Expr(0) << Expr(16);
    QTest::newRow("floormod in one block") << (j / 16) % 4 << Expr(0) << Expr(4);
    QTest::newRow("min") << te::min(j, 10) << Expr(0) << Expr(11);
    QTest::newRow("constant") << Expr(5) << Expr(5) << Expr(1);
    QTest::newRow("outer only") << i * 3 << i * 3 << Expr(1);
    QTest::newRow("both relaxed") << jo * 8 + j << Expr(0) << Expr(88);
  }

  void evalRegion() {
    QFETCH(Expr, index);
    QFETCH(Expr, min);
    QFETCH(Expr, extent);
    te::VarMap<te::Range> dom = {{j, te::Range(0, 64)}};
    // Any relaxed var named jo_r in the index ranges over [0, 4).
    te::visit_expr(index, [&](const Expr& e) {
      if (e.kind() == te::ExprKind::Var && te::Var(e).name() == "jo_r")
        dom.emplace(te::Var(e), te::Range(0, 4));
    });
    te::Range r = arith::eval_region(index, dom);
    QVERIFY(r.min.defined() && r.extent.defined());
    QVERIFY2(same(r.min, min) && same(r.extent, extent),
             qPrintable(QString::fromStdString("[" + te::to_string(r.min) + ", +" +
                                               te::to_string(r.extent) + ")")));
  }

  void evalRegionSymbolicDomain() {
    // An inner loop whose range depends on an outer one that stays fixed...
    Var jo("jo"), ji("ji");
    te::Range r = arith::eval_region(ji * 2, {{ji, te::Range(jo * 8, 8)}});
    QVERIFY(same(r.min, jo * 16));
    QVERIFY(same(r.extent, 15));
    // ... or that is relaxed as well.
    r = arith::eval_region(ji, {{ji, te::Range(jo * 8, 8)}, {jo, te::Range(0, 4)}});
    QVERIFY(same(r.min, 0));
    QVERIFY(same(r.extent, 32));
  }

  void evalRegionFallsBack() {
    // A data-dependent index has no symbolic region, nor constant bounds.
    te::Range r =
        arith::eval_region(te::load(te::DataType::Int(32), buf, j), {{j, te::Range(0, 64)}});
    QVERIFY(!r.min.defined());
    // A non-linear one falls back to constant bounds: j*j over [0, 8).
    r = arith::eval_region(j * j, {{j, te::Range(0, 8)}});
    QVERIFY(same(r.min, 0));
    QVERIFY(same(r.extent, 50));
  }

  // Conv weights w[((oc * 4 + x) * 9 + k) * 16 + v] over two oc, the 9 taps
  // k and 16 lanes v: two spans of 144, 576 apart (the interval would be 720).
  void accessGridFoldsContiguousAxes() {
    const Var oc("oc"), k("k"), v("v");
    te::VarMap<te::Range> dom = {
        {oc, te::Range(0, 2)}, {k, te::Range(0, 9)}, {v, te::Range(0, 16)}};
    auto grid = arith::access_grid(((oc * 4 + x) * 9 + k) * 16 + v, dom);
    QVERIFY(grid.has_value());
    QVERIFY(same(grid->base, x * 144));
    QCOMPARE(grid->span_length, int64_t{144});
    QCOMPARE(grid->axes.size(), size_t{1});
    QCOMPARE(grid->axes[0].stride, int64_t{576});
    QCOMPARE(grid->axes[0].count, int64_t{2});
    QCOMPARE(grid->spans(), int64_t{2});
    // Overlapping windows (a 3-tap stencil over 8 outputs) make one span.
    grid = arith::access_grid(i + j, {{i, te::Range(0, 8)}, {j, te::Range(0, 3)}});
    QVERIFY(grid && grid->axes.empty() && grid->span_length == 10 && same(grid->base, 0));
    // A reversed walk starts at its last element.
    grid = arith::access_grid(x - i * 4, {{i, te::Range(0, 3)}});
    QVERIFY(grid && same(grid->base, x - 8) && grid->span_length == 1);
    QCOMPARE(grid->axes.size(), size_t{1});
    QCOMPARE(grid->axes[0].stride, int64_t{4});
    // Not affine in a relaxed variable: no grid.
    QVERIFY(!arith::access_grid(j * j, {{j, te::Range(0, 8)}}));
    QVERIFY(!arith::access_grid(j / 4, {{j, te::Range(0, 8)}}));
  }
};

QTEST_APPLESS_MAIN(TestArithBounds)
#include "tst_arith_bounds.moc"
