// The check that catches wrong rewrites: random integer expressions over three
// bounded variables are simplified (with and without the bounds) and both
// forms are evaluated on every point of the variables' ranges. Also the
// simplifier's speed on a large expression.
#include <QtTest>

#include <chrono>
#include <random>

#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/arith/simplify.h"

using namespace lathe;
using arith::IntBounds;
using te::Expr;
using te::ExprKind;
using te::Var;

namespace {

int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// A direct evaluator with floor division, written independently of the simplifier.
struct Evaluator {
  const Var* vars;
  const int64_t* values;
  int nvars;
  int lane = 0;  // which lane of a vector expression
  bool divided_by_zero = false;

  int64_t eval(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
        return e.as<te::IntImmNode>()->value;
      case ExprKind::Var:
        for (int v = 0; v < nvars; ++v)
          if (vars[v].same_as(e)) return values[v];
        qFatal("unbound variable");
      case ExprKind::Not:
        return !eval(e.as<te::NotNode>()->a);
      case ExprKind::Select: {
        const auto* n = e.as<te::SelectNode>();
        return eval(n->cond) ? eval(n->true_value) : eval(n->false_value);
      }
      case ExprKind::Cast:
        return eval(e.as<te::CastNode>()->value);
      case ExprKind::Ramp: {
        const auto* n = e.as<te::RampNode>();
        return eval(n->base) + eval(n->stride) * lane;
      }
      case ExprKind::Broadcast:
        return eval(e.as<te::BroadcastNode>()->value);
      default:
        break;
    }
    const auto* n = e.as<te::BinaryNode>();
    if (!n) qFatal("unexpected node %s", te::kind_name(e.kind()));
    int64_t a = eval(n->a), b = eval(n->b);
    switch (e.kind()) {
      case ExprKind::Add:
        return a + b;
      case ExprKind::Sub:
        return a - b;
      case ExprKind::Mul:
        return a * b;
      case ExprKind::Div:
        if (b == 0) return divided_by_zero = true, 0;
        return floordiv(a, b);
      case ExprKind::Mod:
        if (b == 0) return divided_by_zero = true, 0;
        return a - floordiv(a, b) * b;
      case ExprKind::Min:
        return std::min(a, b);
      case ExprKind::Max:
        return std::max(a, b);
      case ExprKind::EQ:
        return a == b;
      case ExprKind::NE:
        return a != b;
      case ExprKind::LT:
        return a < b;
      case ExprKind::LE:
        return a <= b;
      case ExprKind::GT:
        return a > b;
      case ExprKind::GE:
        return a >= b;
      case ExprKind::And:
        return a && b;
      case ExprKind::Or:
        return a || b;
      default:
        qFatal("unexpected node %s", te::kind_name(e.kind()));
    }
  }
};

// Random expressions shaped like index arithmetic: products and quotients by
// small (often power-of-two) constants, splits and fuses, min/max clamps and
// guarded selects, so that the bound-dependent rules fire often.
class Generator {
 public:
  Generator(std::mt19937& rng, const Var* vars) : rng_(rng), vars_(vars) {}

  Expr integer(int depth) {
    if (depth <= 0 || pick(5) == 0) return leaf();
    switch (pick(12)) {
      case 0:
      case 1:
        return integer(depth - 1) + integer(depth - 1);
      case 2:
        return integer(depth - 1) - integer(depth - 1);
      case 3:
        return integer(depth - 1) * factor();
      case 4:
        return pick(4) == 0 ? integer(depth - 1) * integer(depth - 1) : integer(depth - 1) * 8;
      case 5:
        return integer(depth - 1) / divisor();
      case 6:
        return integer(depth - 1) % divisor();
      case 7: {
        // A split and its inverse, with the pieces sometimes reordered.
        Expr x = integer(depth - 1);
        Expr c = divisor();
        return pick(2) ? (x / c) * c + x % c : x % c + (x / c) * c;
      }
      case 8:
        return te::min(integer(depth - 1), integer(depth - 1));
      case 9:
        return te::max(integer(depth - 1), integer(depth - 1));
      case 10:
        return te::select(condition(depth - 1), integer(depth - 1), integer(depth - 1));
      default:
        return (integer(depth - 1) * divisor() + integer(depth - 1)) / divisor();
    }
  }

  Expr condition(int depth) {
    switch (pick(6)) {
      case 0:
        return condition(depth - 1) && condition(depth - 1);
      case 1:
        return condition(depth - 1) || condition(depth - 1);
      case 2:
        return !condition(depth - 1);
      default: {
        Expr a = integer(depth), b = integer(depth - 1);
        switch (pick(6)) {
          case 0:
            return a < b;
          case 1:
            return a <= b;
          case 2:
            return a > b;
          case 3:
            return a >= b;
          case 4:
            return a == b;
          default:
            return a != b;
        }
      }
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  Expr leaf() {
    if (pick(3) == 0) return Expr(pick(25) - 8);
    return vars_[pick(3)];
  }
  Expr factor() {
    static const int factors[] = {-3, -1, 0, 1, 2, 3, 4, 8, 16, 64};
    return Expr(factors[pick(10)]);
  }
  Expr divisor() {
    static const int divisors[] = {1, 2, 3, 4, 8, 8, 16, 64, -2, -4};
    return Expr(divisors[pick(10)]);
  }

  std::mt19937& rng_;
  const Var* vars_;
};

int count_nodes(const Expr& e) {
  int n = 0;
  te::visit_expr(e, [&](const Expr&) { ++n; });
  return n;
}

}  // namespace

class TestSimplifyRandom : public QObject {
  Q_OBJECT

 private slots:
  void randomExpressionsKeepTheirValue() {
    const Var vars[3] = {Var("x"), Var("y"), Var("z")};
    const IntBounds ranges[3] = {IntBounds::range(0, 7), IntBounds::range(-3, 5),
                                 IntBounds::range(0, 15)};
    arith::BoundMap bounds;
    for (int v = 0; v < 3; ++v) bounds.emplace(vars[v], ranges[v]);
    std::mt19937 rng(20240611);
    Generator gen(rng, vars);
    int shrunk = 0, total_before = 0, total_after = 0;
    for (int n = 0; n < 2000; ++n) {
      Expr e = n % 4 == 3 ? gen.condition(3) : gen.integer(4);
      Expr with_bounds = arith::simplify(e, bounds);
      Expr without = arith::simplify(e);
      total_before += count_nodes(e);
      total_after += count_nodes(with_bounds);
      shrunk += count_nodes(with_bounds) < count_nodes(e);
      for (int64_t x = ranges[0].min; x <= ranges[0].max; ++x)
        for (int64_t y = ranges[1].min; y <= ranges[1].max; ++y)
          for (int64_t z = ranges[2].min; z <= ranges[2].max; ++z) {
            const int64_t values[3] = {x, y, z};
            Evaluator original{vars, values, 3};
            int64_t expected = original.eval(e);
            if (original.divided_by_zero) continue;
            for (const Expr* s : {&with_bounds, &without}) {
              Evaluator simplified{vars, values, 3};
              int64_t got = simplified.eval(*s);
              if (got != expected || simplified.divided_by_zero)
                QFAIL(qPrintable(QString("#%1 at x=%2 y=%3 z=%4: %5 = %6 but %7 = %8")
                                     .arg(n)
                                     .arg(x)
                                     .arg(y)
                                     .arg(z)
                                     .arg(QString::fromStdString(te::to_string(e)))
                                     .arg(expected)
                                     .arg(QString::fromStdString(te::to_string(*s)))
                                     .arg(got)));
            }
          }
      // A second pass finds nothing more to do.
      QVERIFY2(te::structural_equal(arith::simplify(with_bounds, bounds), with_bounds),
               qPrintable(QString::fromStdString("not idempotent: " + te::to_string(with_bounds))));
    }
    qInfo("2000 expressions: %d nodes before, %d after; %d shrunk", total_before, total_after,
          shrunk);
  }

  void randomVectorExpressionsKeepTheirValue() {
    // The scalar expressions vectorized over x: x = x0 + lane for 4 lanes,
    // y and z broadcast. Lane l of the simplified vector must equal the
    // scalar expression at x = x0 + l.
    const Var vars[3] = {Var("x"), Var("y"), Var("z")};
    const Var vector_vars[3] = {Var("x0"), vars[1], vars[2]};
    const int lanes = 4;
    const IntBounds x0_range = IntBounds::range(0, 4);
    const IntBounds ranges[2] = {IntBounds::range(-3, 5), IntBounds::range(0, 15)};
    arith::BoundMap bounds = {
        {vector_vars[0], x0_range}, {vars[1], ranges[0]}, {vars[2], ranges[1]}};
    te::VarMap<Expr> vectorize = {{vars[0], te::ramp(vector_vars[0], 1, lanes)},
                                  {vars[1], te::broadcast(vars[1], lanes)},
                                  {vars[2], te::broadcast(vars[2], lanes)}};
    std::mt19937 rng(99);
    Generator gen(rng, vars);
    int checked = 0, scalarized = 0;
    for (int n = 0; n < 500; ++n) {
      Expr e = n % 4 == 3 ? gen.condition(3) : gen.integer(4);
      Expr v = te::substitute(e, vectorize);
      if (v.type().lanes != lanes) continue;  // no variable left after folding
      Expr s = arith::simplify(v, bounds);
      ++checked;
      scalarized += s.kind() == ExprKind::Broadcast;
      for (int64_t x0 = x0_range.min; x0 <= x0_range.max; ++x0)
        for (int64_t y = ranges[0].min; y <= ranges[0].max; ++y)
          for (int64_t z = ranges[1].min; z <= ranges[1].max; ++z)
            for (int lane = 0; lane < lanes; ++lane) {
              const int64_t scalar_values[3] = {x0 + lane, y, z};
              Evaluator original{vars, scalar_values, 3};
              int64_t expected = original.eval(e);
              if (original.divided_by_zero) continue;
              const int64_t vector_values[3] = {x0, y, z};
              Evaluator simplified{vector_vars, vector_values, 3, lane};
              int64_t got = simplified.eval(s);
              if (got != expected || simplified.divided_by_zero)
                QFAIL(qPrintable(QString("#%1 at x0=%2 y=%3 z=%4 lane %5: %6 = %7 but %8 = %9")
                                     .arg(n)
                                     .arg(x0)
                                     .arg(y)
                                     .arg(z)
                                     .arg(lane)
                                     .arg(QString::fromStdString(te::to_string(e)))
                                     .arg(expected)
                                     .arg(QString::fromStdString(te::to_string(s)))
                                     .arg(got)));
            }
    }
    qInfo("%d vector expressions checked, %d became a broadcast", checked, scalarized);
  }

  void largeExpressionIsFast() {
    const Var vars[3] = {Var("x"), Var("y"), Var("z")};
    arith::BoundMap bounds;
    for (const Var& v : vars) bounds.emplace(v, IntBounds::range(0, 63));
    std::mt19937 rng(7);
    Generator gen(rng, vars);
    // Sum random index terms until the expression has about 1000 nodes.
    Expr e = gen.integer(4);
    while (count_nodes(e) < 1000) e = e + gen.integer(4);
    const int nodes = count_nodes(e);
    double best_ms = 1e9;
    for (int run = 0; run < 20; ++run) {
      auto start = std::chrono::steady_clock::now();
      Expr s = arith::simplify(e, bounds);
      std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      best_ms = std::min(best_ms, took.count());
    }
    qInfo("simplified a %d-node expression in %.3f ms", nodes, best_ms);
    QVERIFY2(best_ms < 1.0, qPrintable(QString("took %1 ms").arg(best_ms)));

    // A long chain of distinct terms, the worst case for collecting like terms.
    Expr chain = Var("t0");
    for (int t = 1; t < 500; ++t) chain = chain + Var("t" + std::to_string(t)) * 2;
    best_ms = 1e9;
    for (int run = 0; run < 5; ++run) {
      auto start = std::chrono::steady_clock::now();
      arith::simplify(chain);
      std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      best_ms = std::min(best_ms, took.count());
    }
    qInfo("simplified a %d-node sum of 500 terms in %.3f ms", count_nodes(chain), best_ms);
    QVERIFY2(best_ms < 20.0, qPrintable(QString("took %1 ms").arg(best_ms)));
  }
};

QTEST_APPLESS_MAIN(TestSimplifyRandom)
#include "tst_simplify_random.moc"
