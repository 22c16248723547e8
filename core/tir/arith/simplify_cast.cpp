// Simplification of casts, ramps and broadcasts: constants convert as the
// target would (integers wrap, floats truncate toward zero, 16-bit floats
// round), lossless inner casts are skipped (never a narrowing float cast:
// float32 -> float16 -> float32 rounds), a cast moves inside a broadcast or a widened integer
// ramp, and a ramp of stride 0 is a broadcast.
#include <cmath>
#include <limits>

#include "tir/arith/bound_analyzer.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith {

using te::ExprKind;

namespace {

// v reduced to the integer type t, two's complement.
int64_t wrap_to(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  const uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

Expr fold_cast(DataType t, const Expr& v) {
  if (const auto* i = v.as<te::IntImmNode>()) {
    if (t.is_float() || t.is_bfloat()) {
      double d = static_cast<double>(i->value);
      return te::make_const(t, t.bits == 32 ? static_cast<float>(d) : d);
    }
    return te::make_int(wrap_to(t, i->value), t);
  }
  const double d = v.as<te::FloatImmNode>()->value;
  if (t.is_float() || t.is_bfloat())
    return te::make_const(t, t.bits == 32 ? static_cast<float>(d) : d);
  if (t.is_bool()) return te::make_int(d != 0, t);
  // Out-of-range float to integer is undefined in C; leave it to the target.
  if (std::isnan(d) || std::fabs(d) >= 9.2e18) return Expr();
  return te::make_int(wrap_to(t, static_cast<int64_t>(d)), t);
}

// Whether every value of type `from` is exactly representable in `to`.
bool is_lossless(DataType from, DataType to) {
  // bfloat16 is float32's top half: exact in float32 and float64 only.
  if (from.is_bfloat() || to.is_bfloat())
    return from == to || (from.is_bfloat() && to.is_float() && to.bits >= 32);
  if (from.is_float() || to.is_float())
    return from.is_float() && to.is_float() && to.bits >= from.bits;
  if (!from.is_integer() || !to.is_integer()) return false;
  if (from.is_int() && !to.is_int()) return false;  // negative values
  if (from.is_uint() && to.is_int() && to.bits <= from.bits) return false;
  IntBounds f = bounds_of_type(from.element_of()), g = bounds_of_type(to.element_of());
  return (!g.has_min || (f.has_min && f.min >= g.min)) &&
         (!g.has_max || (f.has_max && f.max <= g.max));
}

}  // namespace

Expr Simplifier::make_cast(DataType t, const Expr& v) {
  if (v.type() == t) return v;
  if (t.is_scalar() && (v.kind() == ExprKind::IntImm || v.kind() == ExprKind::FloatImm))
    if (Expr folded = fold_cast(t, v); folded.defined()) return folded;
  if (const auto* b = v.as<te::BroadcastNode>())
    return make_broadcast(make_cast(t.element_of(), b->value), b->lanes);
  if (const auto* inner = v.as<te::CastNode>()) {
    if (is_lossless(inner->value.type(), inner->type)) return make_cast(t, inner->value);
  }
  // A ramp widened lane by lane is the widened ramp (index math does not wrap).
  if (const auto* r = v.as<te::RampNode>(); r && t.is_int() && is_lossless(v.type(), t))
    return make_ramp(make_cast(t.element_of(), r->base), make_cast(t.element_of(), r->stride),
                     r->lanes);
  return te::cast(t, v);
}

Expr Simplifier::make_ramp(const Expr& base, const Expr& stride, int lanes) {
  if (te::is_const_int(stride, 0)) return make_broadcast(base, lanes);
  return te::ramp(base, stride, lanes);
}

Expr Simplifier::make_broadcast(const Expr& value, int lanes) {
  return te::broadcast(value, lanes);
}

}  // namespace lathe::arith
