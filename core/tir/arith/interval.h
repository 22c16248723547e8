// Constant integer bounds of loop-IR expressions (TVM's ConstIntBound): the
// facts the simplifier and prover use to decide comparisons, min/max and div/mod.
#pragma once

#include <cstdint>
#include <string>

#include "te/tensor.h"

namespace lathe::arith {

using te::DataType;
using te::Expr;
using te::Var;

// An inclusive integer interval; a side whose has_* flag is false is unbounded.
// Values are mathematical integers: like TVM and Halide, the analysis assumes
// that index arithmetic does not overflow its type.
struct IntBounds {
  int64_t min = 0, max = 0;
  bool has_min = false, has_max = false;

  static IntBounds everything() { return {}; }
  static IntBounds single(int64_t v) { return {v, v, true, true}; }
  static IntBounds range(int64_t lo, int64_t hi) { return {lo, hi, true, true}; }
  static IntBounds at_least(int64_t lo) { return {lo, 0, true, false}; }
  static IntBounds at_most(int64_t hi) { return {0, hi, false, true}; }
  // The values of a loop variable over [min, min + extent).
  static IntBounds from_extent(int64_t min, int64_t extent) { return range(min, min + extent - 1); }

  bool is_single() const { return has_min && has_max && min == max; }
  bool is_bounded() const { return has_min && has_max; }
  bool is_everything() const { return !has_min && !has_max; }
  // Whether every value lies in [lo, hi].
  bool within(int64_t lo, int64_t hi) const { return has_min && has_max && min >= lo && max <= hi; }
  bool operator==(const IntBounds& o) const {
    return has_min == o.has_min && has_max == o.has_max && (!has_min || min == o.min) &&
           (!has_max || max == o.max);
  }
  // "[0, 63]", "(-inf, 5]", "(-inf, +inf)"
  std::string to_string() const;
};

using BoundMap = te::VarMap<IntBounds>;

// The values an integer expression can take when every variable in `vars` lies
// in its bounds; other variables are unbounded (bool and uint ones keep their
// type's range). Vector expressions are bounded over all lanes; loads, calls
// and float expressions are unbounded.
IntBounds const_bounds(const Expr& e, const BoundMap& vars = {});

// Constant bounds of loop variables ranging over [min, min + extent), where a
// min or extent may use other variables of the map (an inner loop whose range
// depends on an outer one). Variables whose range stays unbounded are left out.
BoundMap bounds_of_ranges(const te::VarMap<te::Range>& ranges);

}  // namespace lathe::arith
