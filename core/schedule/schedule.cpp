// Stages and the schedule's dataflow; the typed C++ API of the primitives,
// each of which applies its table entry (schedule/primitives.h), so that the
// C++ API, the text and replayed records reach the same apply function and
// record the same trace step.
#include "schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "schedule/apply.h"
#include "schedule/primitives.h"
#include "support/error.h"
#include "te/expr_functor.h"

namespace lathe::schedule {
namespace {

using apply::reads;
using apply::schedule_error;

// Post-order over the operations the outputs read: producers first.
void collect_ops(const Operation& op, std::vector<Operation>& order,
                 std::unordered_set<const void*>& seen) {
  if (!seen.insert(op.get()).second) return;
  for (const Tensor& t : op.input_tensors()) collect_ops(t.op(), order, seen);
  order.push_back(op);
}

// The body of a compute op with every read of an op in `map` redirected.
class ReadRedirector : public te::ExprMutator {
 public:
  explicit ReadRedirector(const std::function<Operation(const Operation&)>& map) : map_(map) {}

 protected:
  Expr visit_producer_load(const te::ProducerLoadNode* n, const Expr& e) override {
    Expr base = te::ExprMutator::visit_producer_load(n, e);
    const auto* load = base.as<te::ProducerLoadNode>();
    Operation target = map_(load->producer);
    if (!target.defined()) return base;
    return Expr(std::make_shared<const te::ProducerLoadNode>(load->type, target, load->indices));
  }

 private:
  const std::function<Operation(const Operation&)>& map_;
};

// Applies the named primitive through its table entry.
AppliedStep run(Schedule& s, const char* primitive, const Stage& stage,
                const std::vector<Argument>& args, const std::vector<std::string>& names = {}) {
  const Primitive* p = find_primitive(primitive);
  LATHE_CHECK(p, "schedule primitive '", primitive, "' is missing from the table");
  return apply_primitive(s, *p, stage, args, names);
}

}  // namespace

namespace apply {
std::shared_ptr<te::ComputeOpNode> copy_compute(const te::ComputeOpNode& c) {
  auto node = std::make_shared<te::ComputeOpNode>(c.name);
  node->shape = c.shape;
  node->dtype = c.dtype;
  node->axis = c.axis;
  node->reduce_axis = c.reduce_axis;
  node->body = c.body;
  node->tag = c.tag;
  return node;
}
}  // namespace apply

// ---- Stage -------------------------------------------------------------------

std::vector<IterVar> Stage::axis() const {
  const te::ComputeOpNode* c = node_->op.as_compute();
  return c ? c->axis : std::vector<IterVar>{};
}

std::vector<IterVar> Stage::reduce_axis() const {
  const te::ComputeOpNode* c = node_->op.as_compute();
  return c ? c->reduce_axis : std::vector<IterVar>{};
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& parent, int64_t factor,
                                         const std::string& outer_name,
                                         const std::string& inner_name) {
  AppliedStep r = run(*owner_, "split", *this, {{.axis = parent}, {.integer = factor}},
                      {outer_name, inner_name});
  return {r.axes[0], r.axes[1]};
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& parent, int64_t nparts,
                                                const std::string& outer_name,
                                                const std::string& inner_name) {
  AppliedStep r = run(*owner_, "split_nparts", *this, {{.axis = parent}, {.integer = nparts}},
                      {outer_name, inner_name});
  return {r.axes[0], r.axes[1]};
}

std::vector<IterVar> Stage::tile(const IterVar& x, const IterVar& y, int64_t x_factor,
                                 int64_t y_factor, const std::vector<std::string>& names) {
  return run(*owner_, "tile", *this,
             {{.axis = x}, {.axis = y}, {.integer = x_factor}, {.integer = y_factor}}, names)
      .axes;
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner, const std::string& name) {
  return run(*owner_, "fuse", *this, {{.axes = {outer, inner}}}, {name}).axes[0];
}

IterVar Stage::fuse(const std::vector<IterVar>& axes, const std::string& name) {
  return run(*owner_, "fuse", *this, {{.axes = axes}}, {name}).axes[0];
}

void Stage::reorder(const std::vector<IterVar>& order) {
  run(*owner_, "reorder", *this, {{.axes = order}});
}

void Stage::parallel(const IterVar& var) {
  run(*owner_, "parallel", *this, {{.axis = var}});
}

void Stage::vectorize(const IterVar& var) {
  run(*owner_, "vectorize", *this, {{.axis = var}});
}

void Stage::unroll(const IterVar& var) {
  run(*owner_, "unroll", *this, {{.axis = var}});
}

void Stage::bind(const IterVar& var, const std::string& thread_tag) {
  run(*owner_, "bind", *this, {{.axis = var}, {.text = thread_tag}});
}

void Stage::pragma(const IterVar& var, const std::string& key, const Expr& value) {
  const int64_t* v = te::as_const_int(value);
  if (!v) schedule_error(str("pragma '", key, "': the value must be an integer constant"));
  run(*owner_, "pragma", *this, {{.axis = var}, {.text = key}, {.integer = *v}});
}

void Stage::tensorize(const IterVar& var, const std::string& intrinsic) {
  run(*owner_, "tensorize", *this, {{.axis = var}, {.text = intrinsic}});
}

void Stage::prefetch(const Tensor& tensor, const IterVar& var, int64_t offset) {
  run(*owner_, "prefetch", *this, {{.tensor = tensor}, {.axis = var}, {.integer = offset}});
}

void Stage::compute_at(const Stage& parent, const IterVar& scope) {
  run(*owner_, "compute_at", *this, {{.stage = parent}, {.axis = scope}});
}

void Stage::compute_inline() {
  run(*owner_, "compute_inline", *this, {});
}

void Stage::compute_root() {
  run(*owner_, "compute_root", *this, {});
}

void Stage::storage_align(const IterVar& axis, int64_t factor, int64_t offset) {
  run(*owner_, "storage_align", *this, {{.axis = axis}, {.integer = factor}, {.integer = offset}});
}

// ---- Schedule ----------------------------------------------------------------

Schedule::Schedule(const std::vector<Operation>& outputs) : outputs_(outputs) {
  std::vector<Operation> order;
  std::unordered_set<const void*> seen;
  for (const Operation& op : outputs) collect_ops(op, order, seen);
  for (const Operation& op : order) add_stage(op, stages_.size());
  for (const Operation& op : outputs) stage_of(op).ref()->is_output = true;
  std::string names;
  for (const Operation& op : outputs) names += (names.empty() ? "" : ",") + op->name;
  record({"create_schedule", "", {}, {}, {names}, {}});
}

StageRef Schedule::add_stage(const Operation& op, size_t position) {
  auto node = std::make_shared<StageNode>();
  node->op = op;
  node->origin_op = op;
  if (const te::ComputeOpNode* c = op.as_compute()) {
    node->root_iter_vars = c->axis;
    node->root_iter_vars.insert(node->root_iter_vars.end(), c->reduce_axis.begin(),
                                c->reduce_axis.end());
  }
  node->leaf_iter_vars = node->root_iter_vars;
  node->all_iter_vars = node->root_iter_vars;
  stages_.insert(stages_.begin() + static_cast<long>(position), node);
  return node;
}

Stage Schedule::stage_of(const Operation& op) {
  for (const StageRef& s : stages_)
    if (s->op.same_as(op) || s->origin_op.same_as(op)) return Stage(s, this);
  schedule_error(str("no stage for tensor '", op.defined() ? op->name : "?", "'"));
}

Stage Schedule::find_stage(const std::string& tensor_name) {
  for (const StageRef& s : stages_)
    if (s->op->name == tensor_name) return Stage(s, this);
  return Stage();
}

std::vector<Stage> Schedule::stages() {
  std::vector<Stage> v;
  for (const StageRef& s : stages_) v.emplace_back(s, this);
  return v;
}

void Schedule::redirect_reads(const Operation& from, const Operation& to,
                              const std::vector<StageRef>& readers) {
  // Rebuilding a reader gives it a new identity, so whatever read the old
  // reader is rebuilt too (TVM's ReplaceDataFlow).
  std::vector<std::pair<Operation, Operation>> replaced = {{from, to}};
  auto lookup = [&](const Operation& op) -> Operation {
    for (const auto& [old_op, new_op] : replaced)
      if (old_op.same_as(op)) return new_op;
    return Operation();
  };
  std::function<Operation(const Operation&)> map = lookup;
  for (const StageRef& s : stages_) {
    const te::ComputeOpNode* c = s->op.as_compute();
    if (!c || s->op.same_as(to)) continue;
    bool chosen = std::find(readers.begin(), readers.end(), s) != readers.end();
    bool reads_replacement = false;
    for (size_t i = 1; i < replaced.size(); ++i)
      reads_replacement |= reads(s->op, replaced[i].first);
    if (!chosen && !reads_replacement) continue;
    auto node = apply::copy_compute(*c);
    if (chosen) {
      node->body = ReadRedirector(map).mutate(c->body);
    } else {
      // Only redirect the rebuilt readers, not `from` itself.
      std::vector<std::pair<Operation, Operation>> rebuilt(replaced.begin() + 1, replaced.end());
      std::function<Operation(const Operation&)> only_rebuilt = [&](const Operation& op) {
        for (const auto& [old_op, new_op] : rebuilt)
          if (old_op.same_as(op)) return new_op;
        return Operation();
      };
      node->body = ReadRedirector(only_rebuilt).mutate(c->body);
    }
    Operation rebuilt_op(node);
    replaced.emplace_back(s->op, rebuilt_op);
    s->op = rebuilt_op;
  }
  for (Operation& out : outputs_)
    for (size_t i = 1; i < replaced.size(); ++i)
      if (out.same_as(replaced[i].first)) out = replaced[i].second;
}

StageRef Schedule::insert_stage(const Operation& op, const Stage& anchor, bool after) {
  auto it = std::find(stages_.begin(), stages_.end(), anchor.ref());
  LATHE_CHECK(it != stages_.end(), "stage '", anchor.name(), "' is not part of the schedule");
  return add_stage(op, static_cast<size_t>(it - stages_.begin()) + (after ? 1 : 0));
}

void Schedule::replace_op(const Stage& stage, const Operation& op) {
  Operation old_op = stage.op();
  stage.ref()->op = op;
  std::vector<StageRef> consumers;
  for (const StageRef& s : stages_)
    if (s != stage.ref() && s->op.as_compute() && reads(s->op, old_op)) consumers.push_back(s);
  if (!consumers.empty()) redirect_reads(old_op, op, consumers);
  for (Operation& out : outputs_)
    if (out.same_as(old_op)) out = op;
}

Tensor Schedule::cache_read(const Tensor& tensor, const std::string& scope,
                            const std::vector<Operation>& readers, const std::string& name) {
  std::vector<Tensor> reader_tensors;
  for (const Operation& r : readers) reader_tensors.emplace_back(r);
  return run(*this, "cache_read", Stage(),
             {{.tensor = tensor}, {.text = scope}, {.tensors = reader_tensors}}, {name})
      .tensor;
}

Tensor Schedule::cache_write(const Tensor& tensor, const std::string& scope,
                             const std::string& name) {
  return run(*this, "cache_write", Stage(), {{.tensor = tensor}, {.text = scope}}, {name}).tensor;
}

Tensor Schedule::rfactor(const Tensor& tensor, const IterVar& axis, int factor_axis,
                         const std::string& name) {
  return run(*this, "rfactor", Stage(),
             {{.tensor = tensor}, {.axis = axis}, {.integer = factor_axis}}, {name})
      .tensor;
}

}  // namespace lathe::schedule
