// Executes parsed schedule text on a Schedule, Python-style: every expression
// evaluates to a value (tensor, stage, axis, list ...) and method calls on
// stages and the schedule apply the primitives of the table (primitives.h),
// with the names an assignment binds passed on as the new axes' and tensors'
// names.
#include "schedule/schedule_text.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "schedule/primitives.h"
#include "schedule/schedule_parser.h"

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
                                  const std::vector<bool>& required) {
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
  for (size_t i = 0; i < params.size(); ++i)
    if (required[i] && !bound[i])
      error_at(c.pos, str(c.name, "() is missing its argument '", params[i], "'"));
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

bool contains(std::initializer_list<const char*> names, const std::string& name) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

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
        if (!method_primitives(Receiver::Schedule, name).empty()) return Value::method(v, name);
        if (const RejectedMethod* r = find_rejected_method(Receiver::Schedule, name))
          error_at(pos, str("s.", name, " is not supported by Lathe: ", r->reason));
        break;
      case Value::Kind::Stage:
        if (!method_primitives(Receiver::Stage, name).empty()) return Value::method(v, name);
        if (name == "op") return Value::of_op(v.stage.op());
        if (name == "leaf_iter_vars") return Value::of_axes(v.stage.node().leaf_iter_vars);
        if (const RejectedMethod* r = find_rejected_method(Receiver::Stage, name))
          error_at(pos, str("Stage.", name, " is not supported by Lathe: ", r->reason));
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
        return primitive_call(c, Receiver::Schedule, *self.schedule, Stage());
      }
      case Value::Kind::Stage: {
        Call c{fn.s, n.name_pos, args, targets};
        return primitive_call(c, Receiver::Stage, *schedule_, self.stage);
      }
      default:
        error_at(n.pos, describe(fn) + " is not callable");
    }
  }

  Value create_schedule(const Call& c) {
    auto a = bind_args(c, {"ops"}, {true});
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
    auto a = bind_args(c, {"dom", "tag", "name", "span"}, {false, false, false, false});
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

  // A call of a schedule primitive's method: binds the arguments against
  // the method's entries in the primitive table, converts each by its
  // parameter's kind (reporting a wrong kind at the argument) and applies it.
  Value primitive_call(const Call& c, Receiver receiver, Schedule& s, const Stage& stage) {
    std::vector<const Primitive*> overloads = method_primitives(receiver, c.name);
    const Primitive& p = choose_overload(c, overloads);
    std::vector<Argument> args;
    if (!p.params.empty() && p.params[0].kind == ParamKind::Axes) {
      args.push_back(varargs(c, p.params[0]));
    } else {
      std::vector<const Arg*> bound = bind_params(c, p.params);
      for (size_t i = 0; i < p.params.size(); ++i)
        args.push_back(bound[i] ? convert(c, p.params[i], *bound[i])
                                : Argument{.integer = p.params[i].default_int.value_or(0)});
    }
    std::vector<std::string> names;
    if (c.targets && c.targets->size() == p.results.size()) names = *c.targets;
    AppliedStep applied = apply_primitive(s, p, stage, args, names);
    switch (p.returns) {
      case Returns::Nothing:
        return Value();
      case Returns::Axis:
        return Value::of_axis(applied.axes[0]);
      case Returns::Axes:
        return Value::of_axes(applied.axes);
      case Returns::Tensor:
        return Value::of_tensor(applied.tensor);
    }
    return Value();
  }

  // The entry whose parameters the call gives: entries sharing a method
  // (split's factor= and nparts=) differ in the parameters only one has.
  const Primitive& choose_overload(const Call& c, const std::vector<const Primitive*>& overloads) {
    if (overloads.size() == 1) return *overloads[0];
    std::vector<const char*> all;  // every entry's parameters, in order
    for (const Primitive* o : overloads)
      for (const Param& q : o->params)
        if (std::none_of(all.begin(), all.end(), [&](const char* n) { return !strcmp(n, q.name); }))
          all.push_back(q.name);
    auto has = [](const Primitive* o, const char* name) {
      return std::any_of(o->params.begin(), o->params.end(),
                         [&](const Param& q) { return !strcmp(q.name, name); });
    };
    std::vector<bool> required(all.size(), false);
    std::vector<const Arg*> bound = bind_args(c, all, required);
    std::vector<const char*> own;  // the parameters that tell the entries apart
    for (const char* name : all)
      if (!std::all_of(overloads.begin(), overloads.end(),
                       [&](const Primitive* o) { return has(o, name); }))
        own.push_back(name);
    const Primitive* chosen = nullptr;
    const Arg* second = nullptr;
    for (size_t i = 0; i < all.size(); ++i) {
      if (!bound[i] || std::find(own.begin(), own.end(), all[i]) == own.end()) continue;
      for (const Primitive* o : overloads)
        if (has(o, all[i])) {
          if (chosen && chosen != o && !second) second = bound[i];
          if (!chosen) chosen = o;
        }
    }
    std::string choices;
    for (size_t i = 0; i < own.size(); ++i) choices += (i ? " or " : "") + std::string(own[i]);
    if (second)
      error_at(second->keyword.empty() ? second->pos : second->keyword_pos,
               str(c.name, "() takes ", choices, ", not both"));
    if (!chosen) {
      std::string needs;
      for (size_t i = 0; i < own.size(); ++i)
        needs += (i ? " or " : "") + std::string(own[i]) + "=";
      error_at(c.pos, str(c.name, "() needs ", needs));
    }
    return *chosen;
  }

  // Python's binding of the call's arguments to the entry's parameters; a
  // parameter with a default may be left out.
  std::vector<const Arg*> bind_params(const Call& c, const std::vector<Param>& params) {
    std::vector<const char*> names;
    std::vector<bool> required;
    for (const Param& q : params) {
      names.push_back(q.name);
      required.push_back(!q.default_int.has_value());
    }
    return bind_args(c, names, required);
  }

  // *args: positional axes only.
  Argument varargs(const Call& c, const Param& param) {
    Argument a;
    for (const Arg& arg : c.args) {
      if (!arg.keyword.empty())
        error_at(arg.keyword_pos, str(c.name, "() takes no keyword arguments"));
      a.axes.push_back(want_axis(c, arg));
    }
    if (a.axes.size() < static_cast<size_t>(param.min_count))
      error_at(c.pos, str(c.name, "() needs at least ", param.min_count, " ax",
                          param.min_count == 1 ? "is" : "es"));
    return a;
  }

  Argument convert(const Call& c, const Param& param, const Arg& arg) {
    const Value& v = arg.value;
    Argument a;
    switch (param.kind) {
      case ParamKind::Axis:
      case ParamKind::DataAxis:
      case ParamKind::AttachAxis:
        a.axis = want_axis(c, arg);
        break;
      case ParamKind::Axes:
        a = varargs(c, param);
        break;
      case ParamKind::Int:
        a.integer = want_int(c, arg);
        break;
      case ParamKind::Dim:
        a.integer = want_int(c, arg);
        if (a.integer < 0 || a.integer > std::numeric_limits<int>::max())
          error_at(arg.pos,
                   str(c.name, "() ", param.name, " must be a dimension index, got ", a.integer));
        break;
      case ParamKind::String:
        a.text = want_str(c, arg);
        break;
      case ParamKind::ThreadTag:
        if (v.kind != Value::Kind::ThreadAxis)
          error_at(arg.pos,
                   str(c.name, "() expects te.thread_axis(\"...\") here, got ", describe(v)));
        a.text = v.s;
        break;
      case ParamKind::Stage:
        if (v.kind != Value::Kind::Stage)
          error_at(arg.pos, str(c.name, "() expects a stage (s[C]) here, got ", describe(v)));
        a.stage = v.stage;
        break;
      case ParamKind::Tensor:
      case ParamKind::Subject:
        a.tensor = want_tensor(c, arg);
        break;
      case ParamKind::Tensors:
        for (const Value& item : v.kind == Value::Kind::List ? v.items : std::vector<Value>{v}) {
          Tensor t = as_tensor(item);
          if (!t.defined())
            error_at(arg.pos,
                     str(c.name, "() expects tensors or operations here, got ", describe(item)));
          a.tensors.push_back(t);
        }
        break;
    }
    return a;
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
