#include "tir/transform/vectorize_loop.h"

#include "support/error.h"
#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

// Widens expressions and stores in a body where `var` is replaced by a ramp.
class Widener : public IRMutator {
 public:
  Widener(Var var, Expr ramp) : var_(std::move(var)), ramp_(std::move(ramp)) {}

 protected:
  Expr visit_var(const Expr& e) override { return e.same_as(var_) ? ramp_ : e; }

  Expr visit_load(const te::LoadNode* n, const Expr& e) override {
    Expr index = mutate(n->index);
    if (index.same_as(n->index)) return e;
    return te::load(n->type.with_lanes(index.type().lanes), n->buffer, index);
  }

  Expr visit_cast(const te::CastNode* n, const Expr& e) override {
    Expr v = mutate(n->value);
    if (v.same_as(n->value)) return e;
    return te::cast(n->type.with_lanes(v.type().lanes), v);
  }

  Stmt visit_store(const StoreNode* n, const Stmt& s) override {
    Expr value = mutate_expr(n->value), index = mutate_expr(n->index);
    if (value.same_as(n->value) && index.same_as(n->index)) return s;
    int lanes = std::max(value.type().lanes, index.type().lanes);
    LATHE_CHECK(index.type().lanes == lanes,
                "vectorize: every lane would store to the same "
                "address of '",
                n->buffer.name(), "'");
    if (value.type().lanes != lanes) value = te::broadcast(value, lanes);
    return make_store(n->buffer, value, index);
  }

 private:
  Var var_;
  Expr ramp_;
};

// Whether the body is straight-line code apart from branches that do not
// depend on the loop variable.
bool widenable(const Stmt& body, const Var& var) {
  bool ok = true;
  visit_stmt(body, [&](const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::For:
      case StmtKind::Allocate:
      case StmtKind::ProducerRealize:
      case StmtKind::LetStmt:
        ok = false;
        break;
      case StmtKind::IfThenElse:
        ok &= !te::uses_var(s.as<IfThenElseNode>()->condition, var);
        break;
      default:
        break;
    }
  });
  return ok;
}

class Vectorizer : public StmtMutator {
 protected:
  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    Stmt body = mutate(n->body);
    const int64_t* extent = te::as_const_int(n->extent);
    if (n->kind != ForKind::Vectorized) {
      return body.same_as(n->body)
                 ? s
                 : make_for(n->loop_var, n->min, n->extent, n->kind, body, n->thread_tag);
    }
    if (!extent || *extent < 2 || !widenable(body, n->loop_var))
      return make_for(n->loop_var, n->min, n->extent, ForKind::Serial, body);
    Expr ramp = te::ramp(n->min, te::make_int(1, n->min.type()), static_cast<int>(*extent));
    return Widener(n->loop_var, ramp).mutate(body);
  }
};

}  // namespace

Stmt vectorize_loop(const Stmt& s) {
  return Vectorizer().mutate(s);
}

}  // namespace lathe::tir
