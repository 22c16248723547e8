// Compile-time tables read at a computed position, with no memory: a
// resize's source index and weight per output coordinate, a gather's or
// scatter's index map. Each is an expression of the position.
#pragma once

#include <vector>

#include "te/expr.h"

namespace lathe::topi::detail {

// values[position] for an integer `position` in [0, values.size()). The table
// is cut into runs that are constant or step by one with the position, and
// the runs form a balanced tree of selects (log2(runs) comparisons); a table
// that repeats with a period, each repeat a constant more (0,0,1,1,2,2,... the
// source rows of a 2x upsampling), apart from a few entries at either end, is
// instead the repeat's entry at position % period plus the drift times
// position / period, whatever its length.
te::Expr table_lookup(const std::vector<int64_t>& values, const te::Expr& position);

// The same for a table of floats, made constants of type `t` (resize
// weights); entries within 1e-12 of each other count as equal when finding a
// period (a weight of 1/3 computed at two coordinates differs in its last bit).
te::Expr float_table_lookup(const std::vector<double>& values, const te::Expr& position,
                            te::DataType t);

// Whether table_lookup / float_table_lookup give `values` a small expression
// (a few runs, or a period with at most a few runs in the repeat); a long
// table without a period is a tree of one select per run, which vector code
// evaluates whole for every lane.
bool compact_table(const std::vector<int64_t>& values);
bool compact_float_table(const std::vector<double>& values);

}  // namespace lathe::topi::detail
