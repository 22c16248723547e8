// The cuda template of reductions, softmax and normalisations
// (schedule_cuda_templates.h), after TVM's topi/cuda/reduction.py and
// softmax.py.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "schedule/schedule.h"
#include "support/error.h"
#include "topi/group_schedule.h"
#include "topi/schedule_cuda.h"
#include "topi/schedule_cuda_templates.h"

namespace lathe::topi {

namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

int64_t product(const std::vector<int64_t>& dims, size_t from = 0) {
  int64_t n = 1;
  for (size_t i = from; i < dims.size(); ++i) n *= dims[i];
  return n;
}

int64_t reduce_extent(const te::ComputeOpNode& c) {
  int64_t n = 1;
  for (const IterVar& k : c.reduce_axis) n *= *te::as_const_int(k->dom.extent);
  return n;
}

// The output's shape as rows x columns: the leading `row_axes` axes index a
// row, the rest its columns (the elements one row's reductions feed).
struct RowSplit {
  bool output_reduces = false;  // the output is the reduction: a row per output
  size_t row_axes = 0;
};

// How the group's rows lie, or nothing when they do not line up with its
// reductions (the default template then schedules it).
std::optional<RowSplit> split_rows(const te::Tensor& out, const std::vector<int64_t>& reduced,
                                   int64_t longest) {
  if (const te::ComputeOpNode* c = out.op().as_compute(); c && !c->reduce_axis.empty())
    return RowSplit{true, out.shape().size()};
  const std::vector<int64_t>& shape = out.shape();
  // An epilogue of the reduction (a mean's division): one row per output.
  const int64_t elements = product(shape);
  if (std::all_of(reduced.begin(), reduced.end(), [&](int64_t n) { return n == elements; }))
    return RowSplit{false, shape.size()};
  // Softmax, layer norm: a row's columns are the trailing axes the
  // reductions run over.
  for (size_t p = shape.size(); p-- > 0;)
    if (product(shape, p) == longest) return RowSplit{false, p};
  return std::nullopt;
}

IterVar fuse_all(Stage& stage, const std::vector<IterVar>& axes) {
  IterVar fused = axes[0];
  for (size_t i = 1; i < axes.size(); ++i) fused = stage.fuse(fused, axes[i]);
  return fused;
}

// The reduce axes of `stage` fused and split by `threads`, the inner part
// bound to threadIdx.x: a cross-thread reduction. Returns the serial outer
// part, the loop each thread runs over its share of the terms.
IterVar reduce_across_threads(Stage& stage, int64_t threads) {
  const IterVar k = fuse_all(stage, stage.reduce_axis());
  auto [ko, ki] = stage.split(k, threads);
  stage.bind(ki, "threadIdx.x");
  return ko;
}

// The largest power of two threads, from 32 up to 1024, that is at most
// `terms`: every reduction of a block runs over all its threads.
int64_t threads_for(int64_t terms) {
  int64_t most = 32;
  while (most * 2 <= terms && most < 1024) most *= 2;
  return most;
}

// Both schedules' space: knob `threads`, at most `most` threads, TVM's
// default of 256 (its max_num_threads is the block), fewer for short terms.
SearchSpace threads_space(int64_t most) {
  SearchSpace space;
  space.name = "reduce.cuda";
  space.knobs.push_back(choice_knob("threads", {32, 64, 128, 256, 512, 1024}));
  space.default_config = require_config(space, {{"threads", {std::min<int64_t>(most, 256)}}});
  return space;
}

// Inlines the group's injective stages (recomputed where read: exp(x - max)
// of softmax); returns its output and its other reductions, producers first.
Stage inline_injective(Schedule& sch, std::vector<Stage>& reductions) {
  Stage output;
  for (Stage st : sch.stages()) {
    const te::ComputeOpNode* c = st.op().as_compute();
    if (!c) continue;
    if (st.node().is_output)
      output = st;
    else if (c->reduce_axis.empty())
      st.compute_inline();
    else
      reductions.push_back(st);
  }
  return output;
}

// A scalar output (a loss's mean, a sum over everything) in one block. Its
// scalar reductions run across the block's threads; a reduction with more
// elements (SoftmaxCrossEntropyLoss's per-sample max and sum over classes)
// is computed by each thread for the term it adds, inside the serial loop of
// the one scalar reduction it feeds. Nothing when the group has none of
// that shape (the default template then schedules it).
std::optional<SearchSpace> scalar_template(const te::Tensor& out) {
  Schedule probe({out.op()});
  OpSet scalar_reductions;
  int64_t shortest = 0;
  for (Stage st : probe.stages()) {
    const te::ComputeOpNode* c = st.op().as_compute();
    if (!c || c->reduce_axis.empty() || product(st.op()->shape) != 1) continue;
    scalar_reductions.insert(st.op());
    shortest = shortest ? std::min(shortest, reduce_extent(*c)) : reduce_extent(*c);
  }
  if (shortest < 32) return std::nullopt;
  // Each inner reduction must reach exactly one scalar reduction, and the
  // output only through one.
  std::unordered_map<te::Operation, te::Operation, te::OperationHash, te::OperationEqual> feeds;
  std::vector<Stage> stages = probe.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    if (!it->op().as_compute() || scalar_reductions.count(it->op()) || it->node().is_output)
      continue;
    std::optional<te::Operation> target;
    bool one = true;
    for (const Stage& reader : stages)
      for (const te::Tensor& input : reader.op().input_tensors()) {
        if (!input.op().same_as(it->op())) continue;
        te::Operation reached = reader.op();
        if (!scalar_reductions.count(reached)) {
          auto f = feeds.find(reached);
          if (f == feeds.end()) {
            one = false;  // read by the output, or by a stage feeding two sums
            continue;
          }
          reached = f->second;
        }
        if (target && !target->same_as(reached)) one = false;
        target = reached;
      }
    if (!one || !target) {
      if (it->op().as_compute()->reduce_axis.empty()) continue;  // inlined where read
      return std::nullopt;
    }
    feeds.emplace(it->op(), *target);
  }

  const int64_t most = threads_for(shortest);
  SearchSpace space = threads_space(most);
  space.apply = [knobs = space.knobs, most, feeds](Schedule& sch, const Config& config) {
    const int64_t threads = std::min(knob_int(knobs, config, "threads"), most);
    std::vector<Stage> reductions, scalars, nested;
    Stage output = inline_injective(sch, reductions);
    for (const Stage& st : reductions)
      (product(st.op()->shape) == 1 ? scalars : nested).push_back(st);
    // One block, around the new loop of extent 1 that fuse() of no axes
    // makes; an output that is not itself the reduction is stored by one
    // thread.
    IterVar block = output.fuse(std::vector<IterVar>{});
    const bool output_reduces = !output.reduce_axis().empty();
    if (!output_reduces) {
      auto [blocks, one] = output.split(block, 1);
      output.bind(one, "threadIdx.x");
      block = blocks;
    }
    output.bind(block, "blockIdx.x");
    // Each scalar reduction's thread loop outside its serial loop, as the
    // code runs them, so that a stage attached at the serial loop holds one
    // term's elements.
    std::unordered_map<te::Operation, IterVar, te::OperationHash, te::OperationEqual> serial;
    auto across = [&](Stage& st) {
      const IterVar ko = reduce_across_threads(st, threads);
      st.reorder({st.node().leaf_iter_vars.back(), ko});
      serial.emplace(st.op(), ko);
    };
    for (auto it = scalars.rbegin(); it != scalars.rend(); ++it) {
      it->compute_at(output, block);
      across(*it);
    }
    if (output_reduces) across(output);
    for (auto it = nested.rbegin(); it != nested.rend(); ++it) {
      const te::Operation& target = feeds.at(it->op());
      it->compute_at(sch.stage_of(target), serial.at(target));
    }
  };
  return space;
}

}  // namespace

SearchSpace cuda_reduce_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                 const VectorUnit& vector_unit) {
  if (outputs.size() != 1) return cuda_default_template(anchor, outputs, vector_unit);
  const te::Tensor& out = outputs[0];
  int64_t longest = 0, shortest = 0;  // terms per reduction
  std::vector<int64_t> reduced;       // each reduction's element count
  Schedule probe({out.op()});
  for (Stage st : probe.stages())
    if (const te::ComputeOpNode* c = st.op().as_compute(); c && !c->reduce_axis.empty()) {
      longest = std::max(longest, reduce_extent(*c));
      shortest = shortest ? std::min(shortest, reduce_extent(*c)) : reduce_extent(*c);
      reduced.push_back(product(st.op()->shape));
    }
  if (out.shape().empty())
    if (std::optional<SearchSpace> scalar = scalar_template(out)) return *scalar;
  const std::optional<RowSplit> rows = split_rows(out, reduced, longest);
  // Short reductions leave most threads of a warp idle: one thread per
  // output does them better.
  if (shortest < 32 || !rows || out.shape().empty())
    return cuda_default_template(anchor, outputs, vector_unit);

  // Every reduction of the group runs on all the block's threads (a
  // cross-thread reduction needs each of them), so the threads are at most
  // the shortest reduction's terms, a power of two.
  const int64_t most = threads_for(shortest);
  SearchSpace space = threads_space(most);
  space.apply = [knobs = space.knobs, split = *rows, most](Schedule& sch, const Config& config) {
    const int64_t threads = std::min(knob_int(knobs, config, "threads"), most);
    std::vector<Stage> reductions;
    Stage output = inline_injective(sch, reductions);
    // Rows to blocks; where the output is not the reduction, a row's columns
    // over the same threads, which all hold the row's reductions by then.
    // The row and column axes are fused apart, so that a row's index gives
    // each reduction's element exactly (one fused loop split by the row's
    // length bounded them loosely: ViT's 197-column softmax computed 788
    // rows' reductions a block).
    const std::vector<IterVar> axes = output.axis();
    const size_t p = split.row_axes;
    IterVar row;
    if (p == 0) {  // one row: the whole output
      auto [one, columns] = output.split(fuse_all(output, axes), product(output.op()->shape));
      auto [co, ci] = output.split(columns, threads);
      output.bind(ci, "threadIdx.x");
      row = one;
    } else {
      row = fuse_all(output, std::vector<IterVar>(axes.begin(), axes.begin() + long(p)));
      if (p < axes.size()) {
        const IterVar column =
            fuse_all(output, std::vector<IterVar>(axes.begin() + long(p), axes.end()));
        auto [co, ci] = output.split(column, threads);
        output.bind(ci, "threadIdx.x");
      } else if (!split.output_reduces) {
        // An epilogue of the row's reduction: one thread stores it.
        auto [rows, one] = output.split(row, 1);
        output.bind(one, "threadIdx.x");
        row = rows;
      }
    }
    output.bind(row, "blockIdx.x");
    // Consumers first: each is attached by the time its producer asks.
    for (auto it = reductions.rbegin(); it != reductions.rend(); ++it) {
      it->compute_at(output, row);
      reduce_across_threads(*it, threads);
    }
    if (split.output_reduces) reduce_across_threads(output, threads);
  };
  return space;
}

}  // namespace lathe::topi
