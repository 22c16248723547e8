// The primitives that rewrite the dataflow (TVM's schedule_dataflow_rewrite.cc):
// cache_read and cache_write put a cache stage between a tensor and its
// readers or its producer; rfactor splits a reduction into a stage of
// partial results and a stage combining them.
#include <algorithm>
#include <type_traits>

#include "schedule/apply.h"
#include "schedule/relations.h"
#include "support/error.h"
#include "te/expr_functor.h"

namespace lathe::schedule::apply {

AppliedStep cache_read(Schedule& s, Stage producer, const std::vector<Argument>& args,
                       const std::vector<std::string>& names) {
  const Tensor& tensor = args[0].tensor;
  const std::string& scope = args[1].text;
  std::vector<Operation> readers;
  for (const Tensor& r : args[2].tensors) readers.push_back(r.op());
  std::vector<StageRef> reader_stages;
  for (const Operation& r : readers) {
    Stage reader = s.stage_of(r);
    if (!reads(reader.op(), producer.op()))
      schedule_error(
          str("cache_read: stage '", reader.name(), "' does not read '", tensor.name(), "'"));
    reader_stages.push_back(reader.ref());
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
  StageRef cache_stage = s.insert_stage(cache.op(), producer, /*after=*/true);
  cache_stage->scope = scope;
  s.redirect_reads(producer.op(), cache.op(), reader_stages);
  return {{}, cache, {names[0].empty() ? tensor.name() + "_" + scope : names[0]}};
}

AppliedStep cache_write(Schedule& s, Stage stage, const std::vector<Argument>& args,
                        const std::vector<std::string>& names) {
  const Tensor& tensor = args[0].tensor;
  const std::string& scope = args[1].text;
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

  StageRef cache_stage = s.insert_stage(cache_op, stage, /*after=*/false);
  cache_stage->scope = scope;
  stage.ref()->root_iter_vars = c->axis;
  stage.ref()->leaf_iter_vars = c->axis;
  stage.ref()->all_iter_vars = c->axis;
  s.replace_op(stage, copy_op);
  return {{}, Tensor(cache_op), {names[0].empty() ? tensor.name() + "_" + scope : names[0]}};
}

AppliedStep rfactor(Schedule& s, Stage stage, const std::vector<Argument>& args,
                    const std::vector<std::string>& names) {
  const Tensor& tensor = args[0].tensor;
  const IterVar& axis = args[1].axis;
  const int64_t factor_axis = args[2].integer;
  // A given name also names the factored op; the default does not ("C.rf",
  // bound as "C_rf"), so an unnamed rfactor replays to the same op name. A
  // cache stage's "C.local" binds "C_local_rf", a name the text can write.
  std::string identifier = tensor.name();
  std::replace(identifier.begin(), identifier.end(), '.', '_');
  const std::string result = names[0].empty() ? identifier + "_rf" : names[0];
  const std::string name = result == tensor.name() + "_rf" ? "" : result;
  const te::ComputeOpNode* c = stage.op().as_compute();
  const auto* reduce = c ? c->body.as<te::ReduceNode>() : nullptr;
  if (!reduce) schedule_error(str("rfactor: '", tensor.name(), "' is not a reduction"));
  StageNode& node = *stage.ref();
  if (!axis.defined() || axis->kind != te::IterVarKind::CommReduce ||
      std::none_of(node.leaf_iter_vars.begin(), node.leaf_iter_vars.end(),
                   [&](const IterVar& v) { return v.same_as(axis); }))
    schedule_error(str("rfactor: '", axis.defined() ? axis.name() : "?",
                       "' is not a reduction axis among the loops of '", tensor.name(), "'"));
  if (factor_axis < 0 || factor_axis > static_cast<int64_t>(c->axis.size()))
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
    const IterVar& any = std::visit(
        [](const auto& r) -> const IterVar& {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, SplitRelation>)
            return r.parent;
          else if constexpr (std::is_same_v<R, FuseRelation>)
            return r.outer;
          else
            return r.iter;
        },
        rel);
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

  s.insert_stage(rf_op, stage, /*after=*/false);
  s.replace_op(stage, combined_op);
  return {{}, Tensor(rf_op), {result}};
}

}  // namespace lathe::schedule::apply
