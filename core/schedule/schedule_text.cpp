// Executes parsed schedule text on a Schedule, Python-style: every expression
// evaluates to a value (tensor, stage, axis, list ...) and method calls on
// stages and the schedule call the C++ primitives, with the names an
// assignment binds passed on as the new axes' and tensors' names.
#include "schedule/schedule_text.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "schedule/schedule_parser.h"
#include "schedule/schedule_replay.h"

namespace lathe::schedule {
namespace {

using detail::Node;
using detail::NodeKind;
using detail::Pos;
using detail::Statement;

std::string join_diagnostics(const std::vector<ScheduleDiagnostic>& diagnostics) {
  std::string text;
  for (const ScheduleDiagnostic& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.to_string();
  }
  return text;
}

// Not a std::exception, so that the statement-level handlers that map
// ScheduleError and other failures to the statement never swallow it.
struct SemanticError {
  Pos pos;
  std::string message;
};

[[noreturn]] void error_at(Pos pos, std::string message) {
  throw SemanticError{pos, std::move(message)};
}

struct Value {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Str,
    Tensor,
    Op,
    Schedule,
    Stage,
    Axis,
    ThreadAxis,
    List,
    Module,
    Method
  };
  Kind kind = Kind::None;
  int64_t i = 0;
  std::string s;  // Str; ThreadAxis's tag; Module's and Method's name
  Tensor tensor;
  Operation op;
  Schedule* schedule = nullptr;
  Stage stage;
  IterVar axis;
  std::vector<Value> items;
  std::shared_ptr<Value> self;  // Method's receiver

  static Value of_int(int64_t v) {
    Value x;
    x.kind = Kind::Int;
    x.i = v;
    return x;
  }
  static Value of_str(std::string v) {
    Value x;
    x.kind = Kind::Str;
    x.s = std::move(v);
    return x;
  }
  static Value of_axis(IterVar v) {
    Value x;
    x.kind = Kind::Axis;
    x.axis = std::move(v);
    return x;
  }
  static Value of_axes(const std::vector<IterVar>& vs) {
    Value x;
    x.kind = Kind::List;
    for (const IterVar& v : vs) x.items.push_back(of_axis(v));
    return x;
  }
  static Value of_tensor(Tensor t) {
    Value x;
    x.kind = Kind::Tensor;
    x.tensor = std::move(t);
    return x;
  }
  static Value of_op(Operation op) {
    Value x;
    x.kind = Kind::Op;
    x.op = std::move(op);
    return x;
  }
  static Value of_stage(Stage st) {
    Value x;
    x.kind = Kind::Stage;
    x.stage = std::move(st);
    return x;
  }
  static Value module(std::string name) {
    Value x;
    x.kind = Kind::Module;
    x.s = std::move(name);
    return x;
  }
  static Value method(const Value& self, std::string name) {
    Value x;
    x.kind = Kind::Method;
    x.s = std::move(name);
    x.self = std::make_shared<Value>(self);
    return x;
  }
};

// For messages: "axis 'xo'", "tensor 'A'", "an integer" ...
std::string describe(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return "a boolean";
    case Value::Kind::Int:
      return str("the integer ", v.i);
    case Value::Kind::Str:
      return "the string \"" + v.s + "\"";
    case Value::Kind::Tensor:
      return "tensor '" + v.tensor.name() + "'";
    case Value::Kind::Op:
      return "operation '" + v.op->name + "'";
    case Value::Kind::Schedule:
      return "the schedule";
    case Value::Kind::Stage:
      return "stage '" + v.stage.name() + "'";
    case Value::Kind::Axis:
      return "axis '" + v.axis.name() + "'";
    case Value::Kind::ThreadAxis:
      return "thread axis \"" + v.s + "\"";
    case Value::Kind::List:
      return str("a list of ", v.items.size());
    case Value::Kind::Module:
      return "module '" + v.s + "'";
    case Value::Kind::Method:
      return "method '" + v.s + "'";
  }
  return "?";
}

struct Arg {
  Value value;
  Pos pos;              // of the argument's value
  std::string keyword;  // "" when positional
  Pos keyword_pos;
};

// A call being evaluated: its name for messages and where to report.
struct Call {
  std::string name;  // "split", "te.create_schedule" ...
  Pos pos;           // of the called name
  const std::vector<Arg>& args;
  // Names the statement's assignment binds, when this call is its value.
  const std::vector<std::string>* targets;
};

// Python's argument binding against named parameters; an absent argument,
// or an explicit None, is nullptr.
std::vector<const Arg*> bind_args(const Call& c, const std::vector<const char*>& params,
                                  size_t required) {
  std::vector<const Arg*> bound(params.size(), nullptr);
  std::vector<bool> given(params.size(), false);
  size_t positional = 0;
  for (const Arg& a : c.args) {
    size_t index = 0;
    if (a.keyword.empty()) {
      index = positional++;
      if (index >= params.size())
        error_at(a.pos, str(c.name, "() takes ", params.size(), " argument",
                            params.size() == 1 ? "" : "s", ", got more"));
    } else {
      auto it =
          std::find_if(params.begin(), params.end(), [&](const char* p) { return a.keyword == p; });
      if (it == params.end())
        error_at(a.keyword_pos,
                 str(c.name, "() got an unexpected keyword argument '", a.keyword, "'"));
      index = static_cast<size_t>(it - params.begin());
      if (given[index])
        error_at(a.keyword_pos,
                 str(c.name, "() got multiple values for argument '", a.keyword, "'"));
    }
    given[index] = true;
    if (a.value.kind != Value::Kind::None) bound[index] = &a;
  }
  for (size_t i = 0; i < required; ++i)
    if (!bound[i]) error_at(c.pos, str(c.name, "() is missing its argument '", params[i], "'"));
  return bound;
}

IterVar want_axis(const Call& c, const Arg& a) {
  if (a.value.kind != Value::Kind::Axis)
    error_at(a.pos, str(c.name, "() expects an axis here, got ", describe(a.value)));
  return a.value.axis;
}

int64_t want_int(const Call& c, const Arg& a) {
  if (a.value.kind != Value::Kind::Int)
    error_at(a.pos, str(c.name, "() expects an integer here, got ", describe(a.value)));
  return a.value.i;
}

std::string want_str(const Call& c, const Arg& a) {
  if (a.value.kind != Value::Kind::Str)
    error_at(a.pos, str(c.name, "() expects a string here, got ", describe(a.value)));
  return a.value.s;
}

Tensor as_tensor(const Value& v) {
  if (v.kind == Value::Kind::Tensor) return v.tensor;
  if (v.kind == Value::Kind::Op) return Tensor(v.op);
  return Tensor();
}

Tensor want_tensor(const Call& c, const Arg& a) {
  Tensor t = as_tensor(a.value);
  if (!t.defined())
    error_at(a.pos, str(c.name, "() expects a tensor here, got ", describe(a.value)));
  return t;
}

// fuse(*args) and reorder(*args): positional axes only.
std::vector<IterVar> axis_varargs(const Call& c, size_t minimum) {
  std::vector<IterVar> axes;
  for (const Arg& a : c.args) {
    if (!a.keyword.empty()) error_at(a.keyword_pos, str(c.name, "() takes no keyword arguments"));
    axes.push_back(want_axis(c, a));
  }
  if (axes.size() < minimum)
    error_at(c.pos, str(c.name, "() needs at least ", minimum, " ax", minimum == 1 ? "is" : "es"));
  return axes;
}

// The name an assignment gives a call's single result, or "" for the default.
std::string target_name(const Call& c, size_t count, size_t index) {
  if (!c.targets || c.targets->size() != count) return "";
  return (*c.targets)[index];
}

bool contains(std::initializer_list<const char*> names, const std::string& name) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

const std::initializer_list<const char*> kStageMethods = {
    "split", "tile",   "fuse",     "reorder",    "parallel",       "vectorize",    "unroll",
    "bind",  "pragma", "prefetch", "compute_at", "compute_inline", "compute_root", "storage_align"};
// TVM Stage methods Lathe does not implement: named so the message says so.
const std::initializer_list<const char*> kUnsupportedStageMethods = {
    "tensorize",      "double_buffer",       "set_scope",
    "env_threads",    "set_store_predicate", "transform_layout",
    "rolling_buffer", "set_axis_separators", "emit"};
const std::initializer_list<const char*> kScheduleMethods = {"cache_read", "cache_write",
                                                             "rfactor"};
const std::initializer_list<const char*> kUnsupportedScheduleMethods = {
    "normalize",          "create_group",        "stages", "outputs", "stage_map", "groups",
    "reverse_cache_read", "cache_write_multiple"};
const std::initializer_list<const char*> kTeNonSchedule = {
    "compute",  "placeholder", "reduce_axis", "sum",   "max",   "min",  "var",
    "size_var", "extern",      "scan",        "const", "lower", "build"};

class Interpreter {
 public:
  explicit Interpreter(const std::map<std::string, Tensor>& tensors) {
    env_["te"] = Value::module("te");
    env_["tvm"] = Value::module("tvm");
    for (const auto& [name, t] : tensors) env_[name] = Value::of_tensor(t);
  }

  std::unique_ptr<Schedule> run(const std::vector<Statement>& statements) {
    for (const Statement& st : statements) execute(st);
    if (!schedule_)
      error_at({1, 1},
               "the text never creates a schedule: start with s = te.create_schedule(C.op)");
    return std::move(schedule_);
  }

 private:
  void execute(const Statement& st) {
    try {
      switch (st.kind) {
        case Statement::Kind::Import:
          import(st);
          break;
        case Statement::Kind::Expr:
          eval(*st.value, nullptr);
          break;
        case Statement::Kind::Assign:
          assign(st);
          break;
      }
    } catch (const SemanticError&) {
      throw;
    } catch (const ScheduleError& e) {
      error_at(st.pos, e.what());
    } catch (const std::exception& e) {
      // A failure below the primitives' own checks is still this statement's.
      error_at(st.pos, e.what());
    }
  }

  void import(const Statement& st) {
    if (st.name.empty()) {  // import tvm / import tvm.te as te
      if (st.module != "tvm" && st.module != "tvm.te")
        error_at(st.pos, "only tvm and tvm.te can be imported");
      if (st.alias.empty())
        env_["tvm"] = Value::module("tvm");
      else
        env_[st.alias] = Value::module(st.module == "tvm" ? "tvm" : "te");
      return;
    }
    if (st.module != "tvm" || st.name != "te")
      error_at(st.pos, "only 'from tvm import te' can be imported");
    env_[st.alias.empty() ? "te" : st.alias] = Value::module("te");
  }

  void assign(const Statement& st) {
    std::vector<std::string> targets = st.targets;
    Value v = eval(*st.value, &targets);
    if (!st.unpack) {
      env_[st.targets[0]] = std::move(v);
      return;
    }
    if (v.kind != Value::Kind::List)
      error_at(st.target_pos[0],
               str("cannot unpack ", describe(v), " into ", st.targets.size(), " names"));
    if (v.items.size() != st.targets.size())
      error_at(st.target_pos[0],
               str("cannot unpack ", v.items.size(), " values into ", st.targets.size(), " names"));
    for (size_t i = 0; i < st.targets.size(); ++i) env_[st.targets[i]] = v.items[i];
  }

  Value eval(const Node& n, const std::vector<std::string>* targets) {
    switch (n.kind) {
      case NodeKind::Name:
        return lookup(n);
      case NodeKind::Int:
        return Value::of_int(n.int_value);
      case NodeKind::Float:
        error_at(n.pos, "floating-point numbers are not used by schedules; expected an integer");
      case NodeKind::Str:
        return Value::of_str(n.text);
      case NodeKind::Attr:
        return attribute(eval(*n.kids[0], nullptr), n.text, n.name_pos);
      case NodeKind::Index:
        return subscript(eval(*n.kids[0], nullptr), *n.kids[1]);
      case NodeKind::Call:
        return call(n, targets);
      case NodeKind::List:
      case NodeKind::Tuple: {
        Value list;
        list.kind = Value::Kind::List;
        for (const auto& k : n.kids) list.items.push_back(eval(*k, nullptr));
        return list;
      }
      case NodeKind::BinOp:
        return arithmetic(n);
      case NodeKind::Neg: {
        Value v = eval(*n.kids[0], nullptr);
        if (v.kind != Value::Kind::Int) error_at(n.pos, "'-' needs an integer, got " + describe(v));
        return Value::of_int(-v.i);
      }
    }
    error_at(n.pos, "unsupported expression");
  }

  Value lookup(const Node& n) {
    auto it = env_.find(n.text);
    if (it != env_.end()) return it->second;
    if (n.text == "None") return Value();
    if (n.text == "True" || n.text == "False") {
      Value b;
      b.kind = Value::Kind::Bool;
      b.i = n.text == "True";
      return b;
    }
    if (n.text == "print") error_at(n.pos, "print() is not part of the schedule language");
    error_at(n.pos, "name '" + n.text + "' is not defined");
  }

  Value arithmetic(const Node& n) {
    Value a = eval(*n.kids[0], nullptr), b = eval(*n.kids[1], nullptr);
    if (a.kind != Value::Kind::Int || b.kind != Value::Kind::Int)
      error_at(n.name_pos,
               str("'", n.text, "' needs integers, got ", describe(a), " and ", describe(b)));
    // Wrap-around is well defined on unsigned; a schedule never gets near it.
    auto wrap = [](uint64_t x) { return static_cast<int64_t>(x); };
    uint64_t x = static_cast<uint64_t>(a.i), y = static_cast<uint64_t>(b.i);
    if (n.text == "+") return Value::of_int(wrap(x + y));
    if (n.text == "-") return Value::of_int(wrap(x - y));
    if (n.text == "*") return Value::of_int(wrap(x * y));
    if (n.text == "/") error_at(n.name_pos, "'/' makes a float; use '//' for integer division");
    if (b.i == 0) error_at(n.name_pos, "integer division or modulo by zero");
    if (b.i == -1) return Value::of_int(n.text == "%" ? 0 : wrap(0 - x));
    int64_t q = a.i / b.i, r = a.i % b.i;
    if (r != 0 && ((r < 0) != (b.i < 0))) {  // Python floors
      q -= 1;
      r += b.i;
    }
    return Value::of_int(n.text == "%" ? r : q);
  }

  Value attribute(const Value& v, const std::string& name, Pos pos) {
    switch (v.kind) {
      case Value::Kind::Module:
        if (v.s == "tvm") {
          if (name == "te") return Value::module("te");
          error_at(pos, "tvm." + name + " is not part of the schedule language");
        }
        if (name == "create_schedule" || name == "thread_axis") return Value::method(v, name);
        if (contains(kTeNonSchedule, name))
          error_at(pos, "te." + name +
                            " is not part of the schedule language: the tensors "
                            "come from the compute definition");
        error_at(pos, "module 'te' has no attribute '" + name + "' in the schedule language");
      case Value::Kind::Tensor:
        if (name == "op") return Value::of_op(v.tensor.op());
        if (name == "name") return Value::of_str(v.tensor.name());
        if (name == "shape") {
          Value list;
          list.kind = Value::Kind::List;
          for (int64_t d : v.tensor.shape()) list.items.push_back(Value::of_int(d));
          return list;
        }
        break;
      case Value::Kind::Op:
        if (name == "axis" || name == "reduce_axis") {
          const te::ComputeOpNode* c = v.op.as_compute();
          if (!c) error_at(pos, "'" + v.op->name + "' is a placeholder: it has no " + name);
          return Value::of_axes(name == "axis" ? c->axis : c->reduce_axis);
        }
        if (name == "name") return Value::of_str(v.op->name);
        break;
      case Value::Kind::Schedule:
        if (contains(kScheduleMethods, name)) return Value::method(v, name);
        if (contains(kUnsupportedScheduleMethods, name))
          error_at(pos, "s." + name + " is not supported by Lathe");
        break;
      case Value::Kind::Stage:
        if (contains(kStageMethods, name)) return Value::method(v, name);
        if (name == "op") return Value::of_op(v.stage.op());
        if (name == "leaf_iter_vars") return Value::of_axes(v.stage.node().leaf_iter_vars);
        if (contains(kUnsupportedStageMethods, name))
          error_at(pos, "Stage." + name + " is not supported by Lathe");
        break;
      default:
        break;
    }
    error_at(pos, str(describe(v), " has no attribute '", name, "'"));
  }

  Value subscript(const Value& v, const Node& index_node) {
    Value index = eval(index_node, nullptr);
    Pos pos = index_node.pos;
    if (v.kind == Value::Kind::Schedule) {
      Tensor t = as_tensor(index);
      if (!t.defined())
        error_at(pos, "s[...] takes a tensor or an operation, got " + describe(index));
      try {
        return Value::of_stage(v.schedule->stage_of(t.op()));
      } catch (const ScheduleError&) {
        error_at(pos, "tensor '" + t.name() + "' is not part of the schedule");
      }
    }
    if (v.kind == Value::Kind::List) {
      if (index.kind != Value::Kind::Int)
        error_at(pos, "list indices must be integers, got " + describe(index));
      int64_t size = static_cast<int64_t>(v.items.size());
      int64_t i = index.i < 0 ? index.i + size : index.i;
      if (i < 0 || i >= size)
        error_at(pos, str("index ", index.i, " is out of range: the list has ", size, " item",
                          size == 1 ? "" : "s"));
      return v.items[static_cast<size_t>(i)];
    }
    if (v.kind == Value::Kind::Tensor)
      error_at(pos, "reading tensor elements is not part of the schedule language");
    error_at(pos, describe(v) + " cannot be indexed");
  }

  Value call(const Node& n, const std::vector<std::string>* targets) {
    Value fn = eval(*n.kids[0], nullptr);
    std::vector<Arg> args;
    for (size_t i = 1; i < n.kids.size(); ++i) {
      Arg a;
      a.value = eval(*n.kids[i], nullptr);
      a.pos = n.kids[i]->pos;
      a.keyword = n.keywords[i - 1];
      a.keyword_pos = n.keyword_pos[i - 1];
      args.push_back(std::move(a));
    }
    if (fn.kind != Value::Kind::Method) error_at(n.pos, describe(fn) + " is not callable");
    const Value& self = *fn.self;
    switch (self.kind) {
      case Value::Kind::Module: {
        Call c{"te." + fn.s, n.name_pos, args, targets};
        return fn.s == "create_schedule" ? create_schedule(c) : thread_axis(c);
      }
      case Value::Kind::Schedule: {
        Call c{fn.s, n.name_pos, args, targets};
        return schedule_method(c, *self.schedule);
      }
      case Value::Kind::Stage: {
        Call c{fn.s, n.name_pos, args, targets};
        return stage_method(c, self.stage);
      }
      default:
        error_at(n.pos, describe(fn) + " is not callable");
    }
  }

  Value create_schedule(const Call& c) {
    auto a = bind_args(c, {"ops"}, 1);
    if (schedule_)
      error_at(c.pos,
               "the text already created its schedule; only one te.create_schedule is "
               "allowed");
    std::vector<Operation> ops;
    const Value& v = a[0]->value;
    std::vector<Value> items = v.kind == Value::Kind::List ? v.items : std::vector<Value>{v};
    for (const Value& item : items) {
      Tensor t = as_tensor(item);
      if (!t.defined())
        error_at(a[0]->pos,
                 "te.create_schedule() expects output operations (C.op), got " + describe(item));
      ops.push_back(t.op());
    }
    if (ops.empty()) error_at(a[0]->pos, "te.create_schedule() needs at least one output");
    schedule_ = std::make_unique<Schedule>(ops);
    Value s;
    s.kind = Value::Kind::Schedule;
    s.schedule = schedule_.get();
    return s;
  }

  // te.thread_axis("blockIdx.x"): only the tag matters to bind.
  Value thread_axis(const Call& c) {
    auto a = bind_args(c, {"dom", "tag", "name", "span"}, 0);
    std::string tag;
    if (a[0]) {
      if (a[0]->value.kind != Value::Kind::Str)
        error_at(a[0]->pos, "te.thread_axis() with an extent is not supported; give the tag only");
      tag = a[0]->value.s;
      if (a[1]) error_at(a[1]->keyword_pos, "te.thread_axis() got two tags");
    } else if (a[1]) {
      tag = want_str(c, *a[1]);
    }
    if (tag.empty()) error_at(c.pos, "te.thread_axis() needs a tag such as \"threadIdx.x\"");
    if (a[2]) want_str(c, *a[2]);
    Value v;
    v.kind = Value::Kind::ThreadAxis;
    v.s = tag;
    return v;
  }

  Value schedule_method(const Call& c, Schedule& s) {
    if (c.name == "cache_read") {
      auto a = bind_args(c, {"tensor", "scope", "readers"}, 3);
      Tensor t = want_tensor(c, *a[0]);
      std::string scope = want_str(c, *a[1]);
      const Value& rv = a[2]->value;
      std::vector<Value> items = rv.kind == Value::Kind::List ? rv.items : std::vector<Value>{rv};
      std::vector<Operation> readers;
      for (const Value& r : items) {
        Tensor rt = as_tensor(r);
        if (!rt.defined())
          error_at(a[2]->pos,
                   "cache_read() expects reader tensors or operations, got " + describe(r));
        readers.push_back(rt.op());
      }
      return Value::of_tensor(s.cache_read(t, scope, readers, target_name(c, 1, 0)));
    }
    if (c.name == "cache_write") {
      auto a = bind_args(c, {"tensor", "scope"}, 2);
      if (a[0]->value.kind == Value::Kind::List)
        error_at(a[0]->pos, "cache_write() of several tensors is not supported");
      Tensor t = want_tensor(c, *a[0]);
      std::string scope = want_str(c, *a[1]);
      return Value::of_tensor(s.cache_write(t, scope, target_name(c, 1, 0)));
    }
    auto a = bind_args(c, {"tensor", "axis", "factor_axis"}, 2);
    Tensor t = want_tensor(c, *a[0]);
    IterVar axis = want_axis(c, *a[1]);
    int64_t factor_axis = a[2] ? want_int(c, *a[2]) : 0;
    if (factor_axis < 0 || factor_axis > std::numeric_limits<int>::max())
      error_at(a[2]->pos,
               str("rfactor() factor_axis must be a dimension index, got ", factor_axis));
    return Value::of_tensor(s.rfactor(t, axis, static_cast<int>(factor_axis),
                                      detail::rfactor_name(t.name(), target_name(c, 1, 0))));
  }

  Value stage_method(const Call& c, Stage stage) {
    const std::string& m = c.name;
    if (m == "split") {
      auto a = bind_args(c, {"parent", "factor", "nparts"}, 1);
      IterVar parent = want_axis(c, *a[0]);
      if (a[1] && a[2])
        error_at(a[2]->keyword.empty() ? a[2]->pos : a[2]->keyword_pos,
                 "split() takes factor or nparts, not both");
      if (!a[1] && !a[2]) error_at(c.pos, "split() needs factor= or nparts=");
      std::string outer = target_name(c, 2, 0), inner = target_name(c, 2, 1);
      auto [o, i] = a[1] ? stage.split(parent, want_int(c, *a[1]), outer, inner)
                         : stage.split_nparts(parent, want_int(c, *a[2]), outer, inner);
      return Value::of_axes({o, i});
    }
    if (m == "tile") {
      auto a = bind_args(c, {"x_parent", "y_parent", "x_factor", "y_factor"}, 4);
      IterVar x = want_axis(c, *a[0]), y = want_axis(c, *a[1]);
      int64_t xf = want_int(c, *a[2]), yf = want_int(c, *a[3]);
      std::vector<std::string> names;
      if (c.targets && c.targets->size() == 4) names = *c.targets;
      return Value::of_axes(stage.tile(x, y, xf, yf, names));
    }
    if (m == "fuse") {
      std::vector<IterVar> axes = axis_varargs(c, 2);
      // TVM fuses n axes pairwise, outermost first; only the last gets the name.
      IterVar fused = axes[0];
      for (size_t i = 1; i < axes.size(); ++i)
        fused = stage.fuse(fused, axes[i], i + 1 == axes.size() ? target_name(c, 1, 0) : "");
      return Value::of_axis(fused);
    }
    if (m == "reorder") {
      stage.reorder(axis_varargs(c, 1));
      return Value();
    }
    if (m == "parallel" || m == "vectorize" || m == "unroll") {
      auto a = bind_args(c, {"var"}, 1);
      IterVar v = want_axis(c, *a[0]);
      if (m == "parallel") stage.parallel(v);
      if (m == "vectorize") stage.vectorize(v);
      if (m == "unroll") stage.unroll(v);
      return Value();
    }
    if (m == "bind") {
      auto a = bind_args(c, {"ivar", "thread_ivar"}, 2);
      IterVar v = want_axis(c, *a[0]);
      if (a[1]->value.kind != Value::Kind::ThreadAxis)
        error_at(a[1]->pos,
                 "bind() expects te.thread_axis(\"...\") here, got " + describe(a[1]->value));
      stage.bind(v, a[1]->value.s);
      return Value();
    }
    if (m == "pragma") {
      auto a = bind_args(c, {"var", "pragma_type", "pragma_value"}, 2);
      IterVar v = want_axis(c, *a[0]);
      std::string key = want_str(c, *a[1]);
      if (!a[2]) error_at(c.pos, "pragma() needs an integer pragma_value");
      stage.pragma(v, key, te::make_int(want_int(c, *a[2])));
      return Value();
    }
    if (m == "prefetch") {
      auto a = bind_args(c, {"tensor", "var", "offset"}, 3);
      Tensor t = want_tensor(c, *a[0]);
      stage.prefetch(t, want_axis(c, *a[1]), want_int(c, *a[2]));
      return Value();
    }
    if (m == "compute_at") {
      auto a = bind_args(c, {"parent", "scope"}, 2);
      if (a[0]->value.kind != Value::Kind::Stage)
        error_at(a[0]->pos,
                 "compute_at() expects a stage (s[C]) here, got " + describe(a[0]->value));
      stage.compute_at(a[0]->value.stage, want_axis(c, *a[1]));
      return Value();
    }
    if (m == "compute_inline" || m == "compute_root") {
      bind_args(c, {}, 0);
      if (m == "compute_inline")
        stage.compute_inline();
      else
        stage.compute_root();
      return Value();
    }
    // storage_align
    auto a = bind_args(c, {"axis", "factor", "offset"}, 3);
    stage.storage_align(want_axis(c, *a[0]), want_int(c, *a[1]), want_int(c, *a[2]));
    return Value();
  }

  std::map<std::string, Value> env_;
  std::unique_ptr<Schedule> schedule_;
};

}  // namespace

std::string ScheduleDiagnostic::to_string() const {
  return str(line, ":", column, ": ", message);
}

ScheduleTextError::ScheduleTextError(std::vector<ScheduleDiagnostic> diagnostics)
    : Error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::unique_ptr<Schedule> parse_schedule(const std::string& text,
                                         const std::map<std::string, te::Tensor>& tensors) {
  detail::LexResult lexed = detail::lex_schedule(text);
  std::vector<ScheduleDiagnostic> parse_errors;
  std::vector<Statement> statements = detail::parse_statements(lexed.tokens, parse_errors);
  if (!lexed.errors.empty() || !parse_errors.empty()) {
    // One error per line. A lexical error comes first on its line: it is the
    // cause of what the parser then stumbles on (an unterminated string eats
    // the closing parenthesis).
    std::vector<ScheduleDiagnostic> errors = std::move(lexed.errors);
    for (ScheduleDiagnostic& d : parse_errors)
      if (std::none_of(errors.begin(), errors.end(),
                       [&](const auto& e) { return e.line == d.line; }))
        errors.push_back(std::move(d));
    std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    std::vector<ScheduleDiagnostic> first_per_line;
    for (const ScheduleDiagnostic& d : errors)
      if (first_per_line.empty() || first_per_line.back().line != d.line)
        first_per_line.push_back(d);
    throw ScheduleTextError(std::move(first_per_line));
  }
  for (const auto& [name, t] : tensors)
    if (!t.defined())
      throw ScheduleTextError({{1, 1, "tensor '" + name + "' of the environment is undefined"}});
  try {
    return Interpreter(tensors).run(statements);
  } catch (const SemanticError& e) {
    throw ScheduleTextError({{e.pos.line, e.pos.column, e.message}});
  }
}

}  // namespace lathe::schedule
