// LayoutTransform (NCHW <-> NCHW{b}c, OIHW -> OIHW{i}i{o}o): an injective
// gather from the source layout at each destination element's logical index.
#include "ir/ops/layout.h"
#include "support/error.h"
#include "topi/op_compute.h"

namespace lathe::topi {
namespace {

using te::Expr;

// Logical (n, c, h, w) — or (o, i, kh, kw) — of a physical index.
std::array<Expr, 4> logical_index(const TensorLayout& layout, const std::vector<Expr>& p) {
  switch (layout.kind) {
    case TensorLayout::Kind::NCHW:
    case TensorLayout::Kind::OIHW:
      return {p[0], p[1], p[2], p[3]};
    case TensorLayout::Kind::NCHWc:
      return {p[0], p[1] * layout.block + p[4], p[2], p[3]};
    case TensorLayout::Kind::OIHWio:
      return {p[0] * layout.out_block + p[5], p[1] * layout.block + p[4], p[2], p[3]};
  }
  throw Error("unknown layout");
}

std::vector<Expr> physical_index(const TensorLayout& layout, const std::array<Expr, 4>& l) {
  switch (layout.kind) {
    case TensorLayout::Kind::NCHW:
    case TensorLayout::Kind::OIHW:
      return {l[0], l[1], l[2], l[3]};
    case TensorLayout::Kind::NCHWc:
      return {l[0], l[1] / layout.block, l[2], l[3], l[1] % layout.block};
    case TensorLayout::Kind::OIHWio:
      return {l[0] / layout.out_block, l[1] / layout.block,    l[2], l[3],
              l[1] % layout.block,     l[0] % layout.out_block};
  }
  throw Error("unknown layout");
}

std::vector<te::Tensor> layout_transform(const ComputeContext& ctx) {
  TensorLayout src = TensorLayout::parse(ctx.attrs().get_string("src_layout", ""));
  TensorLayout dst = TensorLayout::parse(ctx.attrs().get_string("dst_layout", ""));
  const te::Tensor& x = ctx.input(0);
  return {te::compute(
      ctx.output_type(0).shape,
      [&](const std::vector<te::Var>& i) {
        return x(physical_index(src, logical_index(dst, std::vector<Expr>(i.begin(), i.end()))));
      },
      ctx.name(), {}, "injective")};
}

}  // namespace

void register_layout_computes(OpStrategyRegistry& registry) {
  registry.define_compute("LayoutTransform", layout_transform);
}

}  // namespace lathe::topi
