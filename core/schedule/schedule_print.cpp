// Prints a schedule's trace as schedule text, each step as its primitive's
// method with its arguments written by their parameters' kinds. The trace
// names axes by name only, so the printer replays it on a fresh schedule to
// learn which axis each name means at each step, and tracks the Python names
// its own output binds to write a reference the parser resolves to that very
// axis.
#include <cctype>
#include <map>
#include <set>

#include "schedule/schedule_parser.h"
#include "schedule/schedule_replay.h"
#include "schedule/schedule_text.h"

namespace lathe::schedule {
namespace {

using detail::ResolvedStep;

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return !detail::is_python_keyword(name);
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out + "\"";
}

[[noreturn]] void unprintable(size_t step, const std::string& why) {
  fail(str("print_schedule: step ", step + 1, " cannot be written as text: ", why));
}

class Printer {
 public:
  explicit Printer(const Schedule& s) : trace_(s.trace()) {}

  std::string run(Schedule& original) {
    if (trace_.empty() || trace_[0].primitive != "create_schedule")
      fail("print_schedule: the trace does not start with create_schedule");
    // Stages keep the op they were created for, so the original outputs, and
    // through them every original tensor, are still reachable.
    std::map<std::string, Tensor> outputs;
    for (const Stage& st : original.stages())
      outputs.emplace(st.node().origin_op->name, Tensor(st.node().origin_op));
    try {
      replayer_ = std::make_unique<detail::TraceReplayer>(trace_[0], outputs);
    } catch (const std::exception& e) {
      unprintable(0, e.what());
    }
    for (const Stage& st : replayer_->schedule().stages()) bind_tensor(st.name(), st);
    choose_schedule_name();

    std::vector<std::string> names;
    for (const std::string& out : detail::create_schedule_outputs(trace_[0]))
      names.push_back(tensor_ref(0, replayer_->schedule().find_stage(out)) + ".op");
    std::string ops = names.size() == 1 ? names[0] : "[" + join(names) + "]";
    std::string text = s_ + " = te.create_schedule(" + ops + ")\n";
    for (size_t i = 1; i < trace_.size(); ++i) text += step(i) + "\n";
    return text;
  }

 private:
  struct Binding {
    enum class Kind : uint8_t { Tensor, Axis, Other } kind = Kind::Other;
    const StageNode* stage = nullptr;  // Tensor: the stage it is the tensor of
    Tensor tensor;                     // Tensor: what C.op reads
    IterVar axis;
  };

  static std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  void bind_tensor(const std::string& name, const Stage& stage, Tensor tensor = Tensor()) {
    Binding b;
    b.kind = Binding::Kind::Tensor;
    b.stage = stage.ref().get();
    b.tensor = tensor.defined() ? tensor : Tensor(stage.node().origin_op);
    env_[name] = b;
    stage_names_[b.stage] = name;
  }

  // "s" unless the trace binds that name itself.
  void choose_schedule_name() {
    std::set<std::string> taken = {"te", "tvm"};
    for (const auto& [name, b] : env_) taken.insert(name);
    for (const ScheduleStep& st : trace_) taken.insert(st.results.begin(), st.results.end());
    for (const char* candidate : {"s", "sch", "sched", "schedule"})
      if (!taken.contains(candidate)) {
        s_ = candidate;
        return;
      }
    for (int i = 0;; ++i)
      if (!taken.contains("s" + std::to_string(i))) {
        s_ = "s" + std::to_string(i);
        return;
      }
  }

  // The Python name of the stage's tensor, as C in s[C].
  std::string tensor_ref(size_t step, const Stage& stage) {
    if (!stage.ref()) unprintable(step, "a stage it names is missing");
    auto it = stage_names_.find(stage.ref().get());
    if (it == stage_names_.end()) unprintable(step, "stage '" + stage.name() + "' has no name");
    const std::string& name = it->second;
    auto b = env_.find(name);
    if (!is_identifier(name))
      unprintable(step, "tensor name '" + name + "' is not a Python identifier");
    if (b == env_.end() || b->second.kind != Binding::Kind::Tensor ||
        b->second.stage != stage.ref().get())
      unprintable(step, "the name '" + name + "' of stage '" + stage.name() +
                            "' was rebound by an earlier step");
    return name;
  }

  std::string stage_ref(size_t step, const Stage& stage) {
    return s_ + "[" + tensor_ref(step, stage) + "]";
  }

  // A name bound to the axis; else the root axis through its tensor; else
  // its place among the stage's leaves.
  std::string axis_ref(size_t step, const Stage& stage, const IterVar& v) {
    auto b = env_.find(v.name());
    if (b != env_.end() && b->second.kind == Binding::Kind::Axis && b->second.axis.same_as(v))
      return v.name();
    std::string tensor = tensor_ref(step, stage);
    auto index_in = [&](const std::vector<IterVar>& list) {
      for (size_t i = 0; i < list.size(); ++i)
        if (list[i].same_as(v)) return static_cast<int>(i);
      return -1;
    };
    const te::ComputeOpNode* c = env_[tensor].tensor.op().as_compute();
    if (c && index_in(c->axis) >= 0) return str(tensor, ".op.axis[", index_in(c->axis), "]");
    if (c && index_in(c->reduce_axis) >= 0)
      return str(tensor, ".op.reduce_axis[", index_in(c->reduce_axis), "]");
    std::string st = stage_ref(step, stage);
    if (index_in(stage.axis()) >= 0) return str(st, ".op.axis[", index_in(stage.axis()), "]");
    if (index_in(stage.reduce_axis()) >= 0)
      return str(st, ".op.reduce_axis[", index_in(stage.reduce_axis()), "]");
    int leaf = index_in(stage.node().leaf_iter_vars);
    if (leaf >= 0) return str(st, ".leaf_iter_vars[", leaf, "]");
    unprintable(step, "axis '" + v.name() + "' cannot be named");
  }

  std::string results(size_t step, const ScheduleStep& st) {
    for (const std::string& r : st.results) {
      if (!is_identifier(r)) unprintable(step, "'" + r + "' is not a Python identifier");
      if (r == "te" || r == "tvm") unprintable(step, "it binds the module name '" + r + "'");
    }
    return join(st.results) + " = ";
  }

  // One argument as the text writes it, by its parameter's kind.
  std::string argument(size_t i, const ResolvedStep& r, const Param& param, const Argument& a,
                       const Stage& attach_stage) {
    switch (param.kind) {
      case ParamKind::Axis:
      case ParamKind::DataAxis:
        return axis_ref(i, r.stage, a.axis);
      case ParamKind::AttachAxis:
        return axis_ref(i, attach_stage, a.axis);
      case ParamKind::Axes: {
        std::vector<std::string> axes;
        for (const IterVar& v : a.axes) axes.push_back(axis_ref(i, r.stage, v));
        return join(axes);
      }
      case ParamKind::Int:
      case ParamKind::Dim:
        return std::to_string(a.integer);
      case ParamKind::String:
        return quote(a.text);
      case ParamKind::ThreadTag:
        return "te.thread_axis(" + quote(a.text) + ")";
      case ParamKind::Stage:
        return stage_ref(i, a.stage);
      case ParamKind::Tensor:
        return tensor_ref(i, replayer_->schedule().stage_of(a.tensor.op()));
      case ParamKind::Tensors: {
        std::vector<std::string> tensors;
        for (const Tensor& t : a.tensors)
          tensors.push_back(tensor_ref(i, replayer_->schedule().stage_of(t.op())));
        return "[" + join(tensors) + "]";
      }
      case ParamKind::Subject:
        return tensor_ref(i, r.stage);
    }
    unprintable(i, str("parameter '", param.name, "' has no text form"));
  }

  std::string step(size_t i) {
    const ScheduleStep& st = trace_[i];
    ResolvedStep r;
    try {
      r = replayer_->resolve(st);
    } catch (const std::exception& e) {
      unprintable(i, e.what());
    }
    const Primitive& p = *r.primitive;
    std::vector<std::string> args;
    Stage attach_stage;
    for (size_t k = 0; k < p.params.size(); ++k) {
      const Param& param = p.params[k];
      const Argument& a = r.args[k];
      if (param.kind == ParamKind::Stage) attach_stage = a.stage;
      if (param.default_int && a.integer == *param.default_int) continue;
      std::string text = argument(i, r, param, a, attach_stage);
      args.push_back(param.keyword ? param.name + ("=" + text) : text);
    }
    std::string line = st.results.empty() ? "" : results(i, st);
    line += (p.receiver == Receiver::Stage ? stage_ref(i, r.stage) : s_) + "." + p.method + "(" +
            join(args) + ")";
    AppliedStep applied;
    try {
      applied = replayer_->apply(st, r);
    } catch (const std::exception& e) {
      unprintable(i, e.what());
    }
    for (size_t k = 0; k < applied.axes.size(); ++k) {
      Binding b;
      b.kind = Binding::Kind::Axis;
      b.axis = applied.axes[k];
      env_[st.results[k]] = b;
    }
    if (applied.tensor.defined())
      bind_tensor(st.results[0], replayer_->schedule().stage_of(applied.tensor.op()),
                  applied.tensor);
    return line;
  }

  const std::vector<ScheduleStep>& trace_;
  std::unique_ptr<detail::TraceReplayer> replayer_;
  std::map<std::string, Binding> env_;
  std::map<const StageNode*, std::string> stage_names_;
  std::string s_ = "s";
};

}  // namespace

std::string print_schedule(const Schedule& s) {
  // stages() only reads; it is not const because Stage handles can mutate.
  return Printer(s).run(const_cast<Schedule&>(s));
}

}  // namespace lathe::schedule
