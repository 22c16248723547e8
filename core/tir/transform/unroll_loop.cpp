#include "tir/transform/unroll_loop.h"

#include <algorithm>

#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

// How many statements a body turns into when every loop in it is expanded:
// what auto_unroll_max_step bounds.
int64_t expanded_steps(const Stmt& s) {
  constexpr int64_t kMany = int64_t{1} << 40;
  if (!s.defined()) return 0;
  switch (s.kind()) {
    case StmtKind::For: {
      const ForNode* f = s.as<ForNode>();
      const int64_t* e = te::as_const_int(f->extent);
      return e ? std::min(kMany, *e * expanded_steps(f->body)) : kMany;
    }
    case StmtKind::Seq: {
      int64_t n = 0;
      for (const Stmt& c : s.as<SeqNode>()->seq) n = std::min(kMany, n + expanded_steps(c));
      return n;
    }
    case StmtKind::IfThenElse:
      return expanded_steps(s.as<IfThenElseNode>()->then_case) +
             expanded_steps(s.as<IfThenElseNode>()->else_case);
    case StmtKind::LetStmt:
      return expanded_steps(s.as<LetStmtNode>()->body);
    case StmtKind::AttrStmt:
      return expanded_steps(s.as<AttrStmtNode>()->body);
    case StmtKind::Allocate:
      return expanded_steps(s.as<AllocateNode>()->body);
    default:
      return 1;
  }
}

class Unroller : public StmtMutator {
 protected:
  Stmt visit_attr(const AttrStmtNode* n, const Stmt& s) override {
    if (n->key != "pragma_auto_unroll_max_step") return StmtMutator::visit_attr(n, s);
    const int64_t* v = te::as_const_int(n->value);
    int64_t saved = auto_max_step_;
    auto_max_step_ = v ? *v : 0;
    Stmt body = mutate(n->body);
    auto_max_step_ = saved;
    return body;
  }

  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    const int64_t* extent = te::as_const_int(n->extent);
    bool unroll = extent && (n->kind == ForKind::Unrolled ||
                             (n->kind == ForKind::Serial && auto_max_step_ > 0 &&
                              *extent * expanded_steps(n->body) <= auto_max_step_));
    Stmt body = mutate(n->body);
    if (!unroll)
      return body.same_as(n->body)
                 ? s
                 : make_for(n->loop_var, n->min, n->extent, n->kind, body, n->thread_tag);
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *extent; ++i) {
      te::VarMap<Expr> map;
      map[n->loop_var] = te::is_const_int(n->min, 0) ? te::make_int(i, n->loop_var.type())
                                                     : n->min + te::make_int(i, n->min.type());
      copies.push_back(substitute(body, map));
    }
    return make_seq(copies);
  }

 private:
  int64_t auto_max_step_ = 0;
};

}  // namespace

Stmt unroll_loop(const Stmt& s) {
  return Unroller().mutate(s);
}

}  // namespace lathe::tir
