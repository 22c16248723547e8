#include "tir/stmt_functor.h"

namespace lathe::tir {

void visit_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f) {
  if (!s.defined()) return;
  f(s);
  switch (s.kind()) {
    case StmtKind::For:
      visit_stmt(s.as<ForNode>()->body, f);
      break;
    case StmtKind::ProducerRealize:
      visit_stmt(s.as<ProducerRealizeNode>()->body, f);
      break;
    case StmtKind::Allocate:
      visit_stmt(s.as<AllocateNode>()->body, f);
      break;
    case StmtKind::Seq:
      for (const Stmt& c : s.as<SeqNode>()->seq) visit_stmt(c, f);
      break;
    case StmtKind::IfThenElse:
      visit_stmt(s.as<IfThenElseNode>()->then_case, f);
      visit_stmt(s.as<IfThenElseNode>()->else_case, f);
      break;
    case StmtKind::LetStmt:
      visit_stmt(s.as<LetStmtNode>()->body, f);
      break;
    case StmtKind::AttrStmt:
      visit_stmt(s.as<AttrStmtNode>()->body, f);
      break;
    default:
      break;
  }
}

void visit_stmt_exprs(const Stmt& s, const std::function<void(const Expr&)>& f) {
  visit_stmt(s, [&](const Stmt& x) {
    switch (x.kind()) {
      case StmtKind::For:
        f(x.as<ForNode>()->min);
        f(x.as<ForNode>()->extent);
        break;
      case StmtKind::Store:
        f(x.as<StoreNode>()->value);
        f(x.as<StoreNode>()->index);
        break;
      case StmtKind::ProducerStore:
        f(x.as<ProducerStoreNode>()->value);
        for (const Expr& i : x.as<ProducerStoreNode>()->indices) f(i);
        break;
      case StmtKind::ProducerRealize:
        for (const Range& r : x.as<ProducerRealizeNode>()->bounds) {
          f(r.min);
          f(r.extent);
        }
        break;
      case StmtKind::Allocate:
        for (const Expr& e : x.as<AllocateNode>()->extents) f(e);
        break;
      case StmtKind::IfThenElse:
        f(x.as<IfThenElseNode>()->condition);
        break;
      case StmtKind::LetStmt:
        f(x.as<LetStmtNode>()->value);
        break;
      case StmtKind::AttrStmt:
        f(x.as<AttrStmtNode>()->value);
        break;
      case StmtKind::Evaluate:
        f(x.as<EvaluateNode>()->value);
        break;
      case StmtKind::Seq:
        break;
    }
  });
}

Stmt StmtMutator::mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s.kind()) {
    case StmtKind::For:
      return visit_for(s.as<ForNode>(), s);
    case StmtKind::Store:
      return visit_store(s.as<StoreNode>(), s);
    case StmtKind::ProducerStore:
      return visit_producer_store(s.as<ProducerStoreNode>(), s);
    case StmtKind::ProducerRealize:
      return visit_producer_realize(s.as<ProducerRealizeNode>(), s);
    case StmtKind::Allocate:
      return visit_allocate(s.as<AllocateNode>(), s);
    case StmtKind::Seq:
      return visit_seq(s.as<SeqNode>(), s);
    case StmtKind::IfThenElse:
      return visit_if(s.as<IfThenElseNode>(), s);
    case StmtKind::LetStmt:
      return visit_let(s.as<LetStmtNode>(), s);
    case StmtKind::AttrStmt:
      return visit_attr(s.as<AttrStmtNode>(), s);
    case StmtKind::Evaluate:
      return visit_evaluate(s.as<EvaluateNode>(), s);
  }
  return s;
}

Stmt StmtMutator::visit_for(const ForNode* n, const Stmt& s) {
  Expr min = mutate_expr(n->min), extent = mutate_expr(n->extent);
  Stmt body = mutate(n->body);
  if (min.same_as(n->min) && extent.same_as(n->extent) && body.same_as(n->body)) return s;
  return make_for(n->loop_var, min, extent, n->kind, body, n->thread_tag);
}

Stmt StmtMutator::visit_store(const StoreNode* n, const Stmt& s) {
  Expr value = mutate_expr(n->value), index = mutate_expr(n->index);
  if (value.same_as(n->value) && index.same_as(n->index)) return s;
  return make_store(n->buffer, value, index);
}

Stmt StmtMutator::visit_producer_store(const ProducerStoreNode* n, const Stmt& s) {
  Expr value = mutate_expr(n->value);
  bool changed = !value.same_as(n->value);
  std::vector<Expr> indices;
  for (const Expr& i : n->indices) {
    indices.push_back(mutate_expr(i));
    changed |= !indices.back().same_as(i);
  }
  return changed ? make_producer_store(n->producer, value, indices) : s;
}

Stmt StmtMutator::visit_producer_realize(const ProducerRealizeNode* n, const Stmt& s) {
  bool changed = false;
  std::vector<Range> bounds;
  for (const Range& r : n->bounds) {
    bounds.emplace_back(mutate_expr(r.min), mutate_expr(r.extent));
    changed |= !bounds.back().min.same_as(r.min) || !bounds.back().extent.same_as(r.extent);
  }
  Stmt body = mutate(n->body);
  if (!changed && body.same_as(n->body)) return s;
  return make_producer_realize(n->producer, bounds, body, n->storage_scope);
}

Stmt StmtMutator::visit_allocate(const AllocateNode* n, const Stmt& s) {
  bool changed = false;
  std::vector<Expr> extents;
  for (const Expr& e : n->extents) {
    extents.push_back(mutate_expr(e));
    changed |= !extents.back().same_as(e);
  }
  Stmt body = mutate(n->body);
  if (!changed && body.same_as(n->body)) return s;
  return make_allocate(n->buffer, n->dtype, extents, body, n->storage_scope);
}

Stmt StmtMutator::visit_seq(const SeqNode* n, const Stmt& s) {
  bool changed = false;
  std::vector<Stmt> parts;
  for (const Stmt& c : n->seq) {
    parts.push_back(mutate(c));
    changed |= !parts.back().same_as(c);
  }
  return changed ? make_seq(parts) : s;
}

Stmt StmtMutator::visit_if(const IfThenElseNode* n, const Stmt& s) {
  Expr cond = mutate_expr(n->condition);
  Stmt then_case = mutate(n->then_case), else_case = mutate(n->else_case);
  if (cond.same_as(n->condition) && then_case.same_as(n->then_case) &&
      else_case.same_as(n->else_case))
    return s;
  return make_if(cond, then_case, else_case);
}

Stmt StmtMutator::visit_let(const LetStmtNode* n, const Stmt& s) {
  Expr value = mutate_expr(n->value);
  Stmt body = mutate(n->body);
  if (value.same_as(n->value) && body.same_as(n->body)) return s;
  return make_let(n->var, value, body);
}

Stmt StmtMutator::visit_attr(const AttrStmtNode* n, const Stmt& s) {
  Expr value = mutate_expr(n->value);
  Stmt body = mutate(n->body);
  if (value.same_as(n->value) && body.same_as(n->body)) return s;
  return make_attr(n->key, value, body);
}

Stmt StmtMutator::visit_evaluate(const EvaluateNode* n, const Stmt& s) {
  Expr value = mutate_expr(n->value);
  return value.same_as(n->value) ? s : make_evaluate(value);
}

namespace {

class StmtSubstituter : public StmtMutator {
 public:
  explicit StmtSubstituter(const te::VarMap<Expr>& map) : map_(map) {}
  Expr mutate_expr(const Expr& e) override { return te::substitute(e, map_); }

 private:
  const te::VarMap<Expr>& map_;
};

}  // namespace

Stmt substitute(const Stmt& s, const te::VarMap<Expr>& map) {
  if (map.empty()) return s;
  return StmtSubstituter(map).mutate(s);
}

}  // namespace lathe::tir
