#include "tune/sketch_targets.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "schedule/schedule.h"
#include "te/expr_functor.h"

namespace lathe::tune::sketch {
namespace {

using OpSet = std::unordered_set<te::Operation, te::OperationHash, te::OperationEqual>;
using Readers = std::unordered_map<te::Operation, std::vector<te::Operation>, te::OperationHash,
                                   te::OperationEqual>;

bool has_reduction(const te::Operation& op) {
  const te::ComputeOpNode* c = op.as_compute();
  return c && !c->reduce_axis.empty();
}

// Whether every read of `producer` in `consumer` is at the consumer's own
// point, so a tile of the consumer needs exactly that tile of the producer.
bool reads_at_own_point(const te::ComputeOpNode& consumer, const te::Operation& producer) {
  bool matched = true;
  te::visit_expr(consumer.body, [&](const te::Expr& e) {
    const auto* load = e.as<te::ProducerLoadNode>();
    if (!load || !load->producer.same_as(producer)) return;
    if (load->indices.size() != consumer.axis.size()) {
      matched = false;
      return;
    }
    for (size_t d = 0; d < load->indices.size(); ++d)
      matched &= load->indices[d].same_as(consumer.axis[d].var());
  });
  return matched;
}

// Ansor's HasSingleElementwiseMatchedConsumer, through a chain of injective
// stages: follows the single reader of `reduction` while it is an injective
// stage of the same shape reading at its own point, up to a group output.
void find_fused_consumer(ReductionStage& r, const Readers& readers, const OpSet& outputs) {
  if (outputs.count(r.op)) return;  // an output stays at the root
  const std::vector<int64_t>& shape = r.op->shape;
  std::vector<te::Operation> path;
  for (te::Operation cur = r.op;;) {
    auto it = readers.find(cur);
    if (it == readers.end() || it->second.size() != 1) return;
    const te::Operation& next = it->second[0];
    const te::ComputeOpNode* c = next.as_compute();
    if (!c || !c->reduce_axis.empty() || c->shape != shape || !reads_at_own_point(*c, cur)) return;
    if (outputs.count(next)) {
      r.consumer = next;
      r.path.assign(path.rbegin(), path.rend());
      return;
    }
    path.push_back(next);
    cur = next;
  }
}

}  // namespace

const char* rule_name(TileRule rule) {
  switch (rule) {
    case TileRule::FuseConsumer:
      return "fuse-consumer";
    case TileRule::CacheWrite:
      return "cache-write";
    case TileRule::Plain:
      return "plain";
  }
  return "?";
}

SketchTargets find_sketch_targets(const std::vector<te::Tensor>& outputs) {
  std::vector<te::Operation> output_ops;
  OpSet output_set;
  for (const te::Tensor& t : outputs) {
    output_ops.push_back(t.op());
    output_set.insert(t.op());
  }
  // The schedule's stage list is the computation's ops in dependency order.
  schedule::Schedule sch(output_ops);
  std::vector<te::Operation> ops;
  for (const schedule::Stage& st : sch.stages()) ops.push_back(st.op());
  Readers readers;
  for (const te::Operation& op : ops) {
    if (!op.as_compute()) continue;
    for (const te::Tensor& in : op.input_tensors()) {
      std::vector<te::Operation>& r = readers[in.op()];
      if (std::none_of(r.begin(), r.end(), [&](const te::Operation& o) { return o.same_as(op); }))
        r.push_back(op);
    }
  }

  SketchTargets targets;
  OpSet claimed;  // one output carries the tile loops of one reduction only
  for (const te::Operation& op : ops) {
    const te::ComputeOpNode* c = op.as_compute();
    if (!c) continue;
    if (!has_reduction(op)) {
      if (output_set.count(op)) targets.elementwise_outputs.push_back(op);
      continue;
    }
    ReductionStage r;
    r.op = op;
    if (c->axis.empty()) {
      // No data axis: no loop to carry a tile, nothing to run in parallel.
      r.rules = {TileRule::Plain};
    } else {
      find_fused_consumer(r, readers, output_set);
      if (r.consumer.defined() && claimed.insert(r.consumer).second) {
        r.rules = {TileRule::FuseConsumer, TileRule::CacheWrite};
      } else {
        r.consumer = te::Operation();
        r.path.clear();
        r.rules = {TileRule::CacheWrite, TileRule::Plain};
      }
    }
    targets.reductions.push_back(std::move(r));
  }
  return targets;
}

}  // namespace lathe::tune::sketch
