#include "tir/transform/stage_loops.h"

#include "support/error.h"

namespace lathe::tir {
namespace {

// Replaces reads of inlined ops by their bodies at the read's indices.
class Inliner : public te::ExprMutator {
 public:
  explicit Inliner(const std::vector<StageRef>& inlined) : inlined_(inlined) {}

 protected:
  Expr visit_producer_load(const te::ProducerLoadNode* n, const Expr& e) override {
    Expr base = te::ExprMutator::visit_producer_load(n, e);
    const auto* load = base.as<te::ProducerLoadNode>();
    for (const StageRef& s : inlined_) {
      if (!s->op.same_as(load->producer)) continue;
      const te::ComputeOpNode* c = s->op.as_compute();
      te::VarMap<Expr> map;
      for (size_t i = 0; i < c->axis.size(); ++i) map[c->axis[i].var()] = load->indices[i];
      // The producer may itself read inlined ops.
      return mutate(te::substitute(c->body, map));
    }
    return base;
  }

 private:
  const std::vector<StageRef>& inlined_;
};

bool reads_op(const Expr& body, const te::Operation& op) {
  bool found = false;
  te::visit_expr(body, [&](const Expr& e) {
    if (const auto* l = e.as<te::ProducerLoadNode>()) found |= l->producer.same_as(op);
  });
  return found;
}

}  // namespace

std::vector<StageInfo> analyze_stages(schedule::Schedule& sch) {
  std::vector<StageRef> inlined;
  for (const schedule::Stage& s : sch.stages())
    if (s.node().attach_type == schedule::AttachType::Inline) inlined.push_back(s.ref());
  std::vector<StageInfo> infos;
  for (const schedule::Stage& s : sch.stages()) {
    const te::ComputeOpNode* c = s.op().as_compute();
    if (!c || s.node().attach_type == schedule::AttachType::Inline) continue;
    infos.push_back({s.ref(), Inliner(inlined).mutate(c->body), {}});
  }
  for (StageInfo& producer : infos)
    for (const StageInfo& consumer : infos)
      if (consumer.stage != producer.stage && reads_op(consumer.body, producer.stage->op))
        producer.consumers.push_back(consumer.stage);
  return infos;
}

}  // namespace lathe::tir
