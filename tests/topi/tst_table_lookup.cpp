// Compile-time tables (topi/table_lookup): each lookup, evaluated at every
// position, gives the table's entry; a periodic table (the source rows and
// weights of an integer-ratio resize) costs a fixed number of selects however
// long it is, where a tree of its runs grew with the length.
#include <QtTest>

#include <cmath>
#include <functional>

#include "te/expr_functor.h"
#include "tir/arith/simplify.h"
#include "topi/table_lookup.h"

using namespace lathe;
using te::DataType;
using te::Expr;
using te::Var;

namespace {

// The expression's value with `pos` set to p, folded to a constant.
Expr at(const Expr& e, const Var& pos, int64_t p) {
  te::VarMap<Expr> map;
  map[pos] = te::make_int(p, pos.type());
  return arith::simplify(te::substitute(e, map));
}

int count_selects(const Expr& e) {
  int n = 0;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (const auto* s = x.as<te::SelectNode>()) {
      ++n;
      walk(s->cond);
      walk(s->true_value);
      walk(s->false_value);
    } else if (const auto* b = x.as<te::BinaryNode>()) {
      walk(b->a);
      walk(b->b);
    } else if (const auto* c = x.as<te::CastNode>()) {
      walk(c->value);
    }
  };
  walk(e);
  return n;
}

// Source row of each output row of a resize from `in` to `out` rows with
// half-pixel centres, clamped at the edges: i0 and the interpolation weight.
void half_pixel_taps(int64_t in, int64_t out, std::vector<int64_t>& index,
                     std::vector<double>& weight) {
  for (int64_t o = 0; o < out; ++o) {
    double c =
        (static_cast<double>(o) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
    c = std::max(c, 0.0);
    const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(c)), in - 1);
    index.push_back(i0);
    weight.push_back(c - std::floor(c));
  }
}

}  // namespace

class TestTableLookup : public QObject {
  Q_OBJECT

 private slots:
  void integerTablesGiveEveryEntry_data() {
    QTest::addColumn<std::vector<int64_t>>("values");
    QTest::addColumn<int>("maxSelects");
    std::vector<int64_t> up2, up3, up16;
    std::vector<double> unused;
    half_pixel_taps(31, 62, up2, unused);
    half_pixel_taps(10, 30, up3, unused);
    half_pixel_taps(16, 256, up16, unused);
    QTest::newRow("2x upsampling rows") << up2 << 4;
    QTest::newRow("3x upsampling rows") << up3 << 6;
    QTest::newRow("16x upsampling rows") << up16 << 10;
    std::vector<int64_t> stride3;
    for (int64_t p = 0; p < 40; ++p) stride3.push_back(5 + 3 * p);
    QTest::newRow("stride 3") << stride3 << 0;
    QTest::newRow("irregular") << std::vector<int64_t>{4, 0, 7, 7, 1, 9, 2, 2, 8, 3} << 9;
    QTest::newRow("runs") << std::vector<int64_t>{0, 1, 2, 3, 9, 9, 9, 4, 5, 6} << 3;
  }

  void integerTablesGiveEveryEntry() {
    QFETCH(std::vector<int64_t>, values);
    QFETCH(int, maxSelects);
    Var pos("pos", DataType::Int(32));
    const Expr e = topi::detail::table_lookup(values, pos);
    QVERIFY2(count_selects(e) <= maxSelects, qPrintable(QString::number(count_selects(e))));
    for (size_t p = 0; p < values.size(); ++p) {
      const Expr v = at(e, pos, static_cast<int64_t>(p));
      const int64_t* c = te::as_const_int(v);
      QVERIFY2(c, qPrintable(QString("position %1 did not fold").arg(p)));
      QCOMPARE(*c, values[p]);
    }
  }

  void floatTablesGiveEveryEntry_data() {
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<int>("maxSelects");
    std::vector<int64_t> unused;
    std::vector<double> up2, up3;
    half_pixel_taps(31, 62, unused, up2);
    half_pixel_taps(10, 30, unused, up3);  // thirds, differing in their last bits
    QTest::newRow("2x upsampling weights") << up2 << 4;
    QTest::newRow("3x upsampling weights") << up3 << 6;
    QTest::newRow("irregular") << std::vector<double>{0.5, 0.1, 0.9, 0.3, 0.3, 0.7, 0.2, 0.8} << 7;
  }

  void floatTablesGiveEveryEntry() {
    QFETCH(std::vector<double>, values);
    QFETCH(int, maxSelects);
    Var pos("pos", DataType::Int(32));
    const Expr e = topi::detail::float_table_lookup(values, pos, DataType::Float(64));
    QVERIFY2(count_selects(e) <= maxSelects, qPrintable(QString::number(count_selects(e))));
    for (size_t p = 0; p < values.size(); ++p) {
      const Expr v = at(e, pos, static_cast<int64_t>(p));
      const auto* f = v.as<te::FloatImmNode>();
      QVERIFY2(f, qPrintable(QString("position %1 did not fold").arg(p)));
      QVERIFY2(
          std::abs(f->value - values[p]) <= 1e-12,
          qPrintable(QString("position %1: %2, expected %3").arg(p).arg(f->value).arg(values[p])));
    }
  }
};

QTEST_GUILESS_MAIN(TestTableLookup)
#include "tst_table_lookup.moc"
