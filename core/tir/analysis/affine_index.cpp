#include "tir/analysis/affine_index.h"

#include <algorithm>

#include "te/expr_functor.h"

namespace lathe::tir {
namespace {

using te::Expr;
using te::ExprKind;
using te::VarNode;

class AffineBuilder {
 public:
  explicit AffineBuilder(const LetValues& lets) : lets_(lets) {}

  AffineIndex build(const Expr& index) const {
    AffineIndex r;
    add(index, 1, r);
    return r;
  }

 private:
  void add(const Expr& e, int64_t scale, AffineIndex& r) const {
    switch (e.kind()) {
      case ExprKind::IntImm:
        r.offset += scale * e.as<te::IntImmNode>()->value;
        return;
      case ExprKind::Var: {
        const VarNode* v = e.as<VarNode>();
        if (auto it = lets_.find(v); it != lets_.end()) return add(it->second, scale, r);
        r.add(v, scale);
        return;
      }
      case ExprKind::Add:
      case ExprKind::Sub: {
        const auto* b = e.as<te::BinaryNode>();
        add(b->a, scale, r);
        add(b->b, e.kind() == ExprKind::Add ? scale : -scale, r);
        return;
      }
      case ExprKind::Mul: {
        const auto* b = e.as<te::BinaryNode>();
        if (const int64_t* c = te::as_const_int(b->b)) return add(b->a, scale * *c, r);
        if (const int64_t* c = te::as_const_int(b->a)) return add(b->b, scale * *c, r);
        break;
      }
      case ExprKind::Ramp: {
        const auto* ramp = e.as<te::RampNode>();
        add(ramp->base, scale, r);
        if (const int64_t* c = te::as_const_int(ramp->stride)) {
          r.lane_stride += scale * *c;
        } else {
          r.lane_stride_known = false;
          add_opaque(ramp->stride, r);
        }
        return;
      }
      case ExprKind::Broadcast:
        return add(e.as<te::BroadcastNode>()->value, scale, r);
      case ExprKind::Cast:
        return add(e.as<te::CastNode>()->value, scale, r);
      default:
        break;
    }
    add_opaque(e, r);
  }

  void add_opaque(const Expr& e, AffineIndex& r) const {
    te::visit_expr(e, [&](const Expr& x) {
      const VarNode* v = x.as<VarNode>();
      if (!v) return;
      if (auto it = lets_.find(v); it != lets_.end()) return add_opaque(it->second, r);
      if (!r.is_opaque(v)) r.opaque.push_back(v);
    });
  }

  const LetValues& lets_;
};

}  // namespace

void AffineIndex::add(const VarNode* v, int64_t c) {
  for (auto& [var, coeff] : coeffs)
    if (var == v) {
      coeff += c;
      return;
    }
  coeffs.emplace_back(v, c);
}

int64_t AffineIndex::coeff(const VarNode* v) const {
  for (const auto& [var, c] : coeffs)
    if (var == v) return c;
  return 0;
}

bool AffineIndex::is_opaque(const VarNode* v) const {
  return std::find(opaque.begin(), opaque.end(), v) != opaque.end();
}

AffineIndex affine_index(const Expr& index, const LetValues& lets) {
  return AffineBuilder(lets).build(index);
}

}  // namespace lathe::tir
