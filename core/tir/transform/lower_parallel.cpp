#include "tir/transform/lower_parallel.h"

#include "tir/analysis/flop_count.h"
#include "tir/analysis/memory_traffic.h"
#include "tir/stmt_functor.h"

namespace lathe::tir {
namespace {

// A launch hands the loop's chunks to the pool's workers and waits for them:
// on a quiet machine a microsecond or two of cache-line traffic between the
// cores, on a shared one (a worker descheduled, another process on its core)
// often ten. A loop issuing fewer instructions for its work than this (a few
// microseconds of one core) runs serially, unless it touches more bytes than
// one core streams in that time. speech_lstm's per-step kernels (a 128 x 512
// matrix-vector product, about 8,000 vector instructions, and the gates
// after it) ran 0.65-0.75 ms a model serially against 0.85-1.8 ms on two
// threads on a 2-core Zen 5; no zoo model got slower.
constexpr double kMinParallelOperations = 20000;
constexpr double kMinParallelBytes = 2.0 * 1024 * 1024;

class ParallelLowerer : public StmtMutator {
 public:
  explicit ParallelLowerer(const std::vector<Buffer>& params) : params_(params) {}

 protected:
  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    if (n->kind != ForKind::Parallel) return StmtMutator::visit_for(n, s);
    if (depth_ > 0) return serial(n, mutate(n->body));  // inside another's task
    const ParallelGrain grain = parallel_grain(s, params_);
    if (!grain.worth_a_launch)
      return make_attr(kSmallParallelAttr, te::make_int(static_cast<int64_t>(grain.operations)),
                       serial(n, mutate(n->body)));
    ++depth_;
    Stmt body = mutate(n->body);
    --depth_;
    return body.same_as(n->body)
               ? s
               : make_for(n->loop_var, n->min, n->extent, n->kind, body, n->thread_tag);
  }

 private:
  static Stmt serial(const ForNode* n, Stmt body) {
    return make_for(n->loop_var, n->min, n->extent, ForKind::Serial, std::move(body),
                    n->thread_tag);
  }

  const std::vector<Buffer>& params_;
  int depth_ = 0;
};

}  // namespace

ParallelGrain parallel_grain(const Stmt& loop, const std::vector<Buffer>& params) {
  ParallelGrain g;
  g.operations = count_operations(loop);
  if (g.operations >= kMinParallelOperations) {
    g.worth_a_launch = true;
    return g;
  }
  // The distinct bytes: the loop's traffic through a cache that holds all of
  // it, the first time.
  const std::vector<LevelTraffic> t =
      memory_traffic(PrimFunc{"", params, loop}, {int64_t{1} << 50});
  g.bytes = t.empty() ? 0 : t.front().bytes();
  g.worth_a_launch = g.bytes >= kMinParallelBytes;
  return g;
}

Stmt lower_parallel(const Stmt& s, const std::vector<Buffer>& params) {
  return ParallelLowerer(params).mutate(s);
}

}  // namespace lathe::tir
