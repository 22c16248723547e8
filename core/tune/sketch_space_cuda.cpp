#include "tune/sketch_space_cuda.h"

#include <algorithm>
#include <memory>

#include "support/error.h"
#include "te/expr_functor.h"
#include "tir/arith/eval_region.h"
#include "topi/nn.h"
#include "tune/sketch_rules_cuda.h"
#include "tune/sketch_targets.h"

namespace lathe::tune {
namespace {

enum class GpuRule : int64_t { MultiLevelTiling, CrossThreadReduction, Elementwise };

// A thread's register tiles (S1 x S3 x S4 over all axes: one S3 x S4 tile per
// virtual thread) at most this many values.
constexpr int64_t kMaxRegisterTile = 64;
// Virtual threads a thread at most (Ansor's max_vthread_extent for cuda).
constexpr int64_t kMaxVirtualThreads = 8;
constexpr int64_t kMaxInnerTile = 16;
// Threads the default tiling aims for.
constexpr int64_t kDefaultThreads = 128;
// Fewer terms than this an output: one thread per output does better.
constexpr int64_t kMinCrossThreadTerms = 32;
const std::vector<int64_t> kThreadsK = {32, 64, 128, 256, 512};
const std::vector<int64_t> kOutputsPerBlock = {1, 2, 4, 8, 16, 32};
const std::vector<int64_t> kThreads = {32, 64, 128, 256, 512, 1024};
const std::vector<int64_t> kPerThread = {1, 2, 4, 8};

// What one step of R0 fetches of an operand along one of its axes: with
// each variable v of the reduction (spatial axes, then reduce axes) ranging
// over a tile of t_v, 1 + sum(coefs[v] * (t_v - 1)), at most `full`.
struct FetchedAxis {
  int64_t full = 1;
  std::vector<int64_t> coefs;  // empty: not linear in them, the whole axis
};
struct Operand {
  int64_t bytes = 4;
  std::vector<FetchedAxis> axes;
};

struct Plan {
  te::Operation reduction;  // undefined for an elementwise group
  std::vector<GpuRule> sketches;
  std::vector<topi::Knob> knobs;
  std::vector<size_t> spatial, reduce;  // knob indices, multi-level tiling
  int64_t max_threads = 1024;
  int64_t min_threads = 32;  // a warp, or every output element where fewer
  int64_t outputs = 1;       // output elements
  int64_t terms = 1;         // reduce terms an output element
  int64_t max_shared = 49152;
  std::vector<Operand> operands;  // multi-level tiling's shared fetches
};

int64_t const_extent(const te::Range& r) {
  const int64_t* e = r.extent.defined() ? te::as_const_int(r.extent) : nullptr;
  return e ? *e : -1;
}

// The footprint model of every operand of `reduction` (bound inference's
// region of a cache_read at R0, found by probing eval_region with tiles of 1
// and 2 on each variable; an index that is not linear in them counts whole).
std::vector<Operand> fetch_model(const te::Operation& reduction) {
  const te::ComputeOpNode* c = reduction.as_compute();
  std::vector<te::Var> vars;
  for (const te::IterVar& v : c->axis) vars.push_back(v.var());
  for (const te::IterVar& v : c->reduce_axis) vars.push_back(v.var());
  auto dom = [&](int64_t widen) {  // every variable over [0, 1), or the one `widen` over [0, 2)
    te::VarMap<te::Range> d;
    for (size_t i = 0; i < vars.size(); ++i)
      d[vars[i]] = te::Range::from_extent(int64_t(i) == widen || widen == -2 ? 2 : 1);
    return d;
  };
  std::vector<Operand> operands;
  for (const te::Tensor& t : reduction.input_tensors()) {
    Operand o;
    o.bytes = t.dtype().bytes();
    std::vector<te::Expr> indices;
    te::visit_expr(c->body, [&](const te::Expr& e) {
      const auto* load = e.as<te::ProducerLoadNode>();
      if (load && load->producer.same_as(t.op()) && indices.empty()) indices = load->indices;
    });
    for (size_t d = 0; d < t.shape().size(); ++d) {
      FetchedAxis axis;
      axis.full = t.shape()[d];
      if (d < indices.size()) {
        const int64_t base = const_extent(arith::eval_region(indices[d], dom(-1)));
        int64_t sum = 0;
        for (size_t v = 0; v < vars.size() && base >= 1; ++v) {
          const int64_t e = const_extent(arith::eval_region(indices[d], dom(int64_t(v))));
          axis.coefs.push_back(e < base ? -1 : e - base);
          sum += axis.coefs.back();
        }
        // Linear: widening all of them at once adds up the parts.
        const int64_t all = const_extent(arith::eval_region(indices[d], dom(-2)));
        const bool linear =
            base == 1 && all == base + sum &&
            std::none_of(axis.coefs.begin(), axis.coefs.end(), [](int64_t k) { return k < 0; });
        if (!linear) axis.coefs.clear();
      }
      o.axes.push_back(std::move(axis));
    }
    operands.push_back(std::move(o));
  }
  return operands;
}

int64_t extent_of(const te::IterVar& v) {
  const int64_t* e = te::as_const_int(v->dom.extent);
  LATHE_CHECK(e, "sketch: axis '", v.name(), "' has no constant extent");
  return *e;
}

size_t knob_index(const std::vector<topi::Knob>& knobs, const std::string& name) {
  for (size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i].name == name) return i;
  fail(str("sketch: no knob '", name, "'"));
}

const std::vector<int64_t>& value(const Plan& plan, const topi::Config& c, size_t k) {
  return plan.knobs[k].options.at(static_cast<size_t>(c.at(k)));
}

int64_t single(const Plan& plan, const topi::Config& c, const std::string& name) {
  return value(plan, c, knob_index(plan.knobs, name))[0];
}

bool keeps(const Plan& plan, const topi::Config& c) {
  switch (static_cast<GpuRule>(single(plan, c, "sketch"))) {
    case GpuRule::MultiLevelTiling: {
      int64_t threads = 1, vthreads = 1, tile = 1;
      for (size_t k : plan.spatial) {
        const std::vector<int64_t>& t = value(plan, c, k);
        vthreads *= t[1];
        threads *= t[2];
        tile *= t[1] * t[3] * t[4];
      }
      if (threads < plan.min_threads || threads > plan.max_threads || tile > kMaxRegisterTile ||
          vthreads > kMaxVirtualThreads)
        return false;
      // The step's tiles in shared memory, as bound inference will size them.
      std::vector<int64_t> extents;
      for (size_t k : plan.spatial) {
        const std::vector<int64_t>& t = value(plan, c, k);
        extents.push_back(t[1] * t[2] * t[3] * t[4]);
      }
      for (size_t k : plan.reduce) {
        const std::vector<int64_t>& t = value(plan, c, k);
        extents.push_back(t[1] * t[2]);
      }
      int64_t bytes = 0;
      for (const Operand& o : plan.operands) {
        int64_t n = o.bytes;
        for (const FetchedAxis& a : o.axes) {
          int64_t e = 1;
          for (size_t v = 0; v < a.coefs.size(); ++v) e += a.coefs[v] * (extents[v] - 1);
          n *= a.coefs.empty() ? a.full : std::min(e, a.full);
        }
        bytes += n;
      }
      return bytes <= plan.max_shared;
    }
    case GpuRule::CrossThreadReduction: {
      const int64_t k = single(plan, c, "threads_k"), per = single(plan, c, "outputs_per_block");
      // A guarded output loop would leave some threads out of the
      // reduction; a split by more threads than terms leaves a width that
      // is not a power of two.
      return k * per <= plan.max_threads && plan.outputs % per == 0 && k <= plan.terms;
    }
    case GpuRule::Elementwise:
      return single(plan, c, "threads") <= plan.max_threads;
  }
  return false;
}

void apply(const Plan& plan, schedule::Schedule& sch, const topi::Config& c) {
  LATHE_CHECK(c.size() == plan.knobs.size(), "sketch: a config of ", c.size(), " values for ",
              plan.knobs.size(), " knobs");
  const GpuRule rule = static_cast<GpuRule>(single(plan, c, "sketch"));
  sketch::inline_all_but(sch, plan.reduction);
  switch (rule) {
    case GpuRule::MultiLevelTiling: {
      sketch::GpuTiles spatial, reduce;
      for (size_t k : plan.spatial) spatial.push_back(value(plan, c, k));
      for (size_t k : plan.reduce) reduce.push_back(value(plan, c, k));
      sketch::tile_reduction_gpu(sch, plan.reduction, spatial, reduce,
                                 single(plan, c, "unroll") != 0);
      break;
    }
    case GpuRule::CrossThreadReduction:
      sketch::cross_thread_reduction(sch, plan.reduction, single(plan, c, "threads_k"),
                                     single(plan, c, "outputs_per_block"));
      break;
    case GpuRule::Elementwise:
      sketch::spread_elementwise(sch, single(plan, c, "threads"), single(plan, c, "per_thread"));
      break;
  }
}

// Default S0 S1 S2 S3 S4: threads from the innermost axes up to
// kDefaultThreads, a register tile of up to 2 on each of the two innermost,
// no virtual threads (the untuned point: tuning tries them).
std::vector<std::vector<int64_t>> default_tiles(const std::vector<int64_t>& shape) {
  std::vector<std::vector<int64_t>> tiles(shape.size());
  int64_t budget = kDefaultThreads;
  for (size_t i = shape.size(); i-- > 0;) {
    int64_t rest = shape[i];
    const int64_t s3 = i + 2 >= shape.size() ? topi::largest_divisor(rest, 2) : 1;
    rest /= s3;
    const int64_t t = topi::largest_divisor(rest, budget);
    budget /= t;
    tiles[i] = {rest / t, 1, t, 1, s3};
  }
  return tiles;
}

void set_option(topi::Config& config, const topi::Knob& knob, size_t k,
                const std::vector<int64_t>& option) {
  for (size_t o = 0; o < knob.options.size(); ++o)
    if (knob.options[o] == option) config[k] = static_cast<int>(o);
}

}  // namespace

topi::SearchSpace gpu_sketch_search_space(const std::vector<te::Tensor>& outputs,
                                          const codegen::Target& target) {
  if (outputs.size() != 1)
    throw UnsupportedError(
        str("GPU sketches schedule groups of one output, this one has ", outputs.size()));
  const sketch::SketchTargets found = sketch::find_sketch_targets(outputs);
  if (found.reductions.size() > 1)
    throw UnsupportedError(str("GPU sketches tile one reduction a group, this one has ",
                               found.reductions.size(), " (its cuda template schedules it)"));
  auto plan = std::make_shared<Plan>();
  plan->max_threads = target.max_threads_per_block;
  plan->max_shared = target.max_shared_memory_per_block;
  const te::Tensor& out = outputs[0];
  if (out.shape().empty()) throw UnsupportedError("GPU sketches: the output is a scalar");
  for (int64_t d : out.shape()) plan->outputs *= d;
  plan->min_threads = std::min<int64_t>(32, plan->outputs);

  std::vector<topi::Knob>& knobs = plan->knobs;
  topi::Config config;
  auto add = [&](topi::Knob knob, const std::vector<int64_t>& default_option) {
    knobs.push_back(std::move(knob));
    config.push_back(0);
    set_option(config, knobs.back(), knobs.size() - 1, default_option);
    return knobs.size() - 1;
  };

  if (found.reductions.empty()) {
    plan->sketches = {GpuRule::Elementwise};
  } else {
    const sketch::ReductionStage& r = found.reductions[0];
    const te::ComputeOpNode* c = r.op.as_compute();
    if (c->axis.empty())
      throw UnsupportedError("GPU sketches: a reduction to a scalar (no data axis to tile)");
    if (!r.op.same_as(out.op()) && !r.consumer.defined())
      throw UnsupportedError(str("GPU sketches: the output '", out.op()->name,
                                 "' does not read the reduction '", r.op->name,
                                 "' elementwise at its own point"));
    plan->reduction = r.op;
    plan->operands = fetch_model(r.op);
    for (const te::IterVar& k : c->reduce_axis) plan->terms *= extent_of(k);
    // Data reuse (an operand read by several outputs): multi-level tiling,
    // preferred where the outputs fill the GPU; a long reduction over few
    // outputs: cross-thread, preferred then.
    const bool reuse = r.op.input_tensors().size() >= 2;
    const bool cross = plan->terms >= kMinCrossThreadTerms;
    const bool few_outputs = plan->outputs < 16 * kDefaultThreads;
    if (cross && few_outputs) plan->sketches.push_back(GpuRule::CrossThreadReduction);
    if (reuse) plan->sketches.push_back(GpuRule::MultiLevelTiling);
    if (cross && !few_outputs) plan->sketches.push_back(GpuRule::CrossThreadReduction);
    if (plan->sketches.empty())
      throw UnsupportedError(str("GPU sketches: the reduction '", r.op->name, "' has ", plan->terms,
                                 " terms an output and one operand"));
  }
  std::vector<int64_t> ids;
  for (GpuRule rule : plan->sketches) ids.push_back(static_cast<int64_t>(rule));
  add(topi::choice_knob("sketch", ids), {ids[0]});

  if (plan->reduction.defined()) {
    const te::ComputeOpNode* c = plan->reduction.as_compute();
    const std::vector<std::vector<int64_t>> tiles = default_tiles(c->shape);
    for (size_t i = 0; i < c->axis.size(); ++i)
      plan->spatial.push_back(add(topi::split_knob(plan->reduction->name + "." + c->axis[i].name(),
                                                   c->shape[i], 5, kMaxInnerTile),
                                  tiles[i]));
    for (size_t i = 0; i < c->reduce_axis.size(); ++i) {
      const int64_t extent = extent_of(c->reduce_axis[i]);
      // The first reduce axis (k, input channels) in steps of up to 8, the
      // others (a kernel window) whole each step.
      const std::vector<int64_t> tile =
          i == 0 ? std::vector<int64_t>{extent / topi::largest_divisor(extent, 8),
                                        topi::largest_divisor(extent, 8), 1}
                 : std::vector<int64_t>{1, extent, 1};
      plan->reduce.push_back(
          add(topi::split_knob(plan->reduction->name + "." + c->reduce_axis[i].name(), extent, 3),
              tile));
    }
    add(topi::choice_knob("unroll", {0, 1}), {1});
    int64_t threads_k = kThreadsK.front();
    while (threads_k * 2 <= std::min<int64_t>(plan->terms, 256)) threads_k *= 2;
    add(topi::choice_knob("threads_k", kThreadsK), {threads_k});
    int64_t per_block = 1;
    while (per_block * 2 <= 8 && plan->outputs % (per_block * 2) == 0) per_block *= 2;
    add(topi::choice_knob("outputs_per_block", kOutputsPerBlock), {per_block});
  }
  add(topi::choice_knob("threads", kThreads), {256});
  add(topi::choice_knob("per_thread", kPerThread), {1});

  topi::SearchSpace space;
  space.name = "sketch.cuda";
  space.knobs = knobs;
  space.default_config = config;
  space.constraint = [plan](const topi::Config& c) { return keeps(*plan, c); };
  space.apply = [plan](schedule::Schedule& sch, const topi::Config& c) { apply(*plan, sch, c); };
  // The preferred sketch's default may break the constraint (a thread count
  // of an odd shape); the first sketch's default is then any point it keeps.
  if (!space.valid(space.default_config)) {
    for (size_t s = 0; s < plan->sketches.size() && !space.valid(space.default_config); ++s)
      space.default_config[0] = static_cast<int>(s);
  }
  if (!space.valid(space.default_config))
    throw UnsupportedError(str("GPU sketches: no default point for '", out.op()->name, "' (",
                               space.describe(space.default_config), ")"));
  return space;
}

}  // namespace lathe::tune
