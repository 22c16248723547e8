// Stage primitives and schedule-level rewrites (cache_read, cache_write,
// rfactor). Each checks its arguments and throws ScheduleError naming the
// stage and axis; on success it rewrites relations and records a trace step.
#include "schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "schedule/relations.h"
#include "support/error.h"
#include "te/expr_functor.h"

namespace lathe::schedule {
namespace {

[[noreturn]] void schedule_error(const std::string& message) {
  throw ScheduleError(message);
}

std::string default_name(const IterVar& parent, const char* suffix) {
  return parent.name() + "_" + suffix;
}

// Post-order over the operations the outputs read: producers first.
void collect_ops(const Operation& op, std::vector<Operation>& order,
                 std::unordered_set<const void*>& seen) {
  if (!seen.insert(op.get()).second) return;
  for (const Tensor& t : op.input_tensors()) collect_ops(t.op(), order, seen);
  order.push_back(op);
}

bool reads(const Operation& consumer, const Operation& producer) {
  for (const Tensor& t : consumer.input_tensors())
    if (t.op().same_as(producer)) return true;
  return false;
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

}  // namespace

// ---- Stage -------------------------------------------------------------------

std::vector<IterVar> Stage::axis() const {
  const te::ComputeOpNode* c = node_->op.as_compute();
  return c ? c->axis : std::vector<IterVar>{};
}

std::vector<IterVar> Stage::reduce_axis() const {
  const te::ComputeOpNode* c = node_->op.as_compute();
  return c ? c->reduce_axis : std::vector<IterVar>{};
}

int Stage::leaf_index(const IterVar& var) const {
  const auto& leaves = node_->leaf_iter_vars;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (leaves[i].same_as(var)) return static_cast<int>(i);
  return -1;
}

void Stage::check_leaf(const IterVar& var, const char* primitive) const {
  if (!var.defined()) schedule_error(str(primitive, ": undefined axis"));
  if (leaf_index(var) >= 0) return;
  for (const IterVar& v : node_->all_iter_vars)
    if (v.same_as(var))
      schedule_error(str(primitive, ": axis '", var.name(), "' of stage '", name(),
                         "' was already split or fused; use the axes that replaced it"));
  schedule_error(str(primitive, ": '", var.name(), "' is not an axis of stage '", name(), "'"));
}

IterVar Stage::make_leaf_var(const std::string& var_name, te::IterVarKind kind) {
  IterVar v(te::Var(var_name), te::Range(), kind);
  node_->all_iter_vars.push_back(v);
  return v;
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& parent, int64_t factor,
                                         const std::string& outer_name,
                                         const std::string& inner_name) {
  return split_impl(parent, true, factor, outer_name, inner_name);
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& parent, int64_t nparts,
                                                const std::string& outer_name,
                                                const std::string& inner_name) {
  return split_impl(parent, false, nparts, outer_name, inner_name);
}

// `amount` is the inner extent (factor) or the outer one (nparts).
std::pair<IterVar, IterVar> Stage::split_impl(const IterVar& parent, bool by_factor, int64_t amount,
                                              const std::string& outer_name,
                                              const std::string& inner_name) {
  check_leaf(parent, "split");
  const char* what = by_factor ? "factor" : "nparts";
  if (amount <= 0)
    schedule_error(str("split: ", what, " must be positive, got ", amount, " for axis '",
                       parent.name(), "' of stage '", name(), "'"));
  IterVar outer =
      make_leaf_var(outer_name.empty() ? default_name(parent, "outer") : outer_name, parent->kind);
  IterVar inner =
      make_leaf_var(inner_name.empty() ? default_name(parent, "inner") : inner_name, parent->kind);
  auto& leaves = node_->leaf_iter_vars;
  int pos = leaf_index(parent);
  leaves[pos] = outer;
  leaves.insert(leaves.begin() + pos + 1, inner);
  node_->relations.push_back(
      SplitRelation{parent, outer, inner, by_factor ? amount : 0, by_factor ? 0 : amount});
  owner_->record({by_factor ? "split" : "split_nparts",
                  name(),
                  {parent.name()},
                  {amount},
                  {},
                  {outer.name(), inner.name()}});
  return {outer, inner};
}

std::vector<IterVar> Stage::tile(const IterVar& x, const IterVar& y, int64_t x_factor,
                                 int64_t y_factor, const std::vector<std::string>& names) {
  auto name_at = [&](size_t i) { return i < names.size() ? names[i] : std::string(); };
  // Recorded as one tile step, not as the splits and reorder it is made of.
  std::vector<ScheduleStep> saved = owner_->trace_;
  auto [xo, xi] = split(x, x_factor, name_at(0), name_at(2));
  auto [yo, yi] = split(y, y_factor, name_at(1), name_at(3));
  reorder({xo, yo, xi, yi});
  owner_->trace_ = std::move(saved);
  owner_->record({"tile",
                  name(),
                  {x.name(), y.name()},
                  {x_factor, y_factor},
                  {},
                  {xo.name(), yo.name(), xi.name(), yi.name()}});
  return {xo, yo, xi, yi};
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner, const std::string& fused_name) {
  check_leaf(outer, "fuse");
  check_leaf(inner, "fuse");
  int po = leaf_index(outer), pi = leaf_index(inner);
  if (pi != po + 1)
    schedule_error(str("fuse: '", inner.name(), "' must directly follow '", outer.name(),
                       "' in the loop order of stage '", name(), "'"));
  if (outer->kind != inner->kind)
    schedule_error(str("fuse: cannot fuse data axis and reduction axis ('", outer.name(), "', '",
                       inner.name(), "') of stage '", name(), "'"));
  IterVar fused = make_leaf_var(
      fused_name.empty() ? outer.name() + "_" + inner.name() + "_fused" : fused_name, outer->kind);
  auto& leaves = node_->leaf_iter_vars;
  leaves[po] = fused;
  leaves.erase(leaves.begin() + pi);
  node_->relations.push_back(FuseRelation{outer, inner, fused});
  owner_->record({"fuse", name(), {outer.name(), inner.name()}, {}, {}, {fused.name()}});
  return fused;
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<int> positions;
  std::vector<std::string> names;
  for (const IterVar& v : order) {
    check_leaf(v, "reorder");
    int p = leaf_index(v);
    if (std::find(positions.begin(), positions.end(), p) != positions.end())
      schedule_error(str("reorder: axis '", v.name(), "' is named twice"));
    positions.push_back(p);
    names.push_back(v.name());
  }
  std::vector<int> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < order.size(); ++i) node_->leaf_iter_vars[sorted[i]] = order[i];
  owner_->record({"reorder", name(), names, {}, {}, {}});
}

void Stage::parallel(const IterVar& var) {
  check_leaf(var, "parallel");
  if (var->kind == te::IterVarKind::CommReduce)
    schedule_error(str("parallel: '", var.name(), "' is a reduction axis of stage '", name(),
                       "'; parallel iterations would race on the result (use rfactor)"));
  node_->attrs[var].annotation = LoopAnnotation::Parallel;
  owner_->record({"parallel", name(), {var.name()}, {}, {}, {}});
}

void Stage::vectorize(const IterVar& var) {
  check_leaf(var, "vectorize");
  if (var->kind == te::IterVarKind::CommReduce)
    schedule_error(str("vectorize: cannot vectorize reduction axis '", var.name(), "' of stage '",
                       name(), "'"));
  node_->attrs[var].annotation = LoopAnnotation::Vectorize;
  owner_->record({"vectorize", name(), {var.name()}, {}, {}, {}});
}

void Stage::unroll(const IterVar& var) {
  check_leaf(var, "unroll");
  node_->attrs[var].annotation = LoopAnnotation::Unroll;
  owner_->record({"unroll", name(), {var.name()}, {}, {}, {}});
}

void Stage::bind(const IterVar& var, const std::string& thread_tag) {
  check_leaf(var, "bind");
  static const char* tags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                               "threadIdx.y", "threadIdx.z", "vthread"};
  if (std::find(std::begin(tags), std::end(tags), thread_tag) == std::end(tags))
    schedule_error(str("bind: unknown thread tag '", thread_tag, "'"));
  node_->attrs[var].annotation = LoopAnnotation::Bind;
  node_->attrs[var].thread_tag = thread_tag;
  owner_->record({"bind", name(), {var.name()}, {}, {thread_tag}, {}});
}

void Stage::pragma(const IterVar& var, const std::string& key, const Expr& value) {
  check_leaf(var, "pragma");
  const int64_t* v = te::as_const_int(value);
  if (!v) schedule_error(str("pragma '", key, "': the value must be an integer constant"));
  node_->attrs[var].pragmas.emplace_back(key, value);
  owner_->record({"pragma", name(), {var.name()}, {*v}, {key}, {}});
}

void Stage::prefetch(const Tensor& tensor, const IterVar& var, int64_t offset) {
  check_leaf(var, "prefetch");
  if (!tensor.defined()) schedule_error("prefetch: undefined tensor");
  if (tensor.op().as_compute())
    schedule_error(str("prefetch: '", tensor.name(), "' is computed by the kernel; only its ",
                       "inputs (placeholders) can be prefetched"));
  if (!reads(op(), tensor.op()))
    schedule_error(str("prefetch: stage '", name(), "' does not read '", tensor.name(), "'"));
  if (offset < 1)
    schedule_error(str("prefetch: the offset is how many iterations of '", var.name(),
                       "' ahead to fetch and must be at least 1, got ", offset));
  node_->attrs[var].prefetches.push_back({tensor, offset});
  owner_->record({"prefetch", name(), {var.name()}, {offset}, {tensor.name()}, {}});
}

void Stage::compute_at(const Stage& parent, const IterVar& scope) {
  if (!parent.node_) schedule_error("compute_at: undefined parent stage");
  if (parent.node_ == node_)
    schedule_error(str("compute_at: stage '", name(), "' cannot be computed at itself"));
  if (node_->is_output)
    schedule_error(str("compute_at: '", name(), "' is an output and must stay at the root"));
  // The parent must read the tensor, or enclose (through compute_at) a stage
  // that does, as TVM allows attaching a producer at an outer loop.
  bool consumed = reads(parent.op(), op());
  for (const StageRef& s : owner_->stages_) {
    if (consumed) break;
    if (!s->op.as_compute() || !reads(s->op, op())) continue;
    for (StageRef cur = s; cur && !consumed; cur = cur->attach_stage.lock()) {
      if (cur == parent.node_) consumed = true;
      if (cur->attach_type != AttachType::Scope) break;
    }
  }
  if (!consumed)
    schedule_error(str("compute_at: stage '", parent.name(), "' does not consume '", name(),
                       "'; compute a tensor at a loop of a stage that reads it"));
  parent.check_leaf(scope, "compute_at");
  node_->attach_type = AttachType::Scope;
  node_->attach_stage = parent.node_;
  node_->attach_ivar = scope;
  owner_->record({"compute_at", name(), {scope.name()}, {}, {parent.name()}, {}});
}

void Stage::compute_inline() {
  const te::ComputeOpNode* c = op().as_compute();
  if (!c) schedule_error(str("compute_inline: '", name(), "' is a placeholder"));
  if (node_->is_output) schedule_error(str("compute_inline: '", name(), "' is an output"));
  if (c->body.as<te::ReduceNode>())
    schedule_error(str("compute_inline: '", name(), "' is a reduction and cannot be inlined"));
  node_->attach_type = AttachType::Inline;
  owner_->record({"compute_inline", name(), {}, {}, {}, {}});
}

void Stage::compute_root() {
  node_->attach_type = AttachType::Root;
  node_->attach_ivar = IterVar();
  node_->attach_stage.reset();
  owner_->record({"compute_root", name(), {}, {}, {}, {}});
}

void Stage::storage_align(const IterVar& axis, int64_t factor, int64_t offset) {
  std::vector<IterVar> root = this->axis();
  int dim = -1;
  for (size_t i = 0; i < root.size(); ++i)
    if (root[i].same_as(axis)) dim = static_cast<int>(i);
  if (dim < 0)
    schedule_error(str("storage_align: '", axis.defined() ? axis.name() : "?",
                       "' is not a data axis of '", name(), "'"));
  if (factor <= 0 || offset < 0 || offset >= factor)
    schedule_error(str("storage_align: needs factor > 0 and 0 <= offset < factor, got ", factor,
                       ", ", offset));
  node_->storage_aligns.push_back({dim, factor, offset});
  owner_->record({"storage_align", name(), {axis.name()}, {factor, offset}, {}, {}});
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
    auto node = copy_compute(*c);
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

Tensor Schedule::cache_read(const Tensor& tensor, const std::string& scope,
                            const std::vector<Operation>& readers, const std::string& name) {
  Stage producer = stage_of(tensor.op());
  std::vector<StageRef> reader_stages;
  std::vector<std::string> reader_names;
  for (const Operation& r : readers) {
    Stage s = stage_of(r);
    if (!reads(s.op(), producer.op()))
      schedule_error(str("cache_read: stage '", s.name(), "' does not read '", tensor.name(), "'"));
    reader_stages.push_back(s.ref());
    reader_names.push_back(s.name());
  }
  if (readers.empty()) schedule_error("cache_read: no readers given");
  std::string cache_name = tensor.name() + "." + scope;
  std::vector<std::string> axis_names;
  for (int i = 0; i < tensor.ndim(); ++i) axis_names.push_back("ax" + std::to_string(i));
  Tensor source(producer.op());
  Tensor cache = te::compute(
      tensor.shape(),
      [&](const std::vector<te::Var>& i) { return source(std::vector<Expr>(i.begin(), i.end())); },
      cache_name, axis_names);
  size_t position = 0;
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i] == producer.ref()) position = i + 1;
  StageRef cache_stage = add_stage(cache.op(), position);
  cache_stage->scope = scope;
  redirect_reads(producer.op(), cache.op(), reader_stages);
  std::vector<std::string> strings = {scope};
  strings.insert(strings.end(), reader_names.begin(), reader_names.end());
  std::string result = name.empty() ? tensor.name() + "_" + scope : name;
  record({"cache_read", tensor.name(), {}, {}, strings, {result}});
  return cache;
}

Tensor Schedule::cache_write(const Tensor& tensor, const std::string& scope,
                             const std::string& name) {
  Stage stage = stage_of(tensor.op());
  const te::ComputeOpNode* c = stage.op().as_compute();
  if (!c) schedule_error(str("cache_write: '", tensor.name(), "' is a placeholder"));
  if (!stage.node().relations.empty() || stage.node().attach_type != AttachType::Root)
    schedule_error(str("cache_write: '", tensor.name(),
                       "' must be cached before its stage is otherwise scheduled"));
  // The cache computes the original body over fresh axes ...
  te::VarMap<Expr> remap;
  std::vector<std::string> axis_names;
  for (const IterVar& iv : c->axis) axis_names.push_back(iv.name() + "_c");
  auto cache_node = std::make_shared<te::ComputeOpNode>(tensor.name() + "." + scope);
  cache_node->shape = c->shape;
  cache_node->dtype = c->dtype;
  cache_node->tag = c->tag;
  for (size_t i = 0; i < c->axis.size(); ++i) {
    te::Var v(axis_names[i]);
    remap[c->axis[i].var()] = v;
    cache_node->axis.emplace_back(v, c->axis[i]->dom, te::IterVarKind::DataPar);
  }
  Expr body = c->body;
  if (const auto* r = body.as<te::ReduceNode>()) {
    std::vector<IterVar> axes;
    for (const IterVar& k : r->axis) {
      te::Var v(k.name());
      remap[k.var()] = v;
      axes.emplace_back(v, k->dom, te::IterVarKind::CommReduce);
    }
    cache_node->reduce_axis = axes;
    body = Expr(std::make_shared<const te::ReduceNode>(
        r->combiner, te::substitute(r->source, remap), axes,
        r->condition.defined() ? te::substitute(r->condition, remap) : Expr()));
  } else {
    body = te::substitute(body, remap);
  }
  cache_node->body = body;
  Operation cache_op(cache_node);
  // ... and the stage's op becomes a copy out of the cache over the same axes,
  // so that C.op.axis still names the stage's loops.
  auto copy_node = copy_compute(*c);
  copy_node->reduce_axis.clear();
  std::vector<Expr> index;
  for (const IterVar& iv : c->axis) index.push_back(iv.var());
  copy_node->body = Tensor(cache_op)(index);
  Operation copy_op(copy_node);

  size_t position = 0;
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i] == stage.ref()) position = i;
  StageRef cache_stage = add_stage(cache_op, position);
  cache_stage->scope = scope;
  Operation old_op = stage.op();
  stage.ref()->op = copy_op;
  stage.ref()->root_iter_vars = c->axis;
  stage.ref()->leaf_iter_vars = c->axis;
  stage.ref()->all_iter_vars = c->axis;
  // Consumers of the old op now read the copy.
  std::vector<StageRef> consumers;
  for (const StageRef& s : stages_)
    if (s != stage.ref() && s->op.as_compute() && reads(s->op, old_op)) consumers.push_back(s);
  if (!consumers.empty()) redirect_reads(old_op, copy_op, consumers);
  for (Operation& out : outputs_)
    if (out.same_as(old_op)) out = copy_op;
  std::string result = name.empty() ? tensor.name() + "_" + scope : name;
  record({"cache_write", tensor.name(), {}, {}, {scope}, {result}});
  return Tensor(cache_op);
}

Tensor Schedule::rfactor(const Tensor& tensor, const IterVar& axis, int factor_axis,
                         const std::string& name) {
  Stage stage = stage_of(tensor.op());
  const te::ComputeOpNode* c = stage.op().as_compute();
  const auto* reduce = c ? c->body.as<te::ReduceNode>() : nullptr;
  if (!reduce) schedule_error(str("rfactor: '", tensor.name(), "' is not a reduction"));
  StageNode& node = *stage.ref();
  if (!axis.defined() || axis->kind != te::IterVarKind::CommReduce ||
      std::none_of(node.leaf_iter_vars.begin(), node.leaf_iter_vars.end(),
                   [&](const IterVar& v) { return v.same_as(axis); }))
    schedule_error(str("rfactor: '", axis.defined() ? axis.name() : "?",
                       "' is not a reduction axis among the loops of '", tensor.name(), "'"));
  if (factor_axis < 0 || factor_axis > static_cast<int>(c->axis.size()))
    schedule_error(str("rfactor: factor_axis ", factor_axis, " is out of range for '",
                       tensor.name(), "' with ", c->axis.size(), " axes"));

  // Extents of the stage's variables over the op's full domain.
  IterVarRanges ranges;
  for (size_t i = 0; i < c->axis.size(); ++i)
    ranges[c->axis[i]] = te::Range::from_extent(c->shape[i]);
  for (const IterVar& k : c->reduce_axis) ranges[k] = k->dom;
  derive_leaf_ranges(node, ranges);
  te::VarMap<Expr> values = root_values(node, ranges);
  SplitGuards guards = split_guards(node, ranges);

  // The factored op: the original data axes with `axis` inserted as a data
  // axis, reducing over the stage's other reduction loops.
  std::string rf_name = name.empty() ? tensor.name() + ".rf" : name;
  auto rf = std::make_shared<te::ComputeOpNode>(rf_name);
  rf->dtype = c->dtype;
  rf->tag = c->tag;
  te::VarMap<Expr> to_rf;
  std::vector<IterVar> data;
  for (size_t i = 0; i < c->axis.size(); ++i) {
    te::Var v(c->axis[i].name());
    to_rf[c->axis[i].var()] = v;
    data.emplace_back(v, te::Range::from_extent(c->shape[i]), te::IterVarKind::DataPar);
  }
  const int64_t axis_extent = const_extent(ranges, axis);
  te::Var av(axis.name() + "_v");
  to_rf[axis.var()] = av;
  data.insert(data.begin() + factor_axis,
              IterVar(av, te::Range::from_extent(axis_extent), te::IterVarKind::DataPar));
  std::vector<IterVar> rf_reduce;
  for (const IterVar& leaf : node.leaf_iter_vars) {
    if (leaf->kind != te::IterVarKind::CommReduce || leaf.same_as(axis)) continue;
    te::Var v(leaf.name());
    to_rf[leaf.var()] = v;
    rf_reduce.emplace_back(v, te::Range::from_extent(const_extent(ranges, leaf)),
                           te::IterVarKind::CommReduce);
  }
  if (rf_reduce.empty())
    schedule_error(str("rfactor: '", tensor.name(), "' has no reduction loop left besides '",
                       axis.name(), "'; split the reduction axis first"));
  te::VarMap<Expr> reduce_values;
  for (const IterVar& k : c->reduce_axis)
    reduce_values[k.var()] = te::substitute(values.at(k.var()), to_rf);
  for (size_t i = 0; i < c->axis.size(); ++i)
    reduce_values[c->axis[i].var()] = to_rf.at(c->axis[i].var());
  Expr source = te::substitute(reduce->source, reduce_values);
  Expr condition;
  for (const Expr& g : guards.reduce) {
    Expr cond = te::substitute(g, to_rf);
    condition = condition.defined() ? condition && cond : cond;
  }
  if (reduce->condition.defined()) {
    Expr cond = te::substitute(reduce->condition, reduce_values);
    condition = condition.defined() ? condition && cond : cond;
  }
  for (const IterVar& iv : data) rf->shape.push_back(*te::as_const_int(iv->dom.extent));
  rf->axis = data;
  rf->reduce_axis = rf_reduce;
  rf->body =
      Expr(std::make_shared<const te::ReduceNode>(reduce->combiner, source, rf_reduce, condition));
  Operation rf_op(rf);

  // The stage now reduces the factored results over the new axis.
  IterVar rv(te::Var(axis.name() + "_r"), te::Range::from_extent(axis_extent),
             te::IterVarKind::CommReduce);
  auto combined = copy_compute(*c);
  std::vector<Expr> index;
  for (const IterVar& iv : c->axis) index.push_back(iv.var());
  index.insert(index.begin() + factor_axis, rv.var());
  combined->reduce_axis = {rv};
  combined->body = Expr(std::make_shared<const te::ReduceNode>(
      reduce->combiner, Tensor(rf_op)(index), std::vector<IterVar>{rv}, Expr()));
  Operation combined_op(combined);

  // Keep the data-axis relations and loops; drop the reduction ones.
  auto is_reduce = [](const IterVar& v) { return v->kind == te::IterVarKind::CommReduce; };
  std::vector<IterVarRelation> kept;
  for (const IterVarRelation& rel : node.relations) {
    const IterVar& any = std::holds_alternative<SplitRelation>(rel)
                             ? std::get<SplitRelation>(rel).parent
                             : std::get<FuseRelation>(rel).outer;
    if (!is_reduce(any)) kept.push_back(rel);
  }
  node.relations = kept;
  std::erase_if(node.leaf_iter_vars, is_reduce);
  std::erase_if(node.all_iter_vars, is_reduce);
  std::erase_if(node.root_iter_vars, is_reduce);
  std::erase_if(node.attrs, [&](const auto& kv) { return is_reduce(kv.first); });
  node.leaf_iter_vars.push_back(rv);
  node.all_iter_vars.push_back(rv);
  node.root_iter_vars.push_back(rv);

  size_t position = 0;
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i] == stage.ref()) position = i;
  add_stage(rf_op, position);
  Operation old_op = node.op;
  node.op = combined_op;
  std::vector<StageRef> consumers;
  for (const StageRef& s : stages_)
    if (s != stage.ref() && s->op.as_compute() && reads(s->op, old_op)) consumers.push_back(s);
  if (!consumers.empty()) redirect_reads(old_op, combined_op, consumers);
  for (Operation& out : outputs_)
    if (out.same_as(old_op)) out = combined_op;
  std::string result = name.empty() ? tensor.name() + "_rf" : name;
  record({"rfactor", tensor.name(), {axis.name()}, {factor_axis}, {}, {result}});
  return Tensor(rf_op);
}

}  // namespace lathe::schedule
