// The elements an affine index visits while loop variables range over their
// loops, as a grid of contiguous spans: what a prefetch must fetch, without the
// gaps an interval (eval_region) would include. conv weights read as
// w[(oc*C + c)*K + k] over k and two oc are two spans of K, not C*K + K.
#pragma once

#include <optional>
#include <vector>

#include "te/tensor.h"

namespace lathe::arith {

struct AccessGrid {
  struct Axis {
    int64_t stride = 0;  // elements between consecutive spans along this axis
    int64_t count = 0;
  };
  te::Expr base;            // first element, in the variables that are not relaxed
  int64_t span_length = 1;  // contiguous elements from each span's start
  std::vector<Axis> axes;   // the spans' starts: base + sum(i_k * stride_k), 0 <= i_k < count_k

  int64_t spans() const;
};

// The grid `index` covers when each variable in `dom` ranges over its
// [min, min + extent) (constant); nullopt unless the index is linear in those
// variables with constant coefficients. Spans may overlap when strides do.
std::optional<AccessGrid> access_grid(const te::Expr& index, const te::VarMap<te::Range>& dom);

}  // namespace lathe::arith
