// The table of schedule primitives, and what is derived from it alone: the
// trace step a primitive records and the Python signature a completion shows.
#include <algorithm>

#include "schedule/apply.h"
#include "schedule/primitives.h"
#include "support/error.h"

namespace lathe::schedule {
namespace {

using K = ParamKind;
using R = Receiver;

// In the order of TVM's te.Stage / te.Schedule documentation. Laid out by
// hand, one primitive a paragraph: name, method, receiver; parameters;
// what it returns; its apply function.
// clang-format off
const std::vector<Primitive> kPrimitives = {
    {"split", "split", R::Stage,
     {{"parent", K::Axis}, {"factor", K::Int, true}},
     Returns::Axes, {"outer", "inner"}, apply::split},
    {"split_nparts", "split", R::Stage,
     {{"parent", K::Axis}, {"nparts", K::Int, true}},
     Returns::Axes, {"outer", "inner"}, apply::split_nparts},
    {"tile", "tile", R::Stage,
     {{"x_parent", K::Axis}, {"y_parent", K::Axis}, {"x_factor", K::Int, true},
      {"y_factor", K::Int, true}},
     Returns::Axes, {"x_outer", "y_outer", "x_inner", "y_inner"}, apply::tile},
    {"fuse", "fuse", R::Stage,
     {{.name = "args", .kind = K::Axes, .min_count = 0}},
     Returns::Axis, {"fused"}, apply::fuse},
    {"reorder", "reorder", R::Stage,
     {{"args", K::Axes}},
     Returns::Nothing, {}, apply::reorder},
    {"parallel", "parallel", R::Stage,
     {{"var", K::Axis}},
     Returns::Nothing, {}, apply::parallel},
    {"vectorize", "vectorize", R::Stage,
     {{"var", K::Axis}},
     Returns::Nothing, {}, apply::vectorize},
    {"unroll", "unroll", R::Stage,
     {{"var", K::Axis}},
     Returns::Nothing, {}, apply::unroll},
    {"compute_at", "compute_at", R::Stage,
     {{"parent", K::Stage}, {"scope", K::AttachAxis}},
     Returns::Nothing, {}, apply::compute_at},
    {"compute_inline", "compute_inline", R::Stage,
     {},
     Returns::Nothing, {}, apply::compute_inline},
    {"compute_root", "compute_root", R::Stage,
     {},
     Returns::Nothing, {}, apply::compute_root},
    {"cache_read", "cache_read", R::Schedule,
     {{"tensor", K::Subject}, {"scope", K::String}, {"readers", K::Tensors}},
     Returns::Tensor, {"cache"}, apply::cache_read},
    {"cache_write", "cache_write", R::Schedule,
     {{"tensor", K::Subject}, {"scope", K::String}},
     Returns::Tensor, {"cache"}, apply::cache_write},
    {"rfactor", "rfactor", R::Schedule,
     {{"tensor", K::Subject}, {"axis", K::Axis},
      {.name = "factor_axis", .kind = K::Dim, .keyword = true, .default_int = 0}},
     Returns::Tensor, {"factored"}, apply::rfactor},
    {"storage_align", "storage_align", R::Stage,
     {{"axis", K::DataAxis}, {"factor", K::Int}, {"offset", K::Int}},
     Returns::Nothing, {}, apply::storage_align},
    {"pragma", "pragma", R::Stage,
     {{"var", K::Axis}, {"pragma_type", K::String}, {"pragma_value", K::Int}},
     Returns::Nothing, {}, apply::pragma},
    {"prefetch", "prefetch", R::Stage,
     {{"tensor", K::Tensor}, {"var", K::Axis}, {"offset", K::Int}},
     Returns::Nothing, {}, apply::prefetch},
    {"bind", "bind", R::Stage,
     {{"ivar", K::Axis}, {"thread_ivar", K::ThreadTag}},
     Returns::Nothing, {}, apply::bind},
    {"set_scope", "set_scope", R::Stage,
     {{"scope", K::String}},
     Returns::Nothing, {}, apply::set_scope},
    // The intrinsic by its declared name (te/tensor_intrinsic.h), where TVM
    // passes a TensorIntrin object.
    {"tensorize", "tensorize", R::Stage,
     {{"var", K::Axis}, {"tensor_intrin", K::String}},
     Returns::Nothing, {}, apply::tensorize},
};
// clang-format on

// TVM methods the text may name that Lathe refuses, each with the reason.
const std::vector<RejectedMethod> kRejected = {
    {"double_buffer", R::Stage, "there are no asynchronous copies on the CPU for it to overlap"},
    {"env_threads", R::Stage, "it binds GPU threads"},
    {"set_store_predicate", R::Stage, "it is not implemented"},
    {"transform_layout", R::Stage, "the graph's layout pass chooses layouts"},
    {"rolling_buffer", R::Stage, "it is not implemented"},
    {"set_axis_separators", R::Stage, "buffers are flat"},
    {"emit", R::Stage, "it is not implemented"},
    {"normalize", R::Schedule, "lowering starts every loop at zero"},
    {"create_group", R::Schedule, "it is not implemented"},
    {"stages", R::Schedule, "the text names a stage as s[C]"},
    {"outputs", R::Schedule, "the text names tensors directly"},
    {"stage_map", R::Schedule, "the text names a stage as s[C]"},
    {"groups", R::Schedule, "it is not implemented"},
    {"reverse_cache_read", R::Schedule, "it is not implemented"},
    {"cache_write_multiple", R::Schedule, "cache_write takes one tensor"},
};

ScheduleStep make_step(const Primitive& p, const Stage& stage, const std::vector<Argument>& args,
                       std::vector<std::string> results) {
  ScheduleStep step;
  step.primitive = p.name;
  step.stage = stage.name();
  for (size_t i = 0; i < p.params.size(); ++i) {
    const Argument& a = args[i];
    switch (p.params[i].kind) {
      case K::Axis:
      case K::DataAxis:
      case K::AttachAxis:
        step.axes.push_back(a.axis.name());
        break;
      case K::Axes:
        for (const IterVar& v : a.axes) step.axes.push_back(v.name());
        break;
      case K::Int:
      case K::Dim:
        step.ints.push_back(a.integer);
        break;
      case K::String:
      case K::ThreadTag:
        step.strings.push_back(a.text);
        break;
      case K::Stage:
        step.strings.push_back(a.stage.name());
        break;
      case K::Tensor:
        step.strings.push_back(a.tensor.name());
        break;
      case K::Tensors:
        for (const Tensor& t : a.tensors) step.strings.push_back(t.name());
        break;
      case K::Subject:
        step.stage = a.tensor.name();
        break;
    }
  }
  step.results = std::move(results);
  return step;
}

}  // namespace

const std::vector<Primitive>& primitives() {
  return kPrimitives;
}

const Primitive* find_primitive(const std::string& name) {
  for (const Primitive& p : kPrimitives)
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<const Primitive*> method_primitives(Receiver receiver, const std::string& method) {
  std::vector<const Primitive*> found;
  for (const Primitive& p : kPrimitives)
    if (p.receiver == receiver && method == p.method) found.push_back(&p);
  return found;
}

AppliedStep apply_primitive(Schedule& s, const Primitive& p, const Stage& stage,
                            const std::vector<Argument>& args,
                            const std::vector<std::string>& names) {
  LATHE_CHECK(args.size() == p.params.size(), p.name, " takes ", p.params.size(),
              " arguments, got ", args.size());
  Stage target = stage;
  if (p.receiver == Receiver::Schedule) {
    for (size_t i = 0; i < p.params.size(); ++i)
      if (p.params[i].kind == K::Subject) {
        if (!args[i].tensor.defined()) apply::schedule_error(str(p.name, ": undefined tensor"));
        target = s.stage_of(args[i].tensor.op());
      }
  }
  LATHE_CHECK(target.ref(), p.name, " is applied to no stage");
  for (size_t i = 0; i < p.params.size(); ++i) {
    const Param& param = p.params[i];
    if ((param.kind == K::Axes && args[i].axes.size() < static_cast<size_t>(param.min_count)) ||
        (param.kind == K::Tensors && args[i].tensors.size() < static_cast<size_t>(param.min_count)))
      apply::schedule_error(str(p.name, ": '", param.name, "' needs at least ", param.min_count,
                                param.kind == K::Axes ? " axes" : " tensors"));
  }
  std::vector<std::string> given = names;
  given.resize(p.results.size());
  const std::string stage_name = target.name();
  AppliedStep applied = p.apply(s, target, args, given);
  ScheduleStep step = make_step(p, target, args, applied.names);
  if (p.receiver == Receiver::Stage) step.stage = stage_name;
  s.record(std::move(step));
  return applied;
}

const std::vector<RejectedMethod>& rejected_methods() {
  return kRejected;
}

const RejectedMethod* find_rejected_method(Receiver receiver, const std::string& name) {
  for (const RejectedMethod& m : kRejected)
    if (m.receiver == receiver && name == m.name) return &m;
  return nullptr;
}

std::vector<MethodSignature> method_signatures() {
  std::vector<MethodSignature> out;
  for (const Primitive& p : kPrimitives) {
    if (std::any_of(out.begin(), out.end(),
                    [&](const MethodSignature& m) { return m.method == p.method; }))
      continue;
    // Entries sharing a method (split, split_nparts) each add their own
    // parameters, optional in the method's signature.
    std::vector<const Primitive*> overloads = method_primitives(p.receiver, p.method);
    std::vector<std::string> params;
    auto in_all = [&](const char* name) {
      return std::all_of(overloads.begin(), overloads.end(), [&](const Primitive* o) {
        return std::any_of(o->params.begin(), o->params.end(),
                           [&](const Param& q) { return std::string(q.name) == name; });
      });
    };
    for (const Primitive* o : overloads)
      for (const Param& q : o->params) {
        std::string text = q.kind == K::Axes ? std::string("*") + q.name : q.name;
        if (q.default_int)
          text += "=" + std::to_string(*q.default_int);
        else if (!in_all(q.name))
          text += "=None";
        if (std::find(params.begin(), params.end(), text) == params.end()) params.push_back(text);
      }
    std::string signature = p.receiver == R::Schedule ? "s." : "";
    signature += p.method;
    signature += "(";
    for (size_t i = 0; i < params.size(); ++i) signature += (i ? ", " : "") + params[i];
    signature += ")";
    for (size_t i = 0; i < p.results.size(); ++i)
      signature += (i ? ", " : " → ") + std::string(p.results[i]);
    out.push_back({p.method, p.receiver, signature});
  }
  return out;
}

}  // namespace lathe::schedule
