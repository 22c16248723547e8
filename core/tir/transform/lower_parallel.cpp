#include "tir/transform/lower_parallel.h"

#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

class ParallelLowerer : public StmtMutator {
 protected:
  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    bool parallel = n->kind == ForKind::Parallel;
    bool nested = parallel && depth_ > 0;
    depth_ += parallel;
    Stmt body = mutate(n->body);
    depth_ -= parallel;
    if (!nested && body.same_as(n->body)) return s;
    return make_for(n->loop_var, n->min, n->extent, nested ? ForKind::Serial : n->kind, body,
                    n->thread_tag);
  }

 private:
  int depth_ = 0;
};

}  // namespace

Stmt lower_parallel(const Stmt& s) {
  return ParallelLowerer().mutate(s);
}

}  // namespace lathe::tir
