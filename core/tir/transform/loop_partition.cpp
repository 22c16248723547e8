#include "tir/transform/loop_partition.h"

#include "tir/arith/interval.h"
#include "tir/arith/prove.h"
#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

// Replaces guards that hold for every point of `dom` by their then-branch.
class GuardRemover : public StmtMutator {
 public:
  explicit GuardRemover(te::VarMap<Range> dom) : dom_(std::move(dom)) {}
  bool removed = false;

 protected:
  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    dom_[n->loop_var] = Range(n->min, n->extent);
    Stmt r = StmtMutator::visit_for(n, s);
    dom_.erase(n->loop_var);
    return r;
  }

  Stmt visit_if(const IfThenElseNode* n, const Stmt& s) override {
    if (!n->else_case.defined() && arith::can_prove(n->condition, arith::bounds_of_ranges(dom_))) {
      removed = true;
      return mutate(n->then_case);
    }
    return StmtMutator::visit_if(n, s);
  }

 private:
  te::VarMap<Range> dom_;
};

class Partitioner : public StmtMutator {
 protected:
  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    dom_[n->loop_var] = Range(n->min, n->extent);
    Stmt body = mutate(n->body);
    dom_.erase(n->loop_var);
    const int64_t* extent = te::as_const_int(n->extent);
    // A thread-bound loop is not peeled: its iterations are a GPU's threads
    // or blocks, and the last one split off would run in every block.
    if (extent && *extent >= 2 && n->kind != ForKind::Vectorized &&
        n->kind != ForKind::ThreadBinding) {
      // Does the body lose a guard when the loop stops one iteration short?
      te::VarMap<Range> main_dom = dom_;
      main_dom[n->loop_var] = Range(n->min, te::make_int(*extent - 1, n->extent.type()));
      GuardRemover remover(main_dom);
      Stmt main_body = remover.mutate(body);
      if (remover.removed) {
        Stmt main = make_for(n->loop_var, n->min, te::make_int(*extent - 1, n->extent.type()),
                             n->kind, main_body, n->thread_tag);
        te::VarMap<Expr> last;
        last[n->loop_var] = n->min + te::make_int(*extent - 1, n->min.type());
        return make_seq({main, substitute(body, last)});
      }
    }
    if (body.same_as(n->body)) return s;
    return make_for(n->loop_var, n->min, n->extent, n->kind, body, n->thread_tag);
  }

 private:
  te::VarMap<Range> dom_;
};

}  // namespace

Stmt loop_partition(const Stmt& s) {
  return Partitioner().mutate(s);
}

}  // namespace lathe::tir
