// A loop's trip count for the analyses: its constant extent, or for a
// partitioned tail's min(c, n - i) the constant c (an upper bound); 1 when
// the extent is not known at compile time.
#pragma once

#include <algorithm>
#include <cstdint>

#include "te/expr.h"

namespace lathe::tir {

inline int64_t trip_count(const te::Expr& extent) {
  if (const int64_t* c = te::as_const_int(extent)) return std::max<int64_t>(*c, 0);
  if (extent.kind() == te::ExprKind::Min) {
    const auto* b = extent.as<te::BinaryNode>();
    if (const int64_t* c = te::as_const_int(b->a)) return *c;
    if (const int64_t* c = te::as_const_int(b->b)) return *c;
  }
  return 1;
}

}  // namespace lathe::tir
