// The affine view of a loop-IR index: offset + sum(coeff * var) + lane *
// lane_stride, looking through let-bound variables. What the tuner's
// features and the memory-traffic model both read an access's stride and
// footprint from.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "te/expr.h"

namespace lathe::tir {

// index = offset + sum(coeff * var) + lane * lane_stride, with the variables
// an index uses non-affinely (through / or %, an indirect load) in `opaque`.
struct AffineIndex {
  std::vector<std::pair<const te::VarNode*, int64_t>> coeffs;  // may hold zero coefficients
  std::vector<const te::VarNode*> opaque;
  int64_t offset = 0;
  int64_t lane_stride = 0;
  bool lane_stride_known = true;

  void add(const te::VarNode* v, int64_t c);
  int64_t coeff(const te::VarNode* v) const;
  bool is_opaque(const te::VarNode* v) const;
  bool depends_on(const te::VarNode* v) const { return coeff(v) != 0 || is_opaque(v); }
  bool affine() const { return opaque.empty() && lane_stride_known; }
};

// The values of the let-bound variables in scope.
using LetValues = std::unordered_map<const te::VarNode*, te::Expr>;

AffineIndex affine_index(const te::Expr& index, const LetValues& lets);

}  // namespace lathe::tir
