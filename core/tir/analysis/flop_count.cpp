#include "tir/analysis/flop_count.h"

#include "te/expr_functor.h"
#include "te/tensor_intrinsic.h"
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

// The instructions of a store's value that do the work: each float
// operation, load and select (a concat's choice of input), a vector one
// counting once, and the store itself.
// Of the index arithmetic, which LLVM mostly strength-reduces or hoists, only
// division and modulo by a constant count (a multiply, shifts and a fix-up
// each): a transpose folded through reshapes does little else.
double operations_of(const Expr& e) {
  double ops = 1;
  te::visit_expr(e, [&](const Expr& x) {
    const te::ExprKind k = x.kind();
    if (k == te::ExprKind::Load || k == te::ExprKind::Select) {
      ops += 1;
    } else if (x.type().is_float()) {
      if (te::is_binary(k) || x.as<te::CallNode>()) ops += 1;
    } else if (k == te::ExprKind::Div || k == te::ExprKind::Mod) {
      ops += 4;
    }
  });
  return ops;
}

// One execution of `s`, each store's value measured by `of`.
// `evaluates`: whether `of` measures Evaluate statements too (tensor
// intrinsics' calls), else they count nothing.
template <typename Measure>
double count(const Stmt& s, const Measure& of, bool evaluates = false) {
  if (!s.defined()) return 0;
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* f = s.as<ForNode>();
      return static_cast<double>(trip_count(f->extent)) * count(f->body, of, evaluates);
    }
    case StmtKind::Store:
      return of(s.as<StoreNode>()->value);
    case StmtKind::ProducerStore:
      return of(s.as<ProducerStoreNode>()->value);
    case StmtKind::ProducerRealize:
      return count(s.as<ProducerRealizeNode>()->body, of, evaluates);
    case StmtKind::Allocate:
      return count(s.as<AllocateNode>()->body, of, evaluates);
    case StmtKind::Seq: {
      double total = 0;
      for (const Stmt& c : s.as<SeqNode>()->seq) total += count(c, of, evaluates);
      return total;
    }
    case StmtKind::IfThenElse: {
      // Guards of ragged tiles are almost always true: count the larger branch.
      const auto* i = s.as<IfThenElseNode>();
      return std::max(count(i->then_case, of, evaluates), count(i->else_case, of, evaluates));
    }
    case StmtKind::LetStmt:
      return count(s.as<LetStmtNode>()->body, of, evaluates);
    case StmtKind::AttrStmt:
      return count(s.as<AttrStmtNode>()->body, of, evaluates);
    case StmtKind::Evaluate:
      return evaluates ? of(s.as<EvaluateNode>()->value) : 0;
  }
  return 0;
}

}  // namespace

double count_int8_ops(const PrimFunc& func) {
  auto of = [](const Expr& e) {
    const auto* call = e.as<te::CallNode>();
    if (!call || call->op != te::Intrinsic::TensorIntrinsic) return 0.0;
    const int64_t* id = te::as_const_int(call->args[0]);
    return id ? static_cast<double>(te::tensor_intrinsic_by_id(static_cast<int>(*id)).operations)
              : 0.0;
  };
  return count(func.body, of, true);
}

double count_flops(const PrimFunc& func) {
  return count(func.body, flops_of);
}

double count_flops(const Stmt& s) {
  return count(s, flops_of);
}

double count_operations(const Stmt& s) {
  // A tensor intrinsic's call (an Evaluate: vpdpbusd and its operands' loads)
  // is work too; left out, a tensorized int8 conv of a small output looks too
  // small for a thread-pool launch and runs on one core.
  return count(s, operations_of, true);
}

}  // namespace lathe::tir
