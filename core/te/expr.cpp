#include "te/expr.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"
#include "support/float16.h"
#include "support/int_math.h"
#include "te/tensor_intrinsic.h"

namespace lathe::te {

bool is_binary(ExprKind k) {
  return k >= ExprKind::Add && k <= ExprKind::Or;
}
bool is_comparison(ExprKind k) {
  return k >= ExprKind::EQ && k <= ExprKind::GE;
}

const char* kind_name(ExprKind k) {
  static const char* names[] = {"IntImm", "FloatImm", "Var",       "Add",  "Sub",          "Mul",
                                "Div",    "Mod",      "Min",       "Max",  "EQ",           "NE",
                                "LT",     "LE",       "GT",        "GE",   "And",          "Or",
                                "Not",    "Select",   "Cast",      "Call", "ProducerLoad", "Reduce",
                                "Load",   "Ramp",     "Broadcast", "Let"};
  return names[static_cast<int>(k)];
}

const char* intrinsic_name(Intrinsic op) {
  static const char* names[] = {"exp",         "log",         "sqrt",        "tanh",
                                "erf",         "sigmoid",     "pow",         "floor",
                                "ceil",        "abs",         "fma",         "sin",
                                "cos",         "tan",         "asin",        "acos",
                                "atan",        "sinh",        "cosh",        "asinh",
                                "acosh",       "atanh",       "round",       "fmod",
                                "shift_left",  "shift_right", "bitwise_and", "bitwise_or",
                                "bitwise_xor", "bitwise_not", "prefetch",    "tensor_intrinsic"};
  return names[static_cast<int>(op)];
}

bool intrinsic_is_bitwise(Intrinsic op) {
  switch (op) {
    case Intrinsic::ShiftLeft:
    case Intrinsic::ShiftRight:
    case Intrinsic::BitwiseAnd:
    case Intrinsic::BitwiseOr:
    case Intrinsic::BitwiseXor:
    case Intrinsic::BitwiseNot:
      return true;
    default:
      return false;
  }
}

bool intrinsic_takes_integers(Intrinsic op) {
  return op == Intrinsic::Abs || intrinsic_is_bitwise(op) || op == Intrinsic::Prefetch ||
         op == Intrinsic::TensorIntrinsic;
}

int intrinsic_arity(Intrinsic op) {
  switch (op) {
    case Intrinsic::Pow:
    case Intrinsic::Fmod:
    case Intrinsic::ShiftLeft:
    case Intrinsic::ShiftRight:
    case Intrinsic::BitwiseAnd:
    case Intrinsic::BitwiseOr:
    case Intrinsic::BitwiseXor:
      return 2;
    case Intrinsic::Fma:
      return 3;
    case Intrinsic::TensorIntrinsic:
      return -1;
    default:
      return 1;
  }
}

Expr::Expr(int value) : Expr(make_int(value, DataType::Int(32))) {}
Expr::Expr(int64_t value) : Expr(make_int(value, DataType::Int(64))) {}
Expr::Expr(float value) : Expr(make_const(DataType::Float(32), value)) {}
Expr::Expr(double value) : Expr(make_const(DataType::Float(32), value)) {}

Var::Var(std::string name, DataType type)
    : Expr(std::make_shared<const VarNode>(std::move(name), type)) {}

Var::Var(const Expr& e) : Expr(e) {
  LATHE_CHECK(!e.defined() || e.kind() == ExprKind::Var, "expected a variable, got ",
              kind_name(e.kind()));
}

Expr make_int(int64_t value, DataType t) {
  return Expr(std::make_shared<const IntImmNode>(t, value));
}

Expr make_const(DataType t, double value) {
  if (t.is_vector()) return broadcast(make_const(t.element_of(), value), t.lanes);
  // A 16-bit float immediate holds the value it stores, so that folding a
  // cast through it rounds as the kernel would.
  if (t.is_float() && t.bits == 16)
    value = half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
  if (t.is_bfloat())
    value = bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(value)));
  if (t.is_float() || t.is_bfloat()) return Expr(std::make_shared<const FloatImmNode>(t, value));
  if (t.is_bool()) return make_int(value != 0, t);
  return make_int(static_cast<int64_t>(value), t);
}

Expr make_zero(DataType t) {
  return make_const(t, 0);
}
Expr make_one(DataType t) {
  return make_const(t, 1);
}

const int64_t* as_const_int(const Expr& e) {
  const IntImmNode* n = e.as<IntImmNode>();
  return n ? &n->value : nullptr;
}

const int64_t* as_const_int_lanes(const Expr& e) {
  if (const auto* b = e.as<BroadcastNode>()) return as_const_int(b->value);
  return as_const_int(e);
}

bool is_const_int(const Expr& e, int64_t value) {
  const int64_t* v = as_const_int(e);
  return v && *v == value;
}

namespace {

bool is_imm(const Expr& e) {
  return e.kind() == ExprKind::IntImm || e.kind() == ExprKind::FloatImm;
}

double imm_value(const Expr& e) {
  if (const auto* i = e.as<IntImmNode>()) return static_cast<double>(i->value);
  return e.as<FloatImmNode>()->value;
}

// The common type of two operands, after TVM's BinaryOpMatchTypes.
DataType common_type(const Expr& a, const Expr& b) {
  DataType ta = a.type(), tb = b.type();
  int lanes = std::max(ta.lanes, tb.lanes);
  DataType ea = ta.element_of(), eb = tb.element_of();
  if (ea == eb) return ea.with_lanes(lanes);
  // An immediate takes the other side's type.
  if (is_imm(a) && !is_imm(b)) return eb.with_lanes(lanes);
  if (is_imm(b) && !is_imm(a)) return ea.with_lanes(lanes);
  if (ea.is_float() != eb.is_float()) return (ea.is_float() ? ea : eb).with_lanes(lanes);
  if (ea.is_float()) return DataType::Float(std::max(ea.bits, eb.bits), lanes);
  if (ea.is_bool()) return eb.with_lanes(lanes);
  if (eb.is_bool()) return ea.with_lanes(lanes);
  int bits = std::max(ea.bits, eb.bits);
  return (ea.is_int() || eb.is_int() ? DataType::Int(bits) : DataType::UInt(bits))
      .with_lanes(lanes);
}

Expr convert(const Expr& e, DataType t) {
  if (e.type() == t) return e;
  if (is_imm(e) && t.is_scalar()) return make_const(t, imm_value(e));
  if (e.type().is_scalar() && t.is_vector()) return broadcast(convert(e, t.element_of()), t.lanes);
  return cast(t, e);
}

// Folds integer immediates so that extents and shapes stay constants.
Expr fold_ints(ExprKind kind, DataType t, int64_t a, int64_t b) {
  switch (kind) {
    case ExprKind::Add:
      return make_int(a + b, t);
    case ExprKind::Sub:
      return make_int(a - b, t);
    case ExprKind::Mul:
      return make_int(a * b, t);
    case ExprKind::Div:
      return b == 0 ? Expr() : make_int(floordiv(a, b), t);
    case ExprKind::Mod:
      return b == 0 ? Expr() : make_int(floormod(a, b), t);
    case ExprKind::Min:
      return make_int(std::min(a, b), t);
    case ExprKind::Max:
      return make_int(std::max(a, b), t);
    case ExprKind::EQ:
      return make_int(a == b, t);
    case ExprKind::NE:
      return make_int(a != b, t);
    case ExprKind::LT:
      return make_int(a < b, t);
    case ExprKind::LE:
      return make_int(a <= b, t);
    case ExprKind::GT:
      return make_int(a > b, t);
    case ExprKind::GE:
      return make_int(a >= b, t);
    case ExprKind::And:
      return make_int(a && b, t);
    case ExprKind::Or:
      return make_int(a || b, t);
    default:
      return Expr();
  }
}

}  // namespace

Expr binary(ExprKind kind, Expr a, Expr b) {
  LATHE_CHECK(is_binary(kind), "not a binary operator: ", kind_name(kind));
  LATHE_CHECK(a.defined() && b.defined(), "operand of ", kind_name(kind), " is undefined");
  DataType t = common_type(a, b);
  a = convert(a, t);
  b = convert(b, t);
  if (kind == ExprKind::And || kind == ExprKind::Or)
    LATHE_CHECK(t.is_bool(), kind_name(kind), " needs bool operands, got ", t.to_string());
  DataType result = is_comparison(kind) || kind == ExprKind::And || kind == ExprKind::Or
                        ? DataType::Bool(t.lanes)
                        : t;
  const int64_t* ca = as_const_int(a);
  const int64_t* cb = as_const_int(b);
  if (ca && cb) {
    if (Expr folded = fold_ints(kind, result, *ca, *cb); folded.defined()) return folded;
  }
  return Expr(std::make_shared<const BinaryNode>(kind, result, std::move(a), std::move(b)));
}

Expr cast(DataType t, Expr v) {
  LATHE_CHECK(v.defined(), "cast of an undefined expression");
  if (v.type() == t) return v;
  if (t.is_scalar() && is_imm(v)) return make_const(t, imm_value(v));
  LATHE_CHECK(t.lanes == v.type().lanes, "cast from ", v.type().to_string(), " to ", t.to_string(),
              " changes the lane count");
  return Expr(std::make_shared<const CastNode>(t, std::move(v)));
}

Expr select(Expr cond, Expr t, Expr f) {
  LATHE_CHECK(cond.type().is_bool(), "select condition must be bool, got ",
              cond.type().to_string());
  DataType common = common_type(t, f);
  // A vector condition picks lane by lane: scalar arms are broadcast (a
  // vectorized Sign selects between the constants 1, -1 and 0).
  if (cond.type().lanes > common.lanes) common = common.with_lanes(cond.type().lanes);
  return Expr(
      std::make_shared<const SelectNode>(std::move(cond), convert(t, common), convert(f, common)));
}

Expr logical_not(Expr a) {
  LATHE_CHECK(a.type().is_bool(), "! needs a bool operand, got ", a.type().to_string());
  if (const int64_t* c = as_const_int(a)) return make_int(!*c, a.type());
  return Expr(std::make_shared<const NotNode>(std::move(a)));
}

Expr min(Expr a, Expr b) {
  return binary(ExprKind::Min, std::move(a), std::move(b));
}
Expr max(Expr a, Expr b) {
  return binary(ExprKind::Max, std::move(a), std::move(b));
}

Expr call(Intrinsic op, std::vector<Expr> args) {
  if (op == Intrinsic::TensorIntrinsic) {
    const int64_t* id = args.empty() ? nullptr : as_const_int(args[0]);
    LATHE_CHECK(id, "tensor_intrinsic takes the intrinsic's id first");
    return tensor_intrinsic_call(static_cast<int>(*id), {args.begin() + 1, args.end()});
  }
  LATHE_CHECK(static_cast<int>(args.size()) == intrinsic_arity(op), intrinsic_name(op), " takes ",
              intrinsic_arity(op), " arguments");
  if (op == Intrinsic::Prefetch) return prefetch(std::move(args[0]));
  DataType t = args[0].type();
  if (intrinsic_takes_integers(op) && op != Intrinsic::Abs)
    LATHE_CHECK(t.is_integer(), intrinsic_name(op), " needs integer operands, got ", t.to_string());
  if (!intrinsic_takes_integers(op))
    for (Expr& a : args) {
      if (!a.type().is_float()) a = convert(a, t.is_float() ? t : DataType::Float(32, t.lanes));
      t = a.type();
    }
  // A scalar argument beside a vector one (a vectorized loop reading a
  // broadcast operand) is broadcast, whichever side it is on.
  int lanes = 1;
  for (const Expr& a : args) lanes = std::max<int>(lanes, a.type().lanes);
  t = t.element_of().with_lanes(lanes);
  for (Expr& a : args) a = convert(a, t);
  return Expr(std::make_shared<const CallNode>(t, op, std::move(args)));
}

Expr prefetch(Expr load) {
  LATHE_CHECK(load.kind() == ExprKind::Load || load.kind() == ExprKind::ProducerLoad,
              "prefetch takes a load, got ", kind_name(load.kind()));
  DataType t = load.type();
  return Expr(std::make_shared<const CallNode>(t, Intrinsic::Prefetch, std::vector<Expr>{load}));
}

Expr ramp(Expr base, Expr stride, int lanes) {
  LATHE_CHECK(lanes > 1, "a ramp needs at least two lanes");
  LATHE_CHECK(base.type().is_scalar() && base.type().is_integer(),
              "ramp base must be a scalar integer");
  stride = convert(stride, base.type());
  return Expr(std::make_shared<const RampNode>(std::move(base), std::move(stride), lanes));
}

Expr broadcast(Expr value, int lanes) {
  LATHE_CHECK(value.type().is_scalar(), "broadcast of a vector");
  if (lanes == 1) return value;
  return Expr(std::make_shared<const BroadcastNode>(std::move(value), lanes));
}

Expr let(Var var, Expr value, Expr body) {
  return Expr(std::make_shared<const LetNode>(std::move(var), std::move(value), std::move(body)));
}

Expr load(DataType t, Var buffer, Expr index) {
  LATHE_CHECK(index.type().lanes == t.lanes, "load of ", t.to_string(), " with a ",
              index.type().lanes, "-lane index");
  return Expr(std::make_shared<const LoadNode>(t, std::move(buffer), std::move(index)));
}

Expr operator+(Expr a, Expr b) {
  return binary(ExprKind::Add, std::move(a), std::move(b));
}
Expr operator-(Expr a, Expr b) {
  return binary(ExprKind::Sub, std::move(a), std::move(b));
}
Expr operator-(Expr a) {
  // The zero's type is read before `a` is moved: argument evaluation order is unspecified.
  Expr zero = make_zero(a.type());
  return binary(ExprKind::Sub, std::move(zero), std::move(a));
}
Expr operator*(Expr a, Expr b) {
  return binary(ExprKind::Mul, std::move(a), std::move(b));
}
Expr operator/(Expr a, Expr b) {
  return binary(ExprKind::Div, std::move(a), std::move(b));
}
Expr operator%(Expr a, Expr b) {
  return binary(ExprKind::Mod, std::move(a), std::move(b));
}
Expr operator<(Expr a, Expr b) {
  return binary(ExprKind::LT, std::move(a), std::move(b));
}
Expr operator<=(Expr a, Expr b) {
  return binary(ExprKind::LE, std::move(a), std::move(b));
}
Expr operator>(Expr a, Expr b) {
  return binary(ExprKind::GT, std::move(a), std::move(b));
}
Expr operator>=(Expr a, Expr b) {
  return binary(ExprKind::GE, std::move(a), std::move(b));
}
Expr operator==(Expr a, Expr b) {
  return binary(ExprKind::EQ, std::move(a), std::move(b));
}
Expr operator!=(Expr a, Expr b) {
  return binary(ExprKind::NE, std::move(a), std::move(b));
}
Expr operator&&(Expr a, Expr b) {
  return binary(ExprKind::And, std::move(a), std::move(b));
}
Expr operator||(Expr a, Expr b) {
  return binary(ExprKind::Or, std::move(a), std::move(b));
}
Expr operator!(Expr a) {
  return logical_not(std::move(a));
}

}  // namespace lathe::te
