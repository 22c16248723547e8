#include "tune/sketch_rules.h"

#include <string>
#include <unordered_set>

#include "support/error.h"

namespace lathe::tune::sketch {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;
using Loops = std::vector<IterVar>;
using OpSet = std::unordered_set<te::Operation, te::OperationHash, te::OperationEqual>;

// Wider vectors than this make LLVM juggle huge vector types for no gain; the
// space keeps innermost tiles within it anyway.
constexpr int64_t kMaxVectorLanes = 64;

int64_t product(const TileSizes& sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

Loops concat(std::initializer_list<const Loops*> parts) {
  Loops all;
  for (const Loops* p : parts) all.insert(all.end(), p->begin(), p->end());
  return all;
}

std::string level_name(const IterVar& axis, size_t level) {
  return axis.name() + "_" + std::to_string(level);
}

// Splits `axis` into one loop per size, outermost first, named <axis>_<level>
// from `first_level` on. The sizes multiply to the axis's range (its extent,
// or its region at an attach point), so no split leaves a remainder.
Loops split_levels(Stage st, const IterVar& axis, const TileSizes& sizes, size_t first_level) {
  Loops loops;
  int64_t inner = product(sizes);
  IterVar rest = axis;
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    inner /= sizes[l];
    const size_t level = first_level + l;
    const bool last = l + 2 == sizes.size();
    auto [outer, in] =
        st.split(rest, inner, level_name(axis, level),
                 last ? level_name(axis, level + 1) : axis.name() + "_in" + std::to_string(level));
    loops.push_back(outer);
    rest = in;
  }
  loops.push_back(rest);
  return loops;
}

// Fuses loops adjacent in loop order into one and runs it in parallel.
IterVar fuse_parallel(Stage st, const Loops& loops) {
  IterVar fused = loops.at(0);
  for (size_t i = 1; i < loops.size(); ++i)
    fused = st.fuse(fused, loops[i], loops[0].name() + "_" + loops[i].name() + "_fused");
  st.parallel(fused);
  return fused;
}

void vectorize_lanes(Stage st, const IterVar& loop, int64_t extent) {
  if (extent >= 2 && extent <= kMaxVectorLanes) st.vectorize(loop);
}

// Multi-level tiling at the root: S0 S1 R0 S2 R1 S3.
void tile_at_root(Stage st, const std::vector<TileSizes>& spatial,
                  const std::vector<TileSizes>& reduce, int parallel_levels) {
  Loops s[4], r[2];
  const std::vector<IterVar> axes = st.axis(), reduce_axes = st.reduce_axis();
  for (size_t i = 0; i < axes.size(); ++i) {
    Loops loops = split_levels(st, axes[i], spatial.at(i), 0);
    for (size_t l = 0; l < 4; ++l) s[l].push_back(loops.at(l));
  }
  for (size_t i = 0; i < reduce_axes.size(); ++i) {
    Loops loops = split_levels(st, reduce_axes[i], reduce.at(i), 0);
    for (size_t l = 0; l < 2; ++l) r[l].push_back(loops.at(l));
  }
  st.reorder(concat({&s[0], &s[1], &r[0], &s[2], &r[1], &s[3]}));
  if (axes.empty()) return;
  fuse_parallel(st, parallel_levels >= 2 ? concat({&s[0], &s[1]}) : s[0]);
  vectorize_lanes(st, s[3].back(), spatial.back()[3]);
}

// The stage carrying the tile loops (the fused consumer or the copy-out):
// S0 and S1 of every axis, then each axis's S2*S3 (the innermost axis's split
// into S2 and S3, for vectors). Returns the loop the accumulation attaches at.
IterVar tile_outer(Stage st, const std::vector<TileSizes>& spatial, int parallel_levels) {
  const std::vector<IterVar> axes = st.axis();
  Loops s0, s1, rest;
  for (size_t i = 0; i < axes.size(); ++i) {
    const TileSizes& t = spatial.at(i);
    TileSizes sizes = i + 1 < axes.size() ? TileSizes{t[0], t[1], t[2] * t[3]} : t;
    Loops loops = split_levels(st, axes[i], sizes, 0);
    s0.push_back(loops[0]);
    s1.push_back(loops[1]);
    rest.insert(rest.end(), loops.begin() + 2, loops.end());
  }
  st.reorder(concat({&s0, &s1, &rest}));
  IterVar fused = fuse_parallel(st, parallel_levels >= 2 ? concat({&s0, &s1}) : s0);
  vectorize_lanes(st, rest.back(), spatial.back()[3]);
  return parallel_levels >= 2 ? fused : s1.back();
}

// The accumulation inside one tile, where each spatial axis spans S2*S3:
// R0 S2 R1 S3, the S3 accumulators of the innermost axis in vectors.
void tile_inner(Stage st, const std::vector<TileSizes>& spatial,
                const std::vector<TileSizes>& reduce) {
  Loops s2, s3, r0, r1;
  const std::vector<IterVar> axes = st.axis(), reduce_axes = st.reduce_axis();
  for (size_t i = 0; i < axes.size(); ++i) {
    Loops loops = split_levels(st, axes[i], {spatial.at(i)[2], spatial.at(i)[3]}, 2);
    s2.push_back(loops[0]);
    s3.push_back(loops[1]);
  }
  for (size_t i = 0; i < reduce_axes.size(); ++i) {
    Loops loops = split_levels(st, reduce_axes[i], reduce.at(i), 0);
    r0.push_back(loops[0]);
    r1.push_back(loops[1]);
  }
  st.reorder(concat({&r0, &s2, &r1, &s3}));
  vectorize_lanes(st, s3.back(), spatial.back()[3]);
}

// The stages between a reduction and its fused consumer, consumers first:
// each is attached at `at` before its producer, and computes one tile, whose
// innermost axis spans S2*S3 of `last`, in S3-lane vectors.
void attach_path(Schedule& sch, const std::vector<te::Operation>& path, Stage loops,
                 const IterVar& at, const TileSizes& last) {
  for (const te::Operation& op : path) {
    Stage st = sch.stage_of(op);
    st.compute_at(loops, at);
    Loops l = split_levels(st, st.axis().back(), {last[2], last[3]}, 2);
    vectorize_lanes(st, l[1], last[3]);
  }
}

}  // namespace

void inline_injective(Schedule& sch, const SketchTargets& targets,
                      const std::vector<TileRule>& rules) {
  // compute_at needs the tile loops' stage to read the reduction directly or
  // through attached stages, so a fused consumer's path stays stages.
  OpSet keep;
  for (size_t i = 0; i < targets.reductions.size(); ++i)
    if (rules.at(i) == TileRule::FuseConsumer)
      keep.insert(targets.reductions[i].path.begin(), targets.reductions[i].path.end());
  for (Stage st : sch.stages()) {
    const te::ComputeOpNode* c = st.op().as_compute();
    if (!c || st.node().is_output || !c->reduce_axis.empty() || keep.count(st.node().origin_op))
      continue;
    st.compute_inline();
  }
}

void tile_reduction(Schedule& sch, const ReductionStage& stage, TileRule rule,
                    const std::vector<TileSizes>& spatial, const std::vector<TileSizes>& reduce,
                    int parallel_levels) {
  if (rule == TileRule::Plain)
    return tile_at_root(sch.stage_of(stage.op), spatial, reduce, parallel_levels);
  Stage loops, acc;
  if (rule == TileRule::FuseConsumer) {
    LATHE_CHECK(stage.consumer.defined(), "fuse-consumer: '", stage.op->name,
                "' has no elementwise consumer");
    loops = sch.stage_of(stage.consumer);
    acc = sch.stage_of(stage.op);
  } else {
    te::Tensor cache = sch.cache_write(te::Tensor(stage.op), "local");
    loops = sch.stage_of(stage.op);  // now the copy out of the cache
    acc = sch[cache];
  }
  IterVar at = tile_outer(loops, spatial, parallel_levels);
  if (rule == TileRule::FuseConsumer) attach_path(sch, stage.path, loops, at, spatial.back());
  acc.compute_at(loops, at);
  tile_inner(acc, spatial, reduce);
}

void tile_elementwise(Schedule& sch, const te::Operation& op, const TileSizes& inner,
                      int parallel_levels) {
  Stage st = sch.stage_of(op);
  std::vector<IterVar> axes = st.axis();
  if (axes.empty()) return;
  LATHE_CHECK(inner.size() == 2, "elementwise tile of '", op->name, "' needs two sizes");
  Loops loops = split_levels(st, axes.back(), inner, 0);
  Loops outer(axes.begin(), axes.end() - 1);
  if (outer.empty() || parallel_levels >= 2) outer.push_back(loops[0]);
  fuse_parallel(st, outer);
  vectorize_lanes(st, loops[1], inner[1]);
}

void annotate_auto_unroll(Schedule& sch, int64_t max_step) {
  if (max_step <= 0) return;
  for (Stage st : sch.stages()) {
    if (!st.op().as_compute() || st.node().attach_type != schedule::AttachType::Root ||
        st.node().leaf_iter_vars.empty())
      continue;
    st.pragma(st.node().leaf_iter_vars[0], "auto_unroll_max_step", te::make_int(max_step));
  }
}

}  // namespace lathe::tune::sketch
