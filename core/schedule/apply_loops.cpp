// The primitives that rewrite a stage's loops: split, tile, fuse and reorder
// replace leaf variables and record relations (TVM's schedule_lang.cc);
// parallel, vectorize, unroll, bind, pragma and prefetch annotate a loop.
#include <algorithm>

#include "schedule/apply.h"
#include "support/error.h"

namespace lathe::schedule::apply {
namespace {

IterVar make_leaf_var(StageNode& stage, const std::string& name, te::IterVarKind kind) {
  IterVar v(te::Var(name), te::Range(), kind);
  stage.all_iter_vars.push_back(v);
  return v;
}

std::string name_or(const std::vector<std::string>& names, size_t i, const std::string& fallback) {
  return i < names.size() && !names[i].empty() ? names[i] : fallback;
}

// `amount` is the inner extent (by_factor) or the outer one (nparts).
std::pair<IterVar, IterVar> split_loop(const Stage& stage, const IterVar& parent, bool by_factor,
                                       int64_t amount, const std::string& outer_name,
                                       const std::string& inner_name) {
  check_leaf(stage, parent, "split");
  if (amount <= 0)
    schedule_error(str("split: ", by_factor ? "factor" : "nparts", " must be positive, got ",
                       amount, " for axis '", parent.name(), "' of stage '", stage.name(), "'"));
  StageNode& node = *stage.ref();
  IterVar outer =
      make_leaf_var(node, outer_name.empty() ? parent.name() + "_outer" : outer_name, parent->kind);
  IterVar inner =
      make_leaf_var(node, inner_name.empty() ? parent.name() + "_inner" : inner_name, parent->kind);
  auto& leaves = node.leaf_iter_vars;
  int pos = leaf_index(node, parent);
  leaves[pos] = outer;
  leaves.insert(leaves.begin() + pos + 1, inner);
  node.relations.push_back(
      SplitRelation{parent, outer, inner, by_factor ? amount : 0, by_factor ? 0 : amount});
  return {outer, inner};
}

IterVar fuse_pair(const Stage& stage, const IterVar& outer, const IterVar& inner,
                  const std::string& fused_name) {
  check_leaf(stage, outer, "fuse");
  check_leaf(stage, inner, "fuse");
  StageNode& node = *stage.ref();
  int po = leaf_index(node, outer), pi = leaf_index(node, inner);
  if (pi != po + 1)
    schedule_error(str("fuse: '", inner.name(), "' must directly follow '", outer.name(),
                       "' in the loop order of stage '", stage.name(), "'"));
  if (outer->kind != inner->kind)
    schedule_error(str("fuse: cannot fuse data axis and reduction axis ('", outer.name(), "', '",
                       inner.name(), "') of stage '", stage.name(), "'"));
  IterVar fused = make_leaf_var(
      node, fused_name.empty() ? outer.name() + "_" + inner.name() + "_fused" : fused_name,
      outer->kind);
  auto& leaves = node.leaf_iter_vars;
  leaves[po] = fused;
  leaves.erase(leaves.begin() + pi);
  node.relations.push_back(FuseRelation{outer, inner, fused});
  return fused;
}

void reorder_loops(const Stage& stage, const std::vector<IterVar>& order) {
  std::vector<int> positions;
  for (const IterVar& v : order) {
    check_leaf(stage, v, "reorder");
    int p = leaf_index(stage.node(), v);
    if (std::find(positions.begin(), positions.end(), p) != positions.end())
      schedule_error(str("reorder: axis '", v.name(), "' is named twice"));
    positions.push_back(p);
  }
  std::vector<int> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < order.size(); ++i) stage.ref()->leaf_iter_vars[sorted[i]] = order[i];
}

AppliedStep new_axes(std::vector<IterVar> axes) {
  AppliedStep out;
  for (const IterVar& v : axes) out.names.push_back(v.name());
  out.axes = std::move(axes);
  return out;
}

IterVarAttr& attr_of(const Stage& stage, const IterVar& var) {
  return stage.ref()->attrs[var];
}

}  // namespace

void schedule_error(const std::string& message) {
  throw ScheduleError(message);
}

int leaf_index(const StageNode& stage, const IterVar& var) {
  const auto& leaves = stage.leaf_iter_vars;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (leaves[i].same_as(var)) return static_cast<int>(i);
  return -1;
}

void check_leaf(const Stage& stage, const IterVar& var, const char* primitive) {
  if (!var.defined()) schedule_error(str(primitive, ": undefined axis"));
  if (leaf_index(stage.node(), var) >= 0) return;
  for (const IterVar& v : stage.node().all_iter_vars)
    if (v.same_as(var))
      schedule_error(str(primitive, ": axis '", var.name(), "' of stage '", stage.name(),
                         "' was already split or fused; use the axes that replaced it"));
  schedule_error(
      str(primitive, ": '", var.name(), "' is not an axis of stage '", stage.name(), "'"));
}

bool reads(const Operation& consumer, const Operation& producer) {
  for (const Tensor& t : consumer.input_tensors())
    if (t.op().same_as(producer)) return true;
  return false;
}

AppliedStep split(Schedule&, Stage stage, const std::vector<Argument>& args,
                  const std::vector<std::string>& names) {
  auto [outer, inner] = split_loop(stage, args[0].axis, true, args[1].integer,
                                   name_or(names, 0, ""), name_or(names, 1, ""));
  return new_axes({outer, inner});
}

AppliedStep split_nparts(Schedule&, Stage stage, const std::vector<Argument>& args,
                         const std::vector<std::string>& names) {
  auto [outer, inner] = split_loop(stage, args[0].axis, false, args[1].integer,
                                   name_or(names, 0, ""), name_or(names, 1, ""));
  return new_axes({outer, inner});
}

// Two splits and a reorder, recorded as the one tile step.
AppliedStep tile(Schedule&, Stage stage, const std::vector<Argument>& args,
                 const std::vector<std::string>& names) {
  auto [xo, xi] = split_loop(stage, args[0].axis, true, args[2].integer, name_or(names, 0, ""),
                             name_or(names, 2, ""));
  auto [yo, yi] = split_loop(stage, args[1].axis, true, args[3].integer, name_or(names, 1, ""),
                             name_or(names, 3, ""));
  reorder_loops(stage, {xo, yo, xi, yi});
  return new_axes({xo, yo, xi, yi});
}

// As TVM, n axes fuse pairwise, outermost first; only the last gets the name.
// No axes make TVM's singleton: a new outermost data loop of extent 1.
AppliedStep fuse(Schedule&, Stage stage, const std::vector<Argument>& args,
                 const std::vector<std::string>& names) {
  const std::vector<IterVar>& axes = args[0].axes;
  if (axes.empty()) {
    StageNode& node = *stage.ref();
    // Replay finds a loop by its name: a second singleton gets another.
    std::string name = "singleton";
    for (int n = 1; std::any_of(node.all_iter_vars.begin(), node.all_iter_vars.end(),
                                [&](const IterVar& v) { return v.name() == name; });
         ++n)
      name = "singleton_" + std::to_string(n);
    IterVar one = make_leaf_var(node, name_or(names, 0, name), te::IterVarKind::DataPar);
    node.leaf_iter_vars.insert(node.leaf_iter_vars.begin(), one);
    node.relations.push_back(SingletonRelation{one});
    return new_axes({one});
  }
  // One axis is itself, as in TVM (s[C].fuse(*C.op.axis) of a 1-D stage).
  check_leaf(stage, axes[0], "fuse");
  IterVar fused = axes[0];
  for (size_t i = 1; i < axes.size(); ++i)
    fused = fuse_pair(stage, fused, axes[i], i + 1 == axes.size() ? name_or(names, 0, "") : "");
  return new_axes({fused});
}

AppliedStep reorder(Schedule&, Stage stage, const std::vector<Argument>& args,
                    const std::vector<std::string>&) {
  reorder_loops(stage, args[0].axes);
  return {};
}

AppliedStep parallel(Schedule&, Stage stage, const std::vector<Argument>& args,
                     const std::vector<std::string>&) {
  const IterVar& var = args[0].axis;
  check_leaf(stage, var, "parallel");
  if (var->kind == te::IterVarKind::CommReduce)
    schedule_error(str("parallel: '", var.name(), "' is a reduction axis of stage '", stage.name(),
                       "'; parallel iterations would race on the result (use rfactor)"));
  attr_of(stage, var).annotation = LoopAnnotation::Parallel;
  return {};
}

AppliedStep vectorize(Schedule&, Stage stage, const std::vector<Argument>& args,
                      const std::vector<std::string>&) {
  const IterVar& var = args[0].axis;
  check_leaf(stage, var, "vectorize");
  if (var->kind == te::IterVarKind::CommReduce)
    schedule_error(str("vectorize: cannot vectorize reduction axis '", var.name(), "' of stage '",
                       stage.name(), "'"));
  attr_of(stage, var).annotation = LoopAnnotation::Vectorize;
  return {};
}

AppliedStep unroll(Schedule&, Stage stage, const std::vector<Argument>& args,
                   const std::vector<std::string>&) {
  check_leaf(stage, args[0].axis, "unroll");
  attr_of(stage, args[0].axis).annotation = LoopAnnotation::Unroll;
  return {};
}

// Accepted so that GPU schedules parse, print and replay; the llvm code
// generator refuses a bound loop (codegen_stmt.cpp).
AppliedStep bind(Schedule&, Stage stage, const std::vector<Argument>& args,
                 const std::vector<std::string>&) {
  const IterVar& var = args[0].axis;
  const std::string& tag = args[1].text;
  check_leaf(stage, var, "bind");
  static const char* tags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                               "threadIdx.y", "threadIdx.z", "vthread"};
  if (std::find(std::begin(tags), std::end(tags), tag) == std::end(tags))
    schedule_error(str("bind: unknown thread tag '", tag, "'"));
  // Two loops of one stage on the same thread index would both run over
  // the same threads: only the diagonal of their product would be computed.
  // (A stage attached inside may bind the index again: a cooperative fetch.)
  if (tag != "vthread")
    for (const IterVar& leaf : stage.node().leaf_iter_vars) {
      auto it = stage.node().attrs.find(leaf);
      if (!leaf.same_as(var) && it != stage.node().attrs.end() &&
          it->second.annotation == LoopAnnotation::Bind && it->second.thread_tag == tag)
        schedule_error(str("bind: loop '", leaf.name(), "' of stage '", stage.name(),
                           "' is already bound to ", tag,
                           "; a stage binds a thread index to one loop (fuse the loops, then "
                           "bind the fused one)"));
    }
  IterVarAttr& attr = attr_of(stage, var);
  attr.annotation = LoopAnnotation::Bind;
  attr.thread_tag = tag;
  return {};
}

AppliedStep pragma(Schedule&, Stage stage, const std::vector<Argument>& args,
                   const std::vector<std::string>&) {
  check_leaf(stage, args[0].axis, "pragma");
  attr_of(stage, args[0].axis).pragmas.emplace_back(args[1].text, te::make_int(args[2].integer));
  return {};
}

AppliedStep prefetch(Schedule&, Stage stage, const std::vector<Argument>& args,
                     const std::vector<std::string>&) {
  const Tensor& tensor = args[0].tensor;
  const IterVar& var = args[1].axis;
  const int64_t offset = args[2].integer;
  check_leaf(stage, var, "prefetch");
  if (!tensor.defined()) schedule_error("prefetch: undefined tensor");
  if (tensor.op().as_compute())
    schedule_error(str("prefetch: '", tensor.name(), "' is computed by the kernel; only its ",
                       "inputs (placeholders) can be prefetched"));
  if (!reads(stage.op(), tensor.op()))
    schedule_error(str("prefetch: stage '", stage.name(), "' does not read '", tensor.name(), "'"));
  if (offset < 1)
    schedule_error(str("prefetch: the offset is how many iterations of '", var.name(),
                       "' ahead to fetch and must be at least 1, got ", offset));
  attr_of(stage, var).prefetches.push_back({tensor, offset});
  return {};
}

}  // namespace lathe::schedule::apply
