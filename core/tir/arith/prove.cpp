// Proof by simplification: a condition is proven when it simplifies to true.
#include "tir/arith/prove.h"

#include "tir/arith/simplify.h"

namespace lathe::arith {

bool can_prove(const Expr& cond, const BoundMap& bounds) {
  if (!cond.defined()) return false;
  Expr r = simplify(cond, bounds);
  if (const auto* b = r.as<te::BroadcastNode>()) r = b->value;
  const int64_t* c = te::as_const_int(r);
  return c && *c != 0;
}

}  // namespace lathe::arith
