#include "tir/arith/access_grid.h"

#include <algorithm>

#include "te/expr_functor.h"
#include "tir/arith/linear_sum.h"
#include "tir/arith/simplify.h"

namespace lathe::arith {

int64_t AccessGrid::spans() const {
  int64_t n = 1;
  for (const Axis& a : axes) n *= a.count;
  return n;
}

std::optional<AccessGrid> access_grid(const te::Expr& index, const te::VarMap<te::Range>& dom) {
  if (!index.type().is_int() || index.type().lanes != 1) return std::nullopt;
  LinearSum sum(index.type());
  sum.add(simplify(index), 1);
  if (sum.overflow) return std::nullopt;

  auto relaxed = [&](const te::Expr& e) {
    bool found = false;
    te::visit_expr(e, [&](const te::Expr& x) {
      found = found || (x.kind() == te::ExprKind::Var && dom.count(te::Var(x)) > 0);
    });
    return found;
  };
  LinearSum base(index.type());
  base.add_constant(sum.constant);
  std::vector<AccessGrid::Axis> axes;
  for (const auto& [atom, coeff] : sum.terms) {
    if (!relaxed(atom)) {
      base.add_term(atom, coeff);
      continue;
    }
    if (atom.kind() != te::ExprKind::Var) return std::nullopt;
    const te::Range& r = dom.at(te::Var(atom));
    const int64_t* min = te::as_const_int(r.min);
    const int64_t* extent = te::as_const_int(r.extent);
    if (!min || !extent || *extent < 1) return std::nullopt;
    // The grid starts at the smallest element: a negative stride walks down
    // from the variable's last value.
    base.add_constant(coeff * (coeff < 0 ? *min + *extent - 1 : *min));
    if (*extent > 1 && coeff != 0) axes.push_back({coeff < 0 ? -coeff : coeff, *extent});
  }

  // Fold axes into the span from the smallest stride up while each continues
  // (or overlaps) the span; the first gap leaves the rest as the grid's axes.
  std::sort(axes.begin(), axes.end(), [](const AccessGrid::Axis& a, const AccessGrid::Axis& b) {
    return a.stride < b.stride;
  });
  AccessGrid grid;
  size_t folded = 0;
  for (; folded < axes.size() && axes[folded].stride <= grid.span_length; ++folded)
    grid.span_length += axes[folded].stride * (axes[folded].count - 1);
  grid.axes.assign(axes.begin() + static_cast<long>(folded), axes.end());
  grid.base = simplify(base.to_expr());
  return grid;
}

}  // namespace lathe::arith
