#include "tir/lower.h"

#include <sstream>

#include "support/timer.h"
#include "te/expr_printer.h"
#include "tir/arith/simplify.h"
#include "tir/printer.h"
#include "tir/transform/infer_bound.h"
#include "tir/transform/inject_prefetch.h"
#include "tir/transform/inject_storage_sync.h"
#include "tir/transform/inject_virtual_thread.h"
#include "tir/transform/loop_partition.h"
#include "tir/transform/lower_parallel.h"
#include "tir/transform/schedule_ops.h"
#include "tir/transform/storage_flatten.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/vectorize_loop.h"

namespace lathe::tir {
namespace {

std::string print_ranges(const std::vector<StageInfo>& stages, const IterVarRanges& ranges) {
  std::ostringstream os;
  for (const StageInfo& s : stages) {
    os << s.stage->op->name << ":\n";
    for (const IterVar& iv : s.stage->all_iter_vars) {
      auto it = ranges.find(iv);
      if (it == ranges.end()) continue;
      const te::Range& r = it->second;
      os << "    " << iv.name() << " in [" << te::to_string(r.min) << ", "
         << te::to_string(arith::simplify(r.min + r.extent)) << ")\n";
    }
  }
  return os.str();
}

class Pipeline {
 public:
  Pipeline(const LowerOptions& options, std::vector<PassSnapshot>& log)
      : options_(options), log_(log) {}

  // Runs one Stmt → Stmt pass over the function body and records it.
  template <typename Pass>
  void run(const char* name, PrimFunc& f, Pass pass) {
    Timer t;
    Stmt before = f.body;
    f.body = pass(f.body);
    double ms = t.milliseconds();
    std::string ir = !options_.record_ir      ? std::string()
                     : f.body.same_as(before) ? std::string("unchanged")
                                              : to_string(f);
    log_.push_back({name, std::move(ir), ms});
  }

  void record(const char* name, std::string ir, double ms) {
    log_.push_back({name, options_.record_ir ? std::move(ir) : std::string(), ms});
  }

 private:
  const LowerOptions& options_;
  std::vector<PassSnapshot>& log_;
};

}  // namespace

LoweredFunc lower(schedule::Schedule& sch, const std::vector<te::Tensor>& args,
                  const std::string& name, const LowerOptions& options) {
  LoweredFunc result;
  Pipeline pipeline(options, result.passes);

  Timer t;
  std::vector<StageInfo> stages = analyze_stages(sch);
  IterVarRanges ranges = infer_bound(stages);
  pipeline.record("infer_bound", print_ranges(stages, ranges), t.milliseconds());

  t.restart();
  Stmt nest = schedule_ops(stages, ranges);
  pipeline.record("schedule_ops", to_string(nest, 1), t.milliseconds());

  t.restart();
  result.func = storage_flatten(nest, args, sch, name);
  pipeline.record("storage_flatten", to_string(result.func), t.milliseconds());

  PrimFunc& f = result.func;
  pipeline.run("inject_prefetch", f, inject_prefetch);
  pipeline.run("simplify", f, [](const Stmt& s) { return arith::simplify(s); });
  pipeline.run("loop_partition", f, loop_partition);
  pipeline.run("vectorize_loop", f, vectorize_loop);
  // Where TVM runs it: after vectorising, before unrolling and barriers.
  pipeline.run("inject_virtual_thread", f, inject_virtual_thread);
  pipeline.run("unroll_loop", f, unroll_loop);
  pipeline.run("simplify", f, [](const Stmt& s) { return arith::simplify(s); });
  f.target = options.target;
  if (!is_gpu_target_kind(target_kind_name(options.target))) {
    pipeline.run("lower_parallel", f, [&](const Stmt& s) { return lower_parallel(s, f.params); });
  } else {
    // GPU kinds: no thread pool (a parallel loop is left for the verifier to
    // refuse), and barriers between the threads of a block that write shared
    // memory and those that read it.
    pipeline.run("inject_storage_sync", f, inject_storage_sync);
  }
  return result;
}

}  // namespace lathe::tir
