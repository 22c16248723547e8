#include "tir/analysis/flop_count.h"

#include "te/expr_functor.h"
#include "tir/analysis/trip_count.h"

namespace lathe::tir {
namespace {

double flops_of(const Expr& e) {
  double flops = 0;
  te::visit_expr(e, [&](const Expr& x) {
    if (!x.type().is_float()) return;
    double lanes = x.type().lanes;
    if (te::is_binary(x.kind())) {
      flops += lanes;
    } else if (const auto* call = x.as<te::CallNode>()) {
      flops += call->op == te::Intrinsic::Fma ? 2 * lanes : lanes;
    }
  });
  return flops;
}

double count(const Stmt& s) {
  if (!s.defined()) return 0;
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* f = s.as<ForNode>();
      return static_cast<double>(trip_count(f->extent)) * count(f->body);
    }
    case StmtKind::Store:
      return flops_of(s.as<StoreNode>()->value);
    case StmtKind::ProducerStore:
      return flops_of(s.as<ProducerStoreNode>()->value);
    case StmtKind::ProducerRealize:
      return count(s.as<ProducerRealizeNode>()->body);
    case StmtKind::Allocate:
      return count(s.as<AllocateNode>()->body);
    case StmtKind::Seq: {
      double total = 0;
      for (const Stmt& c : s.as<SeqNode>()->seq) total += count(c);
      return total;
    }
    case StmtKind::IfThenElse: {
      // Guards of ragged tiles are almost always true: count the larger branch.
      const auto* i = s.as<IfThenElseNode>();
      return std::max(count(i->then_case), count(i->else_case));
    }
    case StmtKind::LetStmt:
      return count(s.as<LetStmtNode>()->body);
    case StmtKind::AttrStmt:
      return count(s.as<AttrStmtNode>()->body);
    case StmtKind::Evaluate:
      return 0;
  }
  return 0;
}

}  // namespace

double count_flops(const PrimFunc& func) {
  return count(func.body);
}

double count_flops(const Stmt& s) {
  return count(s);
}

}  // namespace lathe::tir
