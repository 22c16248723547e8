// The GPU verifier and launch record (gpu_launch.h): one walk over a lowered
// kernel that notes, for every statement, the thread-bound loops around it.
#include <algorithm>
#include <functional>
#include <limits>

#include "codegen/gpu_launch.h"
#include "support/error.h"
#include "te/expr_functor.h"
#include "te/expr_printer.h"
#include "tir/stmt_functor.h"
#include "tir/transform/thread_allreduce.h"

namespace lathe::codegen {

namespace {

using te::Expr;

// blockIdx.x → {true, 0}, threadIdx.z → {false, 2}; dim -1 for another tag.
struct ThreadTag {
  bool is_block = false;
  int dim = -1;
};

ThreadTag parse_thread_tag(const std::string& tag) {
  ThreadTag t;
  std::string axis;
  if (tag.rfind("blockIdx.", 0) == 0) {
    t.is_block = true;
    axis = tag.substr(9);
  } else if (tag.rfind("threadIdx.", 0) == 0) {
    axis = tag.substr(10);
  }
  if (axis == "x") t.dim = 0;
  if (axis == "y") t.dim = 1;
  if (axis == "z") t.dim = 2;
  return t;
}

class Verifier {
 public:
  Verifier(const tir::PrimFunc& func, const Target& target) : func_(func), target_(target) {
    launch_.kernel = func.name;
    tir::visit_stmt(func.body, [&](const tir::Stmt& st) {
      if (const auto* f = st.as<tir::ForNode>(); f && f->kind == tir::ForKind::ThreadBinding)
        binds_ = true;
    });
  }

  // A kernel that binds no loop is a scalar's: one thread of one block runs
  // it, if its loops are short (walk_for refuses others).
  GpuLaunch run() {
    walk(func_.body);
    if (launch_.threads_per_block() > target_.max_threads_per_block)
      fail_here(str("its threads per block (", launch_.block[0], " x ", launch_.block[1], " x ",
                    launch_.block[2], " = ", launch_.threads_per_block(),
                    ") exceed the target's -max_threads_per_block=", target_.max_threads_per_block),
                GpuVerifyError::Subject::of_threads("threadIdx"));
    // A cross-thread reduction over more than a warp passes the warps'
    // partials through shared memory (codegen_nvptx.cpp): a value a warp.
    if (launch_.block[0] > 32)
      launch_.shared_bytes += allreduce_bytes_ * (launch_.threads_per_block() / 32);
    // Through shared memory: a value a thread.
    launch_.shared_bytes += allreduce_per_thread_bytes_ * launch_.threads_per_block();
    if (launch_.shared_bytes > target_.max_shared_memory_per_block)
      fail_here(str("its shared memory (", launch_.shared_bytes,
                    " bytes) exceeds the target's -max_shared_memory_per_block=",
                    target_.max_shared_memory_per_block),
                GpuVerifyError::Subject::of_scope("shared"));
    const int64_t grid_limit[3] = {std::numeric_limits<int32_t>::max(), 65535, 65535};
    for (int d = 0; d < 3; ++d)
      if (launch_.grid[d] > grid_limit[d])
        fail_here(str("blockIdx.", "xyz"[d], " spans ", launch_.grid[d],
                      " blocks, over the device's ", grid_limit[d]),
                  GpuVerifyError::Subject::of_threads(str("blockIdx.", "xyz"[d])));
    return launch_;
  }

 private:
  [[noreturn]] void fail_here(const std::string& message,
                              GpuVerifyError::Subject subject = {}) const {
    throw GpuVerifyError(
        str("gpu verifier: kernel '", func_.name, "' for '", target_.to_string(), "': ", message),
        std::move(subject));
  }

  void check_access(const char* what, const te::Var& buffer) const {
    if (bound_depth_ == 0 && binds_)
      fail_here(str(what, " of '", buffer.name(),
                    "' outside every thread-bound loop would run in every GPU thread (did you "
                    "forget to bind?)"));
  }

  void check_exprs(const Expr& e) const {
    te::visit_expr(e, [&](const Expr& x) {
      if (const auto* load = x.as<te::LoadNode>()) check_access("a read", load->buffer);
    });
  }

  void walk(const tir::Stmt& s) {
    if (!s.defined()) return;
    switch (s.kind()) {
      case tir::StmtKind::For:
        walk_for(s.as<tir::ForNode>());
        return;
      case tir::StmtKind::Store: {
        const auto* n = s.as<tir::StoreNode>();
        check_access("a write", n->buffer);
        check_exprs(n->value);
        check_exprs(n->index);
        return;
      }
      case tir::StmtKind::Allocate:
        walk_allocate(s.as<tir::AllocateNode>());
        return;
      case tir::StmtKind::Seq:
        for (const tir::Stmt& part : s.as<tir::SeqNode>()->seq) walk(part);
        return;
      case tir::StmtKind::IfThenElse: {
        const auto* n = s.as<tir::IfThenElseNode>();
        check_exprs(n->condition);
        walk(n->then_case);
        walk(n->else_case);
        return;
      }
      case tir::StmtKind::LetStmt:
        check_exprs(s.as<tir::LetStmtNode>()->value);
        walk(s.as<tir::LetStmtNode>()->body);
        return;
      case tir::StmtKind::AttrStmt:
        if (const auto* n = s.as<tir::AttrStmtNode>(); tir::is_thread_allreduce(n->key))
          if (const auto* store = n->body.as<tir::StoreNode>()) {
            const int64_t bytes = (store->value.type().bits + 7) / 8;
            const auto tag = n->value.as<te::VarNode>() ? bound_tags_.find(te::Var(n->value))
                                                        : bound_tags_.end();
            // Over threadIdx.y, or a group of x threads that is not a
            // power of two: through shared memory, a value a thread.
            const int64_t width =
                tag != bound_tags_.end() ? bound_extents_.at(te::Var(n->value)) : 1;
            if (tag != bound_tags_.end() &&
                (tag->second == "threadIdx.y" || (width & (width - 1)) != 0))
              allreduce_per_thread_bytes_ += bytes;
            else
              allreduce_bytes_ += bytes;
          }
        walk(s.as<tir::AttrStmtNode>()->body);
        return;
      case tir::StmtKind::Evaluate:
        check_exprs(s.as<tir::EvaluateNode>()->value);
        return;
      case tir::StmtKind::ProducerStore:
      case tir::StmtKind::ProducerRealize:
        fail_here("a ProducerStore/ProducerRealize is left: storage flattening must run first");
    }
  }

  void walk_for(const tir::ForNode* n) {
    const std::string& name = n->loop_var.name();
    const int64_t* extent = te::as_const_int(n->extent);
    if (n->kind == tir::ForKind::Parallel)
      fail_here(str("loop '", name,
                    "' is parallel, which is the CPU's thread pool; on a GPU bind it to "
                    "blockIdx/threadIdx instead"),
                GpuVerifyError::Subject::of_loop(name));
    if (n->kind != tir::ForKind::ThreadBinding) {
      // A kernel that binds nothing is one thread's: its loops may run
      // whole there while the work stays a scalar's (a short reduction).
      const int64_t outer_work = one_thread_work_;
      if (!binds_ && extent) one_thread_work_ *= std::max<int64_t>(*extent, 1);
      const bool one_thread = !binds_ && extent && one_thread_work_ <= kOneThreadWork;
      if (bound_depth_ == 0 && !(extent && *extent <= 1) && !one_thread)
        fail_here(str("loop '", name, "' (extent ", te::to_string(n->extent),
                      ") is outside every thread-bound loop: every GPU thread would run it "
                      "whole; bind it, or split it and bind the parts (did you forget to bind?)"),
                  GpuVerifyError::Subject::of_loop(name));
      walk(n->body);
      one_thread_work_ = outer_work;
      return;
    }
    const ThreadTag tag = parse_thread_tag(n->thread_tag);
    if (tag.dim < 0)
      fail_here(str("loop '", name, "' is bound to '", n->thread_tag,
                    "'; the cuda target binds blockIdx.x/y/z and threadIdx.x/y/z (tir::lower "
                    "removes vthread loops)"),
                GpuVerifyError::Subject::of_loop(name));
    if (!extent || *extent < 1)
      fail_here(str("loop '", name, "' bound to ", n->thread_tag, " has extent ",
                    te::to_string(n->extent),
                    "; a launch needs a constant, positive number of threads and blocks"),
                GpuVerifyError::Subject::of_loop(name));
    const int slot = (tag.is_block ? 0 : 3) + tag.dim;
    // A threadIdx loop inside another of the same tag is the threads of the
    // block again (a cooperative fetch into shared memory inside the
    // threads' tiles, as TVM's one thread variable per tag); a block cannot
    // be split again.
    if (open_[slot] && tag.is_block)
      fail_here(
          str("loop '", name, "' is bound to ", n->thread_tag, " inside another loop bound to it"),
          GpuVerifyError::Subject::of_loop(name));
    const bool reopened = open_[slot];
    int64_t& launch = tag.is_block ? launch_.grid[tag.dim] : launch_.block[tag.dim];
    launch = std::max(launch, *extent);
    open_[slot] = true;
    bound_tags_[n->loop_var] = n->thread_tag;
    bound_extents_[n->loop_var] = *extent;
    ++bound_depth_;
    walk(n->body);
    --bound_depth_;
    open_[slot] = reopened;
  }

  void walk_allocate(const tir::AllocateNode* n) {
    int64_t count = 1;
    bool constant = true;
    for (const Expr& e : n->extents) {
      const int64_t* c = te::as_const_int(e);
      if (!c) constant = false;
      if (c) count *= *c;
    }
    const int64_t bytes = count * ((n->dtype.bits * n->dtype.lanes + 7) / 8);
    if (n->storage_scope == "shared") {
      if (!constant)
        fail_here(str("shared buffer '", n->buffer.name(),
                      "' has a size that is not a constant; shared memory is sized at compile "
                      "time"),
                  GpuVerifyError::Subject::of_scope("shared"));
      launch_.shared_bytes += bytes;
    } else if (!constant) {
      fail_here(str("buffer '", n->buffer.name(), "' (scope ", n->storage_scope,
                    ") has a size that is not a constant; a GPU thread allocates only "
                    "constant-size local memory"));
    } else if (bound_depth_ == 0 && n->storage_scope != "local" &&
               !(!binds_ && bytes <= kOneThreadBytes)) {
      fail_here(str("intermediate buffer '", n->buffer.name(), "' (", bytes,
                    " bytes) lies outside every thread-bound loop: each thread would hold all "
                    "of it; compute it at (compute_at) a bound loop, inline it, or make it a "
                    "'shared' cache"));
    }
    const bool per_thread = n->storage_scope != "shared";
    if (per_thread) {
      per_thread_bytes_ += bytes;
      if (per_thread_bytes_ > kPerThreadBytes)
        fail_here(str("buffer '", n->buffer.name(), "' (", bytes, " bytes) brings what each ",
                      "thread holds at once to ", per_thread_bytes_, " bytes, over the ",
                      kPerThreadBytes, " a GPU thread may keep in local memory (its registers ",
                      "hold about 1 KiB); compute it at a loop further in, where its region is ",
                      "smaller, or make it a 'shared' cache the block fills together"),
                  GpuVerifyError::Subject::of_buffer(n->buffer.name()));
    }
    walk(n->body);
    if (per_thread) per_thread_bytes_ -= bytes;
  }

  const tir::PrimFunc& func_;
  const Target& target_;
  GpuLaunch launch_;
  int64_t allreduce_bytes_ = 0;             // a value of each reduction over threadIdx.x
  int64_t allreduce_per_thread_bytes_ = 0;  // and of those through shared memory
  te::VarMap<std::string> bound_tags_;      // the variables of the thread-bound loops
  te::VarMap<int64_t> bound_extents_;       // and their extents
  int bound_depth_ = 0;
  bool binds_ = false;  // whether any loop is bound to a thread index
  // What a kernel that binds nothing may do in its one thread: iterations of
  // its loop nests and bytes of each scratch buffer. Beyond, a forgotten
  // bind is the likelier cause than a scalar's work.
  static constexpr int64_t kOneThreadWork = 1024;
  static constexpr int64_t kOneThreadBytes = 1024;
  // Each thread's own buffers live at once (registers, then local memory,
  // which spills through the caches). CUDA allows far more (512 KiB), but a
  // schedule past this is a region grown by loops inside an attach point,
  // not a register block; it also bounds the GPU simulator's fiber stacks.
  static constexpr int64_t kPerThreadBytes = 16 * 1024;
  int64_t per_thread_bytes_ = 0;
  int64_t one_thread_work_ = 1;  // iterations of the loops around, in such a kernel
  bool open_[6] = {};
};

}  // namespace

GpuLaunch verify_gpu_func(const tir::PrimFunc& func, const Target& target) {
  if (!target.is_gpu())
    fail(str("gpu verifier: kernel '", func.name, "': target '", target.to_string(),
             "' is not a GPU"));
  if (!func.body.defined()) fail(str("gpu verifier: kernel '", func.name, "' has no body"));
  return Verifier(func, target).run();
}

}  // namespace lathe::codegen
