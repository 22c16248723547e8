#include "tir/transform/stage_loops.h"

#include "support/error.h"

namespace lathe::tir {
namespace {

using schedule::FuseRelation;
using schedule::SplitRelation;

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

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
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

int64_t const_extent(const IterVarRanges& ranges, const IterVar& iv) {
  auto it = ranges.find(iv);
  LATHE_CHECK(it != ranges.end(), "no range inferred for axis '", iv.name(), "'");
  const int64_t* e = te::as_const_int(it->second.extent);
  LATHE_CHECK(e, "axis '", iv.name(), "' has no constant extent");
  return *e;
}

void derive_leaf_ranges(const StageRef& stage, IterVarRanges& ranges) {
  for (const auto& rel : stage->relations) {
    if (const auto* s = std::get_if<SplitRelation>(&rel)) {
      int64_t parent = const_extent(ranges, s->parent);
      int64_t inner = s->factor ? std::min(s->factor, parent) : ceil_div(parent, s->nparts);
      int64_t outer = ceil_div(parent, std::max<int64_t>(inner, 1));
      ranges[s->outer] = te::Range::from_extent(outer);
      ranges[s->inner] = te::Range::from_extent(inner);
    } else {
      const auto& f = std::get<FuseRelation>(rel);
      ranges[f.fused] =
          te::Range::from_extent(const_extent(ranges, f.outer) * const_extent(ranges, f.inner));
    }
  }
}

te::VarMap<Expr> root_values(const StageRef& stage, const IterVarRanges& ranges) {
  // Values of every variable in terms of leaves, computed back from the leaves.
  std::unordered_map<IterVar, Expr, te::IterVarHash, te::IterVarEqual> value;
  for (const IterVar& leaf : stage->leaf_iter_vars) value[leaf] = leaf.var();
  for (auto it = stage->relations.rbegin(); it != stage->relations.rend(); ++it) {
    if (const auto* s = std::get_if<SplitRelation>(&*it)) {
      int64_t inner = const_extent(ranges, s->inner);
      value[s->parent] =
          value.at(s->outer) * te::make_int(inner, s->outer.var().type()) + value.at(s->inner);
    } else {
      const auto& f = std::get<FuseRelation>(*it);
      Expr inner_extent = te::make_int(const_extent(ranges, f.inner));
      value[f.outer] = value.at(f.fused) / inner_extent;
      value[f.inner] = value.at(f.fused) % inner_extent;
    }
  }
  te::VarMap<Expr> roots;
  for (const IterVar& root : stage->root_iter_vars) {
    Expr min = ranges.at(root).min;
    Expr v = value.at(root);
    roots[root.var()] = te::is_const_int(min, 0) ? v : min + v;
  }
  return roots;
}

SplitGuards split_guards(const StageRef& stage, const IterVarRanges& ranges) {
  std::unordered_map<IterVar, Expr, te::IterVarHash, te::IterVarEqual> value;
  for (const IterVar& leaf : stage->leaf_iter_vars) value[leaf] = leaf.var();
  SplitGuards guards;
  for (auto it = stage->relations.rbegin(); it != stage->relations.rend(); ++it) {
    if (const auto* s = std::get_if<SplitRelation>(&*it)) {
      int64_t parent = const_extent(ranges, s->parent);
      int64_t inner = const_extent(ranges, s->inner);
      int64_t outer = const_extent(ranges, s->outer);
      value[s->parent] = value.at(s->outer) * te::make_int(inner) + value.at(s->inner);
      if (outer * inner != parent) {
        Expr guard = value[s->parent] < te::make_int(parent);
        (s->parent->kind == te::IterVarKind::CommReduce ? guards.reduce : guards.data)
            .push_back(guard);
      }
    } else {
      const auto& f = std::get<FuseRelation>(*it);
      Expr inner_extent = te::make_int(const_extent(ranges, f.inner));
      value[f.outer] = value.at(f.fused) / inner_extent;
      value[f.inner] = value.at(f.fused) % inner_extent;
    }
  }
  return guards;
}

}  // namespace lathe::tir
