// Each family of simplifier rules on small expressions, and can_prove:
// variables i in [0, 16), j in [0, 64), k in [0, 4); x, y, z unbounded.
#include <QtTest>

#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/arith/prove.h"
#include "tir/arith/simplify.h"

using namespace lathe;
using arith::IntBounds;
using te::DataType;
using te::Expr;
using te::Var;

Q_DECLARE_METATYPE(lathe::te::Expr)

namespace {

const Var i("i"), j("j"), k("k"), x("x"), y("y"), z("z");
const Var b("b", DataType::Bool()), c("c", DataType::Bool());
const Var f("f", DataType::Float(32)), g("g", DataType::Float(32));

arith::BoundMap var_bounds() {
  return {{i, IntBounds::from_extent(0, 16)},
          {j, IntBounds::from_extent(0, 64)},
          {k, IntBounds::from_extent(0, 4)}};
}

// An expression the constant-folding constructors leave alone: v bound to
// `value` by a Let, so that only the simplifier can fold it.
Expr via_let(Expr value, const std::function<Expr(Expr)>& body) {
  Var v("v", value.type());
  return te::let(v, value, body(v));
}

Expr bool_const(bool v, int lanes = 1) {
  return te::make_const(DataType::Bool(lanes), v);
}

void add_rows(std::initializer_list<std::tuple<const char*, Expr, Expr>> rows) {
  for (const auto& [name, input, expected] : rows) QTest::newRow(name) << input << expected;
}

}  // namespace

class TestSimplifyRules : public QObject {
  Q_OBJECT

 private:
  void columns() {
    QTest::addColumn<Expr>("input");
    QTest::addColumn<Expr>("expected");
  }

  void check() {
    QFETCH(Expr, input);
    QFETCH(Expr, expected);
    Expr got = arith::simplify(input, var_bounds());
    QVERIFY2(
        te::structural_equal(got, expected),
        qPrintable(QString::fromStdString(te::to_string(input) + "  =>  " + te::to_string(got) +
                                          "  (expected " + te::to_string(expected) + ")")));
    // Simplification is idempotent: a second pass finds nothing more.
    Expr again = arith::simplify(got, var_bounds());
    QVERIFY2(te::structural_equal(again, got),
             qPrintable(QString::fromStdString("not idempotent: " + te::to_string(got) + "  =>  " +
                                               te::to_string(again))));
  }

 private slots:
  void addSub_data() {
    columns();
    add_rows({
        {"x + 0", x + 0, x},
        {"split cancels", (i * 64 + j) - i * 64, j},
        {"like terms", x * 4 + x * 4, x * 8},
        {"constants collect", (x + 3) + (y - 3), x + y},
        {"constants fold to the end", (2 + x) + 3, x + 5},
        {"x - x", x - x, 0},
        {"commuted terms cancel", (x + y) - (y + x), 0},
        {"distribute constant", (x + 1) * 4, x * 4 + 4},
        {"positive term leads", (0 - x) + y, y - x},
        {"all negative", 5 - (x + 5), x * -1},
        {"split then fuse", (x / 8) * 8 + x % 8, x},
        {"fuse scaled", ((x + y) / 4) * 8 + ((x + y) % 4) * 2, x * 2 + y * 2},
        {"fold through let", via_let(Expr(3), [](Expr v) { return v + 4; }), 7},
        {"float + 0", f + 0.0f, f},
        {"float constants", via_let(Expr(1.5f), [](Expr v) { return v + 2.0f; }), Expr(3.5f)},
        {"float no reassociation", (f + 1.0f) - 1.0f, (f + 1.0f) - 1.0f},
    });
  }
  void addSub() { check(); }

  void mulDivMod_data() {
    columns();
    add_rows({
        {"x * 1", x * 1, x},
        {"x * 0", x * 0, 0},
        {"split div", (i * 64 + j) / 64, i},
        {"split mod", (i * 64 + j) % 64, j},
        {"x // 1", x / 1, x},
        {"x % 1", x % 1, 0},
        {"nested div", (x / 4) / 8, x / 32},
        {"div drops small constant", (x * 8 + 4) / 8, x},
        {"div splits divisible terms", (x * 8 + y) / 8, x + y / 8},
        {"div by common factor", (x * 6) / 3, x * 2},
        {"div cancels gcd", (x * 4 + 8) / 12, (x + 2) / 3},
        {"div in one block", (j + 64) / 64, 1},
        {"div of bounded var", j / 64, 0},
        {"div of unbounded stays", x / 8, x / 8},
        {"nested mod", (x % 16) % 4, x % 4},
        {"mod drops divisible terms", (x * 8 + 3) % 4, 3},
        {"mod of bounded var", j % 64, j},
        {"mod in one block", (j + 64) % 64, j},
        {"mod keeps remainder", (x * 8 + y) % 8, y % 8},
        {"inner split", ((i * 64 + j) / 8) % 8, j / 8},
        {"floor div folds", via_let(Expr(-7), [](Expr v) { return v / 2; }), -4},
        {"floor mod folds", via_let(Expr(-7), [](Expr v) { return v % 2; }), 1},
        {"floor mod negative divisor", via_let(Expr(7), [](Expr v) { return v % -2; }), -1},
        {"float / 1", f / 1.0f, f},
        {"float div not floor", (f / 2.0f) / 2.0f, (f / 2.0f) / 2.0f},
    });
  }
  void mulDivMod() { check(); }

  void compare_data() {
    columns();
    add_rows({
        {"bounded below limit", i < 16, bool_const(true)},
        {"bounded not decided", i < 15, i < 15},
        {"bounded above", j >= 0, bool_const(true)},
        {"linear index in range", i * 64 + j < 1024, bool_const(true)},
        {"linear index out of range", i * 64 + j >= 1024, bool_const(false)},
        {"x < x + 1", x < x + 1, bool_const(true)},
        {"x == x", x == x, bool_const(true)},
        {"x != x + 1", x != x + 1, bool_const(true)},
        {"common constant", x + 1 < y + 1, x < y},
        {"common term", x + z < y + z, x < y},
        {"constant moves right", x - 3 < y, x < y + 3},
        {"constant stays left", 3 < x, 3 < x},
        {"common factor", x * 4 < 8, x < 2},
        {"common factor rounds", x * 4 <= 7, x <= 1},
        {"parity", x * 2 == 3, bool_const(false)},
        {"float constants", via_let(Expr(1.0f), [](Expr v) { return v < 2.0f; }), bool_const(true)},
    });
  }
  void compare() { check(); }

  void minMax_data() {
    columns();
    add_rows({
        {"min(x, x)", te::min(x, x), x},
        {"min(x + 1, x)", te::min(x + 1, x), x},
        {"max(x + 1, x)", te::max(x + 1, x), x + 1},
        {"min of bounded", te::min(j, 64), j},
        {"max of bounded", te::max(j, 0), j},
        {"min not decided", te::min(j, 32), te::min(j, 32)},
        {"constant to the right", te::min(5, x), te::min(x, 5)},
        {"nested constants", te::min(te::min(x, 5), 3), te::min(x, 3)},
        {"nested max constants", te::max(te::max(x, 5), 3), te::max(x, 5)},
        {"max(min(x, y), x)", te::max(te::min(x, y), x), x},
        {"min(x, max(x, y))", te::min(x, te::max(x, y)), x},
        {"float min(f, f)", te::min(f, f), f},
    });
  }
  void minMax() { check(); }

  void logic_data() {
    columns();
    add_rows({
        {"select true", te::select(i < 16, x, y), x},
        {"select false", te::select(i >= 16, x, y), y},
        {"select same arms", te::select(b, x, x), x},
        {"select not", te::select(!b, x, y), te::select(b, y, x)},
        {"select bool arms", te::select(b, bool_const(true), bool_const(false)), b},
        {"select arm knows condition", te::select(i < 4, te::select(i < 8, x, y), z),
         te::select(i < 4, x, z)},
        {"select else arm knows", te::select(x < 4, y, te::select(x < 2, y, z)),
         te::select(x < 4, y, z)},
        {"true and b", bool_const(true) && b, b},
        {"b and false", b && bool_const(false), bool_const(false)},
        {"b or true", b || bool_const(true), bool_const(true)},
        {"b or false", b || bool_const(false), b},
        {"b and b", b && b, b},
        {"b and not b", b && !b, bool_const(false)},
        {"b or not b", b || !b, bool_const(true)},
        {"not not", !(!b), b},
        {"not less", !(x < y), x >= y},
        {"not float less stays", !(f < g), !(f < g)},
        {"not float equal", !(f == g), f != g},
        {"and drops proven part", i < 16 && x < y, x < y},
        {"and learns", x < 5 && x < 10, x < 5},
        {"or learns", x < 5 || x >= 5, bool_const(true)},
        {"and contradiction", x < 5 && x > 7, bool_const(false)},
    });
  }
  void logic() { check(); }

  void vector_data() {
    columns();
    add_rows({
        {"broadcast + broadcast", te::broadcast(x, 4) + te::broadcast(y, 4),
         te::broadcast(x + y, 4)},
        {"ramp + broadcast", te::ramp(x, 1, 4) + te::broadcast(y, 4), te::ramp(x + y, 1, 4)},
        {"broadcast + ramp", te::broadcast(y, 4) + te::ramp(x, 1, 4), te::ramp(y + x, 1, 4)},
        {"ramp + ramp", te::ramp(x, 1, 4) + te::ramp(y, 2, 4), te::ramp(x + y, 3, 4)},
        {"ramp - ramp", te::ramp(x, 1, 4) - te::ramp(x, 1, 4), te::broadcast(Expr(0), 4)},
        {"ramp * broadcast", te::ramp(x, 1, 4) * te::broadcast(Expr(4), 4), te::ramp(x * 4, 4, 4)},
        {"ramp of stride 0", te::ramp(x, 0, 4), te::broadcast(x, 4)},
        {"ramp div to broadcast", te::ramp(i * 8, 1, 8) / te::broadcast(Expr(8), 8),
         te::broadcast(i, 8)},
        {"ramp mod stays ramp", te::ramp(i * 8, 1, 8) % te::broadcast(Expr(8), 8),
         te::ramp(Expr(0), 1, 8)},
        {"ramp div crossing blocks", te::ramp(x, 1, 8) / te::broadcast(Expr(8), 8),
         te::ramp(x, 1, 8) / te::broadcast(Expr(8), 8)},
        // By residues, not bounds: x*16 is a multiple of 16 for every x, so a
        // block of 16 lanes never crosses a multiple of 144.
        {"ramp div by residues", te::ramp(x * 16, 1, 16) / te::broadcast(Expr(144), 16),
         te::broadcast(x / 9, 16)},
        {"ramp mod by residues", te::ramp(x * 16 % 144 + 32, 1, 16) % te::broadcast(Expr(48), 16),
         te::ramp((x * 16 % 144 + 32) % 48, 1, 16)},
        {"ramp div by residues through a widening cast",
         te::ramp(te::cast(DataType::Int(64), x * 8), te::make_int(1, DataType::Int(64)), 8) /
             te::broadcast(te::make_int(24, DataType::Int(64)), 8),
         te::broadcast(te::cast(DataType::Int(64), x * 8) / te::make_int(24, DataType::Int(64)),
                       8)},
        {"ramp div whose residue crosses",
         te::ramp(x * 16 + 1, 1, 16) / te::broadcast(Expr(144), 16),
         te::ramp(x * 16 + 1, 1, 16) / te::broadcast(Expr(144), 16)},
        // Lanes over several blocks from a base that is 0 modulo the block:
        // the same constant lanes for every x, plus x's quotient.
        {"ramp mod over blocks by residues", te::ramp(x * 16, 1, 16) % te::broadcast(Expr(8), 16),
         te::ramp(Expr(0), 1, 16) % te::broadcast(Expr(8), 16)},
        {"ramp div over blocks by residues",
         te::ramp(x * 16 + 3, 1, 16) / te::broadcast(Expr(8), 16),
         te::broadcast(x * 2, 16) + te::ramp(Expr(3), 1, 16) / te::broadcast(Expr(8), 16)},
        {"ramp div by a non-multiple stays", te::ramp(x * 16, 1, 16) / te::broadcast(Expr(40), 16),
         te::ramp(x * 16, 1, 16) / te::broadcast(Expr(40), 16)},
        {"ramp compare decided", te::ramp(Expr(0), 1, 4) < te::broadcast(Expr(4), 4),
         bool_const(true, 4)},
        {"broadcast compare", te::broadcast(x, 4) < te::broadcast(y, 4), te::broadcast(x < y, 4)},
        {"float broadcast", te::broadcast(f, 4) * te::broadcast(g, 4), te::broadcast(f * g, 4)},
    });
  }
  void vector() { check(); }

  void cast_data() {
    columns();
    add_rows({
        {"widen then narrow", te::cast(DataType::Int(32), te::cast(DataType::Int(64), x)), x},
        {"narrow then widen stays", te::cast(DataType::Int(32), te::cast(DataType::Int(8), x)),
         te::cast(DataType::Int(32), te::cast(DataType::Int(8), x))},
        {"int constant wraps",
         via_let(Expr(300), [](Expr v) { return te::cast(DataType::Int(8), v); }),
         te::make_int(44, DataType::Int(8))},
        {"float constant truncates",
         via_let(Expr(-2.7f), [](Expr v) { return te::cast(DataType::Int(32), v); }), -2},
        {"cast into broadcast", te::cast(DataType::Float(32, 4), te::broadcast(x, 4)),
         te::broadcast(te::cast(DataType::Float(32), x), 4)},
        {"widen ramp", te::cast(DataType::Int(64, 4), te::ramp(x, 1, 4)),
         te::ramp(te::cast(DataType::Int(64), x), te::make_int(1, DataType::Int(64)), 4)},
    });
  }
  void cast() { check(); }

  void prove_data() {
    QTest::addColumn<Expr>("cond");
    QTest::addColumn<bool>("provable");
    QTest::newRow("index in range") << (i * 64 + j < 1024) << true;
    QTest::newRow("index may exceed") << (i * 64 + j < 1000) << false;
    QTest::newRow("x < x + 1") << (x < x + 1) << true;
    QTest::newRow("unknown") << (x < y) << false;
    QTest::newRow("split reassembles") << ((x / 8) * 8 + x % 8 == x) << true;
    QTest::newRow("mod is below divisor") << (x % 8 < 8) << true;
    QTest::newRow("div of bounded") << (j / 8 <= 7) << true;
    QTest::newRow("vector in range")
        << (te::ramp(i * 4, 1, 4) < te::broadcast(Expr(64), 4)) << true;
  }
  void prove() {
    QFETCH(Expr, cond);
    QFETCH(bool, provable);
    QCOMPARE(arith::can_prove(cond, var_bounds()), provable);
  }

  void unchangedIsShared() {
    Expr e = te::min(j, 32) + x / 8;
    QVERIFY(arith::simplify(e, var_bounds()).same_as(e));
  }
};

QTEST_APPLESS_MAIN(TestSimplifyRules)
#include "tst_simplify_rules.moc"
