#include "tir/transform/inject_virtual_thread.h"

#include <unordered_set>

#include "support/error.h"
#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/stmt_functor.h"
#include "tir/transform/inject_storage_sync.h"

namespace lathe::tir {
namespace {

constexpr const char* kVirtualThreadTag = "vthread";
// Below this many virtual threads a statement without loops is unrolled.
constexpr int64_t kMaxUnrolledThreads = 16;

using VarSet = std::unordered_set<Var, te::VarHash, te::VarEqual>;

// Whether an expression reads a touched variable or a touched buffer, and
// otherwise which variables and buffers it reads (they may become touched
// later, in a loop: VarTouchedAnalysis propagates through them).
struct ExprTouch {
  bool touched = false;
  std::vector<Var> used;
};

void touch(const Expr& e, const VarSet& touched, ExprTouch& t) {
  if (!e.defined()) return;
  te::visit_expr(e, [&](const Expr& x) {
    Var v;
    if (x.as<te::VarNode>()) v = Var(x);
    if (const auto* load = x.as<te::LoadNode>()) v = load->buffer;
    if (!v.defined()) return;
    if (touched.count(v))
      t.touched = true;
    else
      t.used.push_back(v);
  });
}

// The variables and buffers whose values depend on the virtual thread's
// variable: those defined (a let, a loop's bounds, a buffer's stores or
// extents) from expressions that read it or read other touched ones.
class TouchedAnalysis {
 public:
  VarSet run(const Stmt& body, const Var& thread) {
    touched_.insert(thread);
    walk(body);
    std::vector<Var> pending(touched_.begin(), touched_.end());
    while (!pending.empty()) {
      Var v = pending.back();
      pending.pop_back();
      for (const Var& r : affects_[v])
        if (touched_.insert(r).second) pending.push_back(r);
    }
    return touched_;
  }

 private:
  void walk(const Stmt& s) {
    visit_stmt(s, [&](const Stmt& x) {
      ExprTouch t;
      Var defined;
      if (const auto* let = x.as<LetStmtNode>()) {
        touch(let->value, touched_, t);
        defined = let->var;
      } else if (const auto* store = x.as<StoreNode>()) {
        touch(store->value, touched_, t);
        touch(store->index, touched_, t);
        defined = store->buffer;
      } else if (const auto* loop = x.as<ForNode>()) {
        touch(loop->min, touched_, t);
        touch(loop->extent, touched_, t);
        defined = loop->loop_var;
      } else if (const auto* alloc = x.as<AllocateNode>()) {
        for (const Expr& e : alloc->extents) touch(e, touched_, t);
        defined = alloc->buffer;
      }
      if (defined.defined()) record(defined, t);
    });
  }

  void record(const Var& v, const ExprTouch& t) {
    if (touched_.count(v)) return;
    if (t.touched) {
      touched_.insert(v);
      return;
    }
    for (const Var& r : t.used)
      if (!r.same_as(v)) affects_[r].push_back(v);
  }

  VarSet touched_;
  te::VarMap<std::vector<Var>> affects_;  // x → what is computed from x
};

// Whether a statement writes and reads shared memory or holds a barrier:
// inside a virtual-thread loop that would put a barrier between virtual
// threads that all run in one physical thread.
std::string barrier_inside(const Stmt& s, const VarSet& shared) {
  std::string why;
  VarSet writes, reads;
  visit_stmt(s, [&](const Stmt& x) {
    if (const auto* attr = x.as<AttrStmtNode>(); attr && attr->key == kStorageSyncAttr)
      why = "holds a barrier";
    if (const auto* store = x.as<StoreNode>(); store && shared.count(store->buffer))
      writes.insert(store->buffer);
  });
  visit_stmt_exprs(s, [&](const Expr& e) {
    te::visit_expr(e, [&](const Expr& x) {
      if (const auto* load = x.as<te::LoadNode>(); load && shared.count(load->buffer))
        reads.insert(load->buffer);
    });
  });
  for (const Var& w : writes)
    if (reads.count(w))
      why = "writes and reads shared buffer '" + w.name() + "', which needs a barrier between";
  return why;
}

// TVM's VTInjector: pushes the virtual-thread loop down to the statements
// that read its variable (or a touched variable or buffer) and expands the
// touched allocations.
class VirtualThreadInjector : public IRMutator {
 public:
  VirtualThreadInjector(const ForNode& loop, int64_t count, VarSet touched, const VarSet& shared)
      : loop_(loop), count_(count), touched_(std::move(touched)), shared_(shared) {}

  Stmt mutate(const Stmt& s) override {
    Stmt stmt = StmtMutator::mutate(s);
    if (visit_touched_) {
      if (!injected_) return inject(stmt, false);
      visit_touched_ = false;
    }
    return stmt;
  }
  using IRMutator::mutate;

 protected:
  Expr visit_var(const Expr& e) override {
    Var v(e);
    LATHE_CHECK(!remap_.count(v), "inject_virtual_thread: the address of buffer '", v.name(),
                "' is used inside virtual-thread loop '", loop_.loop_var.name(), "'");
    if (touched_.count(v)) visit_touched_ = true;
    return e;
  }

  Expr visit_load(const te::LoadNode* n, const Expr& e) override {
    Expr index = mutate_expr(n->index);
    if (touched_.count(n->buffer)) visit_touched_ = true;
    if (auto it = remap_.find(n->buffer); it != remap_.end())
      return te::load(e.type(), n->buffer, offset(index, it->second));
    return index.same_as(n->index) ? e : te::load(e.type(), n->buffer, index);
  }

  Stmt visit_store(const StoreNode* n, const Stmt& s) override {
    Expr value = mutate_expr(n->value), index = mutate_expr(n->index);
    if (touched_.count(n->buffer)) visit_touched_ = true;
    if (auto it = remap_.find(n->buffer); it != remap_.end())
      return make_store(n->buffer, value, offset(index, it->second));
    if (value.same_as(n->value) && index.same_as(n->index)) return s;
    return make_store(n->buffer, value, index);
  }

  Stmt visit_attr(const AttrStmtNode* n, const Stmt& s) override {
    Expr value = mutate_expr(n->value);
    if (visit_touched_ && !injected_) return inject(s, true);
    Stmt body = mutate(n->body);
    if (value.same_as(n->value) && body.same_as(n->body)) return s;
    return make_attr(n->key, value, body);
  }

  Stmt visit_let(const LetStmtNode* n, const Stmt& s) override {
    Expr value = mutate_expr(n->value);
    if (visit_touched_ && !injected_) return inject(s, true);
    visit_touched_ = false;
    Stmt body = mutate(n->body);
    if (value.same_as(n->value) && body.same_as(n->body)) return s;
    return make_let(n->var, value, body);
  }

  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    Expr min = mutate_expr(n->min), extent = mutate_expr(n->extent);
    if (visit_touched_ && !injected_) {
      Stmt stmt = inject(s, true);
      ++loop_depth_;
      return stmt;
    }
    visit_touched_ = false;
    Stmt body = mutate(n->body);
    ++loop_depth_;
    if (min.same_as(n->min) && extent.same_as(n->extent) && body.same_as(n->body)) return s;
    return make_for(n->loop_var, min, extent, n->kind, body, n->thread_tag);
  }

  Stmt visit_if(const IfThenElseNode* n, const Stmt& s) override {
    Expr cond = mutate_expr(n->condition);
    if (visit_touched_ && !injected_) return inject(s, true);
    visit_touched_ = false;
    Stmt then_case = mutate(n->then_case);
    Stmt else_case;
    if (n->else_case.defined()) {
      const int saved = loop_depth_;
      loop_depth_ = 0;
      else_case = mutate(n->else_case);
      loop_depth_ = std::max(saved, loop_depth_);
    }
    if (cond.same_as(n->condition) && then_case.same_as(n->then_case) &&
        else_case.same_as(n->else_case))
      return s;
    return make_if(cond, then_case, else_case);
  }

  Stmt visit_seq(const SeqNode* n, const Stmt& s) override {
    bool changed = false;
    std::vector<Stmt> parts;
    for (const Stmt& c : n->seq) {
      const int saved = loop_depth_;
      loop_depth_ = 0;
      parts.push_back(mutate(c));
      loop_depth_ = std::max(saved, loop_depth_);
      changed |= !parts.back().same_as(c);
    }
    return changed ? make_seq(parts) : s;
  }

  Stmt visit_allocate(const AllocateNode* n, const Stmt& s) override {
    std::vector<Expr> extents;
    for (const Expr& e : n->extents) {
      extents.push_back(mutate_expr(e));
      if (visit_touched_ && !injected_) return inject(s, true);
    }
    visit_touched_ = false;
    if (!touched_.count(n->buffer)) {
      Stmt body = mutate(n->body);
      return body.same_as(n->body)
                 ? s
                 : make_allocate(n->buffer, n->dtype, n->extents, body, n->storage_scope);
    }
    // One copy per virtual thread, on the highest dimension.
    Expr size = te::make_int(n->dtype.lanes);
    for (const Expr& e : n->extents) size = size * e;
    extents.insert(extents.begin(), te::make_int(count_));
    remap_[n->buffer] = size;
    Stmt body = mutate(n->body);
    return make_allocate(n->buffer, n->dtype, extents, body, n->storage_scope);
  }

  Stmt visit_producer_store(const ProducerStoreNode*, const Stmt&) override {
    fail("inject_virtual_thread runs after storage_flatten");
  }
  Stmt visit_producer_realize(const ProducerRealizeNode*, const Stmt&) override {
    fail("inject_virtual_thread runs after storage_flatten");
  }

 private:
  Expr offset(const Expr& index, const Expr& size) const {
    Expr shift = Expr(loop_.loop_var) * size;
    return index + shift;
  }

  // The virtual-thread loop around `stmt`, mutated first when it was not.
  Stmt inject(Stmt stmt, bool before_mutation) {
    visit_touched_ = false;
    injected_ = true;
    if (before_mutation) stmt = mutate(stmt);
    injected_ = false;
    visit_touched_ = false;
    if (std::string why = barrier_inside(stmt, shared_); !why.empty())
      fail(str("virtual-thread loop '", loop_.loop_var.name(), "': a statement that depends on ",
               "it ", why, " its virtual threads, which all run in one GPU thread; keep what ",
               "shared memory holds independent of '", loop_.loop_var.name(),
               "' (attach the shared stage outside its loop, or fetch for all virtual threads "
               "together)"));
    const Var& v = loop_.loop_var;
    if (loop_depth_ == 0 && count_ < kMaxUnrolledThreads) {
      std::vector<Stmt> copies;
      for (int64_t i = 0; i < count_; ++i)
        copies.push_back(substitute(stmt, {{v, te::make_int(i, v.type())}}));
      return make_seq(std::move(copies));
    }
    Var serial(v.name() + ".s", v.type());
    return make_for(serial, te::make_int(0, v.type()), te::make_int(count_, v.type()),
                    ForKind::Serial, substitute(stmt, {{v, serial}}));
  }

  const ForNode& loop_;
  const int64_t count_;
  const VarSet touched_;
  const VarSet& shared_;
  te::VarMap<Expr> remap_;  // expanded buffers → their size per virtual thread
  bool injected_ = false;
  bool visit_touched_ = false;
  int loop_depth_ = 0;  // loops inside the statement last mutated
};

// Removes the vthread loops innermost first, as TVM's pass does (a post-order
// mutator), so an outer one sees the inner ones already pushed down.
class VirtualThreadLoops : public StmtMutator {
 protected:
  Stmt visit_allocate(const AllocateNode* n, const Stmt& s) override {
    if (n->storage_scope == "shared") shared_.insert(n->buffer);
    return StmtMutator::visit_allocate(n, s);
  }

  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    Stmt inner = StmtMutator::visit_for(n, s);
    if (n->kind != ForKind::ThreadBinding || n->thread_tag != kVirtualThreadTag) return inner;
    const auto* loop = inner.as<ForNode>();
    const int64_t* extent = te::as_const_int(loop->extent);
    if (!extent || *extent < 1)
      fail(str("virtual-thread loop '", n->loop_var.name(), "' needs a constant extent, not ",
               te::to_string(loop->extent)));
    const int64_t* min = te::as_const_int(loop->min);
    LATHE_CHECK(min && *min == 0, "virtual-thread loop '", n->loop_var.name(), "' must start at 0");
    // Shared buffers allocated inside the loop too.
    visit_stmt(loop->body, [&](const Stmt& x) {
      if (const auto* a = x.as<AllocateNode>(); a && a->storage_scope == "shared")
        shared_.insert(a->buffer);
    });
    VarSet touched = TouchedAnalysis().run(loop->body, loop->loop_var);
    return VirtualThreadInjector(*loop, *extent, std::move(touched), shared_).mutate(loop->body);
  }

 private:
  VarSet shared_;
};

}  // namespace

Stmt inject_virtual_thread(const Stmt& s) {
  return VirtualThreadLoops().mutate(s);
}

}  // namespace lathe::tir
