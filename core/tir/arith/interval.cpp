// Constant bounds by interval arithmetic over the expression tree.
#include "tir/arith/interval.h"

#include <algorithm>
#include <limits>

#include "tir/arith/bound_analyzer.h"

namespace lathe::arith {

using te::ExprKind;

std::string IntBounds::to_string() const {
  std::string lo = has_min ? "[" + std::to_string(min) : "(-inf";
  std::string hi = has_max ? std::to_string(max) + "]" : "+inf)";
  return lo + ", " + hi;
}

namespace {

IntBounds negate(const IntBounds& a) {
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::min();
  IntBounds r;
  r.has_min = a.has_max && a.max != kLowest;
  r.min = r.has_min ? -a.max : 0;
  r.has_max = a.has_min && a.min != kLowest;
  r.max = r.has_max ? -a.min : 0;
  return r;
}

IntBounds scale(const IntBounds& a, int64_t k) {
  if (k == 0) return IntBounds::single(0);
  IntBounds r;
  const bool lo_from_min = k > 0;
  if (lo_from_min ? a.has_min : a.has_max)
    r.has_min = !__builtin_mul_overflow(lo_from_min ? a.min : a.max, k, &r.min);
  if (lo_from_min ? a.has_max : a.has_min)
    r.has_max = !__builtin_mul_overflow(lo_from_min ? a.max : a.min, k, &r.max);
  return r;
}

// floordiv that cannot trap: INT64_MIN // -1 is out of range.
bool safe_floordiv(int64_t a, int64_t b, int64_t* out) {
  if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min())) return false;
  *out = floordiv(a, b);
  return true;
}

}  // namespace

IntBounds bounds_add(const IntBounds& a, const IntBounds& b) {
  IntBounds r;
  if (a.has_min && b.has_min) r.has_min = !__builtin_add_overflow(a.min, b.min, &r.min);
  if (a.has_max && b.has_max) r.has_max = !__builtin_add_overflow(a.max, b.max, &r.max);
  return r;
}

IntBounds bounds_sub(const IntBounds& a, const IntBounds& b) {
  return bounds_add(a, negate(b));
}

IntBounds bounds_mul(const IntBounds& a, const IntBounds& b) {
  if (b.is_single()) return scale(a, b.min);
  if (a.is_single()) return scale(b, a.min);
  if (a.is_bounded() && b.is_bounded()) {
    int64_t p[4];
    if (__builtin_mul_overflow(a.min, b.min, &p[0]) ||
        __builtin_mul_overflow(a.min, b.max, &p[1]) ||
        __builtin_mul_overflow(a.max, b.min, &p[2]) || __builtin_mul_overflow(a.max, b.max, &p[3]))
      return IntBounds::everything();
    return IntBounds::range(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
  }
  // Both non-negative with one side unbounded above: the product is too.
  if (a.has_min && a.min >= 0 && b.has_min && b.min >= 0) {
    IntBounds r;
    r.has_min = !__builtin_mul_overflow(a.min, b.min, &r.min);
    return r;
  }
  return IntBounds::everything();
}

IntBounds bounds_floordiv(const IntBounds& a, const IntBounds& b) {
  IntBounds r;
  if (b.is_single()) {
    const int64_t c = b.min;
    if (c > 0) {
      if (a.has_min) r.has_min = safe_floordiv(a.min, c, &r.min);
      if (a.has_max) r.has_max = safe_floordiv(a.max, c, &r.max);
    } else if (c < 0) {
      if (a.has_max) r.has_min = safe_floordiv(a.max, c, &r.min);
      if (a.has_min) r.has_max = safe_floordiv(a.min, c, &r.max);
    }
    return r;
  }
  if (b.has_min && b.min > 0) {
    // For a positive divisor, a // b grows with a; it shrinks towards 0 (or -1
    // for negative a) as b grows, so the corners of the box bound it.
    if (a.has_min) {
      r.has_min = true;
      r.min = a.min >= 0 ? (b.has_max ? floordiv(a.min, b.max) : 0) : floordiv(a.min, b.min);
    }
    if (a.has_max) {
      r.has_max = true;
      r.max = a.max >= 0 ? floordiv(a.max, b.min) : (b.has_max ? floordiv(a.max, b.max) : -1);
    }
  }
  return r;
}

IntBounds bounds_floormod(const IntBounds& a, const IntBounds& b) {
  if (b.is_single()) {
    const int64_t c = b.min;
    if (c == 0) return IntBounds::everything();
    // Within one block of c, floormod is a shift of a.
    if (a.is_bounded()) {
      int64_t qa = 0, qb = 0;
      if (safe_floordiv(a.min, c, &qa) && safe_floordiv(a.max, c, &qb) && qa == qb)
        return IntBounds::range(floormod(a.min, c), floormod(a.max, c));
    }
    return c > 0 ? IntBounds::range(0, c - 1) : IntBounds::range(c + 1, 0);
  }
  if (b.has_min && b.min > 0) {
    if (a.within(0, b.min - 1)) return a;
    IntBounds r = IntBounds::at_least(0);
    if (b.has_max) {
      r.has_max = true;
      r.max = b.max - 1;
    }
    // For a >= 0, a mod b <= a.
    if (a.has_min && a.min >= 0 && a.has_max) {
      r.max = r.has_max ? std::min(r.max, a.max) : a.max;
      r.has_max = true;
    }
    return r;
  }
  return IntBounds::everything();
}

IntBounds bounds_min(const IntBounds& a, const IntBounds& b) {
  IntBounds r;
  r.has_min = a.has_min && b.has_min;
  r.min = r.has_min ? std::min(a.min, b.min) : 0;
  r.has_max = a.has_max || b.has_max;
  r.max = a.has_max && b.has_max ? std::min(a.max, b.max) : (a.has_max ? a.max : b.max);
  return r;
}

IntBounds bounds_max(const IntBounds& a, const IntBounds& b) {
  IntBounds r;
  r.has_max = a.has_max && b.has_max;
  r.max = r.has_max ? std::max(a.max, b.max) : 0;
  r.has_min = a.has_min || b.has_min;
  r.min = a.has_min && b.has_min ? std::max(a.min, b.min) : (a.has_min ? a.min : b.min);
  return r;
}

IntBounds bounds_union(const IntBounds& a, const IntBounds& b) {
  IntBounds r;
  r.has_min = a.has_min && b.has_min;
  r.min = r.has_min ? std::min(a.min, b.min) : 0;
  r.has_max = a.has_max && b.has_max;
  r.max = r.has_max ? std::max(a.max, b.max) : 0;
  return r;
}

IntBounds bounds_intersect(const IntBounds& a, const IntBounds& b) {
  IntBounds r;
  r.has_min = a.has_min || b.has_min;
  r.min = a.has_min && b.has_min ? std::max(a.min, b.min) : (a.has_min ? a.min : b.min);
  r.has_max = a.has_max || b.has_max;
  r.max = a.has_max && b.has_max ? std::min(a.max, b.max) : (a.has_max ? a.max : b.max);
  return r;
}

IntBounds bounds_of_type(DataType t) {
  if (t.is_bool()) return IntBounds::range(0, 1);
  if (!t.is_integer() || t.bits >= 64) return t.is_uint() ? IntBounds::at_least(0) : IntBounds{};
  if (t.is_uint()) return IntBounds::range(0, (int64_t(1) << t.bits) - 1);
  return IntBounds::range(-(int64_t(1) << (t.bits - 1)), (int64_t(1) << (t.bits - 1)) - 1);
}

namespace {

// What a value of type t is known to lie in without looking at it: signed
// integers are treated as unbounded, since index math is assumed not to wrap.
IntBounds value_bounds_of_type(DataType t) {
  return t.is_int() ? IntBounds::everything() : bounds_of_type(t);
}

IntBounds bool_result(bool can_be_true, bool can_be_false) {
  return IntBounds::range(can_be_false ? 0 : 1, can_be_true ? 1 : 0);
}

}  // namespace

IntBounds BoundAnalyzer::var_bounds(const Expr& v) const {
  for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
    if (it->first.same_as(v)) return it->second;
  auto found = vars_.find(Var(v));
  if (found != vars_.end()) return found->second;
  return value_bounds_of_type(v.type());
}

IntBounds BoundAnalyzer::bounds(const Expr& e) {
  if (e.kind() == ExprKind::IntImm) return IntBounds::single(e.as<te::IntImmNode>()->value);
  if (e.kind() == ExprKind::Var) return var_bounds(e);
  if (!lets_.empty()) return compute(e);
  auto it = cache_.find(e.get());
  if (it != cache_.end()) return it->second.second;
  IntBounds b = compute(e);
  cache_.emplace(e.get(), std::make_pair(e.node_ptr(), b));
  return b;
}

IntBounds BoundAnalyzer::compute(const Expr& e) {
  if (!e.type().is_integer()) return IntBounds::everything();
  switch (e.kind()) {
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::Min:
    case ExprKind::Max: {
      const auto* n = e.as<te::BinaryNode>();
      IntBounds a = bounds(n->a), b = bounds(n->b);
      switch (e.kind()) {
        case ExprKind::Add:
          return bounds_add(a, b);
        case ExprKind::Sub:
          return bounds_sub(a, b);
        case ExprKind::Mul:
          return bounds_mul(a, b);
        case ExprKind::Div:
          return bounds_floordiv(a, b);
        case ExprKind::Mod:
          return bounds_floormod(a, b);
        case ExprKind::Min:
          return bounds_min(a, b);
        default:
          return bounds_max(a, b);
      }
    }
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE: {
      const auto* n = e.as<te::BinaryNode>();
      if (!n->a.type().is_integer()) return IntBounds::range(0, 1);
      IntBounds d = bounds_sub(bounds(n->a), bounds(n->b));
      const bool neg = d.has_max && d.max < 0, pos = d.has_min && d.min > 0;
      const bool nonpos = d.has_max && d.max <= 0, nonneg = d.has_min && d.min >= 0;
      switch (e.kind()) {
        case ExprKind::EQ:
          return bool_result(!neg && !pos, !d.is_single() || d.min != 0);
        case ExprKind::NE:
          return bool_result(!d.is_single() || d.min != 0, !neg && !pos);
        case ExprKind::LT:
          return bool_result(!nonneg, !neg);
        case ExprKind::LE:
          return bool_result(!pos, !nonpos);
        case ExprKind::GT:
          return bool_result(!nonpos, !pos);
        default:
          return bool_result(!neg, !nonneg);
      }
    }
    case ExprKind::And:
    case ExprKind::Or: {
      const auto* n = e.as<te::BinaryNode>();
      IntBounds a = bounds(n->a), b = bounds(n->b);
      const bool a_true = a.has_min && a.min > 0, b_true = b.has_min && b.min > 0;
      const bool a_false = a.within(0, 0), b_false = b.within(0, 0);
      if (e.kind() == ExprKind::And) return bool_result(!a_false && !b_false, !(a_true && b_true));
      return bool_result(!(a_false && b_false), !a_true && !b_true);
    }
    case ExprKind::Not: {
      IntBounds a = bounds(e.as<te::NotNode>()->a);
      return bool_result(!(a.has_min && a.min > 0), !a.within(0, 0));
    }
    case ExprKind::Select: {
      const auto* n = e.as<te::SelectNode>();
      IntBounds c = bounds(n->cond);
      if (c.has_min && c.min > 0) return bounds(n->true_value);
      if (c.within(0, 0)) return bounds(n->false_value);
      return bounds_union(bounds(n->true_value), bounds(n->false_value));
    }
    case ExprKind::Cast: {
      const Expr& v = e.as<te::CastNode>()->value;
      if (!v.type().is_integer()) return bounds_of_type(e.type());
      IntBounds b = bounds(v);
      if (e.type().is_bool())
        return bool_result(!b.within(0, 0), !(b.has_min && b.min > 0) && !(b.has_max && b.max < 0));
      IntBounds t = bounds_of_type(e.type());
      // A value that fits passes through; one that may not wraps anywhere in the type.
      bool fits = (!t.has_min || (b.has_min && b.min >= t.min)) &&
                  (!t.has_max || (b.has_max && b.max <= t.max));
      return fits ? b : t;
    }
    case ExprKind::Call: {
      const auto* n = e.as<te::CallNode>();
      if (n->op == te::Intrinsic::Abs) {
        IntBounds a = bounds(n->args[0]);
        if (a.has_min && a.min >= 0) return a;
        IntBounds r = bounds_max(a, negate(a));
        r.has_min = true;
        r.min = a.has_max && a.max < 0 ? -a.max : 0;
        return r;
      }
      return value_bounds_of_type(e.type());
    }
    case ExprKind::Ramp: {
      const auto* n = e.as<te::RampNode>();
      IntBounds base = bounds(n->base);
      IntBounds last =
          bounds_add(base, bounds_mul(bounds(n->stride), IntBounds::single(n->lanes - 1)));
      return bounds_union(base, last);
    }
    case ExprKind::Broadcast:
      return bounds(e.as<te::BroadcastNode>()->value);
    case ExprKind::Let: {
      const auto* n = e.as<te::LetNode>();
      lets_.emplace_back(n->var, bounds(n->value));
      IntBounds b = bounds(n->body);
      lets_.pop_back();
      return b;
    }
    default:  // loads, reductions
      return value_bounds_of_type(e.type());
  }
}

IntBounds const_bounds(const Expr& e, const BoundMap& vars) {
  return BoundAnalyzer(vars).bounds(e);
}

BoundMap bounds_of_ranges(const te::VarMap<te::Range>& ranges) {
  BoundMap out;
  // Each pass resolves at least one more level of loops nested by their
  // ranges, so as many passes as entries suffice.
  for (size_t pass = 0; pass <= ranges.size(); ++pass) {
    bool changed = false;
    for (const auto& [var, range] : ranges) {
      if (!range.min.defined() || !range.extent.defined()) continue;
      BoundAnalyzer analyzer(out);
      IntBounds lo = analyzer.bounds(range.min);
      IntBounds hi = analyzer.bounds(range.min + range.extent - 1);
      IntBounds b{lo.min, hi.max, lo.has_min, hi.has_max};
      if (b.is_everything()) continue;
      auto it = out.find(var);
      if (it == out.end()) {
        out.emplace(var, b);
        changed = true;
      } else if (!(it->second == b)) {
        it->second = b;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

}  // namespace lathe::arith
