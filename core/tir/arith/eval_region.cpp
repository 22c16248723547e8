// Symbolic interval evaluation of index expressions over relaxed loop variables.
#include "tir/arith/eval_region.h"

#include "te/expr_functor.h"
#include "tir/arith/bound_analyzer.h"
#include "tir/arith/simplify.h"

namespace lathe::arith {

using te::Expr;
using te::ExprKind;

namespace {

// [min, max], inclusive; an undefined side is unbounded. A point (min and
// max the same node) is an expression that no relaxed variable changes.
struct Interval {
  Expr min, max;
  bool is_point() const { return min.defined() && min.same_as(max); }
  static Interval point(const Expr& e) { return {e, e}; }
};

class RegionEvaluator {
 public:
  explicit RegionEvaluator(const te::VarMap<te::Range>& dom)
      : dom_(dom), const_bounds_(bounds_of_ranges(dom)) {}

  const BoundMap& const_bounds() const { return const_bounds_; }

  Interval eval(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
        return Interval::point(e);
      case ExprKind::Var:
        return eval_var(e);
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::Min:
      case ExprKind::Max:
        return eval_arith(e);
      case ExprKind::Select: {
        const auto* n = e.as<te::SelectNode>();
        Interval c = eval(n->cond), t = eval(n->true_value), f = eval(n->false_value);
        if (c.is_point() && t.is_point() && f.is_point())
          return Interval::point(te::select(c.min, t.min, f.min));
        return {lower_min(t.min, f.min), upper_max(t.max, f.max)};
      }
      default:
        return uses_relaxed(e) ? fallback(e) : Interval::point(e);
    }
  }

 private:
  Interval eval_var(const Expr& e) {
    Var v(e);
    auto it = dom_.find(v);
    if (it == dom_.end()) return Interval::point(e);
    const te::Range& r = it->second;
    if (!r.min.defined() || !r.extent.defined()) return {};  // an unknown range
    if (relaxing_.count(v)) return fallback(e);              // a range that depends on itself
    relaxing_.emplace(v, true);
    Interval lo = eval(r.min);
    Interval hi = eval(r.min + r.extent - 1);
    relaxing_.erase(v);
    return {lo.min, hi.max};
  }

  Interval eval_arith(const Expr& e) {
    const auto* n = e.as<te::BinaryNode>();
    Interval a = eval(n->a), b = eval(n->b);
    if (a.is_point() && b.is_point())
      return Interval::point(
          a.min.same_as(n->a) && b.min.same_as(n->b) ? e : te::binary(e.kind(), a.min, b.min));
    if (!e.type().is_integer()) return fallback(e);
    auto add = [](const Expr& x, const Expr& y) { return x + y; };
    auto sub = [](const Expr& x, const Expr& y) { return x - y; };
    auto min_of = [](const Expr& x, const Expr& y) { return te::min(x, y); };
    auto max_of = [](const Expr& x, const Expr& y) { return te::max(x, y); };
    const int64_t* cb = b.is_point() ? te::as_const_int(b.min) : nullptr;
    const int64_t* ca = a.is_point() ? te::as_const_int(a.min) : nullptr;
    switch (e.kind()) {
      case ExprKind::Add:
        return {both(a.min, b.min, add), both(a.max, b.max, add)};
      case ExprKind::Sub:
        return {both(a.min, b.max, sub), both(a.max, b.min, sub)};
      case ExprKind::Mul:
        if (cb) return scale(a, b.min, *cb);
        if (ca) return scale(b, a.min, *ca);
        return fallback(e);
      case ExprKind::Div:
        // floordiv by a positive constant is monotone.
        if (cb && *cb > 0)
          return {a.min.defined() ? a.min / b.min : Expr(),
                  a.max.defined() ? a.max / b.min : Expr()};
        return fallback(e);
      case ExprKind::Mod:
        if (cb && *cb > 0) {
          // Within one block of the divisor, floormod is monotone too.
          if (a.min.defined() && a.max.defined() &&
              te::is_const_int(simplify(a.max / b.min - a.min / b.min, const_bounds_), 0))
            return {a.min % b.min, a.max % b.min};
          return {te::make_zero(e.type()), te::make_int(*cb - 1, e.type())};
        }
        return fallback(e);
      case ExprKind::Min:
        return {both(a.min, b.min, min_of), upper_min(a.max, b.max)};
      default:  // Max
        return {lower_max(a.min, b.min), both(a.max, b.max, max_of)};
    }
  }

  // build(x, y) when both ends exist; otherwise the end is unbounded.
  template <typename F>
  static Expr both(const Expr& x, const Expr& y, F build) {
    return x.defined() && y.defined() ? build(x, y) : Expr();
  }

  static Interval scale(const Interval& a, const Expr& k, int64_t kv) {
    if (kv == 0) return Interval::point(te::make_zero(a.min.defined() ? a.min.type() : k.type()));
    Expr lo = a.min.defined() ? a.min * k : Expr(), hi = a.max.defined() ? a.max * k : Expr();
    return kv > 0 ? Interval{lo, hi} : Interval{hi, lo};
  }

  // The lower end of min(x, y) needs both; its upper end needs either.
  static Expr upper_min(const Expr& x, const Expr& y) {
    if (x.defined() && y.defined()) return te::min(x, y);
    return x.defined() ? x : y;
  }
  static Expr lower_max(const Expr& x, const Expr& y) {
    if (x.defined() && y.defined()) return te::max(x, y);
    return x.defined() ? x : y;
  }
  static Expr lower_min(const Expr& x, const Expr& y) {
    return x.defined() && y.defined() ? te::min(x, y) : Expr();
  }
  static Expr upper_max(const Expr& x, const Expr& y) {
    return x.defined() && y.defined() ? te::max(x, y) : Expr();
  }

  bool uses_relaxed(const Expr& e) const {
    bool found = false;
    te::visit_expr(e, [&](const Expr& x) {
      if (x.kind() == ExprKind::Var && dom_.count(Var(x))) found = true;
    });
    return found;
  }

  // Constant bounds over the relaxed variables' constant ranges.
  Interval fallback(const Expr& e) const {
    IntBounds b = arith::const_bounds(e, const_bounds_);
    DataType t = e.type();
    return {b.has_min ? te::make_int(b.min, t) : Expr(),
            b.has_max ? te::make_int(b.max, t) : Expr()};
  }

  const te::VarMap<te::Range>& dom_;
  BoundMap const_bounds_;
  te::VarMap<bool> relaxing_;
};

}  // namespace

te::Range eval_region(const Expr& index, const te::VarMap<te::Range>& dom) {
  RegionEvaluator evaluator(dom);
  // Simplifying first makes each relaxed variable appear once in a linear
  // index, which is what makes interval arithmetic exact on it.
  Expr e = simplify(index, evaluator.const_bounds());
  Interval r = evaluator.eval(e);
  if (!r.min.defined() || !r.max.defined()) return te::Range();
  Expr min = simplify(r.min, evaluator.const_bounds());
  Expr extent = simplify(r.max - r.min + 1, evaluator.const_bounds());
  return te::Range(min, extent);
}

}  // namespace lathe::arith
