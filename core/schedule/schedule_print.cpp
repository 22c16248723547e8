// Prints a schedule's trace as schedule text. The trace names axes by name
// only, so the printer replays it on a fresh schedule to learn which axis
// each name means at each step, and tracks the Python names its own output
// binds to write a reference the parser resolves to that very axis.
#include <cctype>
#include <map>
#include <set>

#include "schedule/schedule_parser.h"
#include "schedule/schedule_replay.h"
#include "schedule/schedule_text.h"

namespace lathe::schedule {
namespace {

using detail::AppliedStep;
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

  std::string step(size_t i) {
    const ScheduleStep& st = trace_[i];
    ResolvedStep r;
    try {
      r = replayer_->resolve(st);
    } catch (const std::exception& e) {
      unprintable(i, e.what());
    }
    const std::string& p = st.primitive;
    auto axis = [&](size_t k) { return axis_ref(i, r.stage, r.axes[k]); };
    std::string line;
    if (p == "split" || p == "split_nparts") {
      line = results(i, st) + stage_ref(i, r.stage) + ".split(" + axis(0) +
             (p == "split" ? ", factor=" : ", nparts=") + std::to_string(st.ints[0]) + ")";
    } else if (p == "tile") {
      line = results(i, st) + stage_ref(i, r.stage) + ".tile(" + axis(0) + ", " + axis(1) +
             ", x_factor=" + std::to_string(st.ints[0]) +
             ", y_factor=" + std::to_string(st.ints[1]) + ")";
    } else if (p == "fuse") {
      line = results(i, st) + stage_ref(i, r.stage) + ".fuse(" + axis(0) + ", " + axis(1) + ")";
    } else if (p == "reorder") {
      std::vector<std::string> axes;
      for (size_t k = 0; k < r.axes.size(); ++k) axes.push_back(axis(k));
      line = stage_ref(i, r.stage) + ".reorder(" + join(axes) + ")";
    } else if (p == "parallel" || p == "vectorize" || p == "unroll") {
      line = stage_ref(i, r.stage) + "." + p + "(" + axis(0) + ")";
    } else if (p == "bind") {
      line = stage_ref(i, r.stage) + ".bind(" + axis(0) + ", te.thread_axis(" +
             quote(st.strings[0]) + "))";
    } else if (p == "pragma") {
      line = stage_ref(i, r.stage) + ".pragma(" + axis(0) + ", " + quote(st.strings[0]) + ", " +
             std::to_string(st.ints[0]) + ")";
    } else if (p == "prefetch") {
      line = stage_ref(i, r.stage) + ".prefetch(" + tensor_ref(i, r.other) + ", " + axis(0) + ", " +
             std::to_string(st.ints[0]) + ")";
    } else if (p == "compute_at") {
      line = stage_ref(i, r.stage) + ".compute_at(" + stage_ref(i, r.other) + ", " +
             axis_ref(i, r.other, r.axes[0]) + ")";
    } else if (p == "compute_inline" || p == "compute_root") {
      line = stage_ref(i, r.stage) + "." + p + "()";
    } else if (p == "storage_align") {
      line = stage_ref(i, r.stage) + ".storage_align(" + axis(0) + ", " +
             std::to_string(st.ints[0]) + ", " + std::to_string(st.ints[1]) + ")";
    } else if (p == "cache_read") {
      std::vector<std::string> readers;
      for (const Stage& reader : r.readers) readers.push_back(tensor_ref(i, reader));
      line = results(i, st) + s_ + ".cache_read(" + tensor_ref(i, r.stage) + ", " +
             quote(st.strings[0]) + ", [" + join(readers) + "])";
    } else if (p == "cache_write") {
      line = results(i, st) + s_ + ".cache_write(" + tensor_ref(i, r.stage) + ", " +
             quote(st.strings[0]) + ")";
    } else if (p == "rfactor") {
      line = results(i, st) + s_ + ".rfactor(" + tensor_ref(i, r.stage) + ", " + axis(0) +
             (st.ints[0] != 0 ? ", factor_axis=" + std::to_string(st.ints[0]) : "") + ")";
    } else {
      unprintable(i, "unknown primitive '" + p + "'");
    }
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
