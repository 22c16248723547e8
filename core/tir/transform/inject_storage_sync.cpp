#include "tir/transform/inject_storage_sync.h"

#include <algorithm>
#include <map>

#include "support/error.h"
#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

// The shared buffers a statement writes and reads.
struct SharedAccess {
  te::VarMap<bool> writes, reads;
};

class SyncInjector : public StmtMutator {
 public:
  // The launch's extent of each thread tag: its longest bound loop's.
  explicit SyncInjector(const Stmt& body) {
    visit_stmt(body, [&](const Stmt& x) {
      if (const auto* a = x.as<AllocateNode>(); a && a->storage_scope == "shared")
        shared_[a->buffer] = true;
      if (const auto* f = x.as<ForNode>(); f && f->kind == ForKind::ThreadBinding)
        if (const int64_t* extent = te::as_const_int(f->extent))
          launched_[f->thread_tag] = std::max(launched_[f->thread_tag], *extent);
    });
  }

 protected:
  Stmt visit_allocate(const AllocateNode* n, const Stmt& s) override {
    if (n->storage_scope == "shared") shared_[n->buffer] = true;
    return StmtMutator::visit_allocate(n, s);
  }

  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    // Inside a thread's loop shorter than the launch the barrier would sit
    // under its extent guard; inside one as long, every thread reaches it
    // (a GEMM's k loop inside the threads' output tiles, TVM's usual form).
    const bool threads =
        n->kind == ForKind::ThreadBinding && n->thread_tag.rfind("threadIdx", 0) == 0;
    if (threads) {
      const int64_t* extent = te::as_const_int(n->extent);
      if (!extent || *extent != launched_[n->thread_tag]) {
        // Shared data that crosses threads in there would need a barrier
        // that some threads never reach: refuse, not race.
        if (crosses_threads(n->body))
          fail(str("loop '", n->loop_var.name(), "' bound to ", n->thread_tag, " runs ",
                   te::to_string(n->extent), " of the ", launched_[n->thread_tag],
                   " threads launched for it, and shared memory is written and read inside "
                   "it; a barrier there would not be reached by every thread (give the loops "
                   "bound to ",
                   n->thread_tag, " one extent)"));
        return s;
      }
    }
    thread_depth_ += threads;
    Stmt body = mutate(n->body);
    thread_depth_ -= threads;
    if (n->kind == ForKind::Serial) {
      const SharedAccess a = access(body);
      bool both = false;
      for (const auto& [buffer, _] : a.writes)
        if (a.reads.count(buffer)) both = true;
      if (both) body = make_seq({body, make_storage_sync()});
    }
    if (body.same_as(n->body)) return s;
    return make_for(n->loop_var, n->min, n->extent, n->kind, body, n->thread_tag);
  }

  Stmt visit_if(const IfThenElseNode* n, const Stmt& s) override {
    // Inside the threads' loops a condition may differ between threads.
    return thread_depth_ > 0 ? s : StmtMutator::visit_if(n, s);
  }

  Stmt visit_seq(const SeqNode* n, const Stmt& s) override {
    std::vector<Stmt> parts;
    bool changed = false;
    te::VarMap<bool> pending;  // written since the last barrier
    for (const Stmt& part : n->seq) {
      Stmt p = mutate(part);
      changed |= !p.same_as(part);
      const SharedAccess a = access(p);
      bool hazard = false;
      for (const auto& [buffer, _] : a.reads)
        if (pending.count(buffer)) hazard = true;
      if (hazard) {
        parts.push_back(make_storage_sync());
        pending.clear();
        changed = true;
      }
      if (is_sync(p)) pending.clear();
      for (const auto& [buffer, _] : a.writes) pending[buffer] = true;
      parts.push_back(std::move(p));
    }
    return changed ? make_seq(std::move(parts)) : s;
  }

 private:
  // Whether a serial loop or sequence inside `s` writes a shared buffer that
  // a later statement reads: data one thread leaves for another.
  bool crosses_threads(const Stmt& s) const {
    bool found = false;
    visit_stmt(s, [&](const Stmt& x) {
      const auto* seq = x.as<SeqNode>();
      const auto* loop = x.as<ForNode>();
      if (found || (!seq && !(loop && loop->kind == ForKind::Serial))) return;
      const SharedAccess a = access(x);
      for (const auto& [buffer, _] : a.writes)
        if (a.reads.count(buffer)) found = true;
    });
    return found;
  }

  static bool is_sync(const Stmt& s) {
    const auto* attr = s.as<AttrStmtNode>();
    return attr && attr->key == kStorageSyncAttr;
  }

  SharedAccess access(const Stmt& s) const {
    SharedAccess a;
    visit_stmt(s, [&](const Stmt& x) {
      if (const auto* store = x.as<StoreNode>())
        if (shared_.count(store->buffer)) a.writes[store->buffer] = true;
    });
    visit_stmt_exprs(s, [&](const Expr& e) {
      te::visit_expr(e, [&](const Expr& x) {
        if (const auto* load = x.as<te::LoadNode>())
          if (shared_.count(load->buffer)) a.reads[load->buffer] = true;
      });
    });
    return a;
  }

  te::VarMap<bool> shared_;  // buffers allocated in shared memory
  std::map<std::string, int64_t> launched_;
  int thread_depth_ = 0;  // thread loops as long as the launch around the statement
};

}  // namespace

Stmt make_storage_sync() {
  return make_attr(kStorageSyncAttr, te::make_int(0), make_evaluate(te::make_int(0)));
}

Stmt inject_storage_sync(const Stmt& s) {
  return SyncInjector(s).mutate(s);
}

}  // namespace lathe::tir
