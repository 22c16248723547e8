// Expressions shared by tensor expressions (TE) and the loop IR (TIR), after
// Halide's IR: small immutable nodes with a kind tag, made through checked
// constructors that coerce operand types the way TVM does, and shared freely.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "te/data_type.h"

namespace lathe::te {

enum class ExprKind : uint8_t {
  IntImm,
  FloatImm,
  Var,
  // Binary arithmetic, comparison and logic share BinaryNode.
  Add,
  Sub,
  Mul,
  Div,  // floor division on integers (TVM's floordiv), true division on floats
  Mod,  // floor modulo on integers (TVM's floormod)
  Min,
  Max,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
  Not,
  Select,
  Cast,
  Call,
  ProducerLoad,  // a read of a TE tensor, before storage flattening
  Reduce,
  Load,  // a read of a flat buffer, after storage flattening
  Ramp,
  Broadcast,
  Let,
};

bool is_binary(ExprKind k);
bool is_comparison(ExprKind k);
const char* kind_name(ExprKind k);  // "Add", "LT" ...

struct ExprNode {
  ExprNode(ExprKind k, DataType t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  const DataType type;
};

class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  // Immediates: an int is int32, a float is float32, as in TVM's Python API.
  Expr(int value);      // NOLINT(google-explicit-constructor)
  Expr(int64_t value);  // NOLINT: int64 immediate
  Expr(float value);    // NOLINT
  Expr(double value);   // NOLINT: float32 immediate too; use make_const for float64

  bool defined() const { return node_ != nullptr; }
  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  DataType type() const { return node_->type; }
  ExprKind kind() const { return node_->kind; }
  template <typename T>
  const T* as() const {
    return node_ && T::matches(node_->kind) ? static_cast<const T*>(node_.get()) : nullptr;
  }
  bool same_as(const Expr& other) const { return node_ == other.node_; }
  const std::shared_ptr<const ExprNode>& node_ptr() const { return node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct IntImmNode : ExprNode {
  IntImmNode(DataType t, int64_t v) : ExprNode(ExprKind::IntImm, t), value(v) {}
  static bool matches(ExprKind k) { return k == ExprKind::IntImm; }
  int64_t value;
};

struct FloatImmNode : ExprNode {
  FloatImmNode(DataType t, double v) : ExprNode(ExprKind::FloatImm, t), value(v) {}
  static bool matches(ExprKind k) { return k == ExprKind::FloatImm; }
  double value;
};

struct VarNode : ExprNode {
  VarNode(std::string n, DataType t) : ExprNode(ExprKind::Var, t), name(std::move(n)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Var; }
  std::string name;
};

// A variable: identity is the node, never the name.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType type = DataType::Int(32));
  explicit Var(const Expr& e);  // checks that e is a Var
  const VarNode* node() const { return as<VarNode>(); }
  const std::string& name() const { return node()->name; }
};

struct VarHash {
  size_t operator()(const Var& v) const { return std::hash<const void*>()(v.get()); }
};
struct VarEqual {
  bool operator()(const Var& a, const Var& b) const { return a.same_as(b); }
};
template <typename T>
using VarMap = std::unordered_map<Var, T, VarHash, VarEqual>;

struct BinaryNode : ExprNode {
  BinaryNode(ExprKind k, DataType t, Expr x, Expr y)
      : ExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
  static bool matches(ExprKind k) { return is_binary(k); }
  Expr a, b;
};

struct NotNode : ExprNode {
  explicit NotNode(Expr x) : ExprNode(ExprKind::Not, x.type()), a(std::move(x)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Not; }
  Expr a;
};

struct SelectNode : ExprNode {
  SelectNode(Expr c, Expr t, Expr f)
      : ExprNode(ExprKind::Select, t.type()),
        cond(std::move(c)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Select; }
  Expr cond, true_value, false_value;
};

struct CastNode : ExprNode {
  CastNode(DataType t, Expr v) : ExprNode(ExprKind::Cast, t), value(std::move(v)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Cast; }
  Expr value;
};

// Float math unless intrinsic_takes_integers: Abs keeps any type; the shifts
// (LLVM shl/lshr, which give poison at or past the bit width) and the bitwise
// operations keep integers.
// Round is round-half-to-even (llvm.roundeven), Fmod C's fmod (frem).
enum class Intrinsic : uint8_t {
  Exp,
  Log,
  Sqrt,
  Tanh,
  Erf,
  Sigmoid,
  Pow,
  Floor,
  Ceil,
  Abs,
  Fma,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Round,
  Fmod,
  ShiftLeft,
  ShiftRight,
  // Bitwise operations of integers (ONNX's Bitwise*); And/Or are logical.
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  BitwiseNot,
  // A hint, not math: its one argument is a load (ProducerLoad before storage
  // flattening, Load after) whose element's cache line is fetched ahead of
  // use. Codegen emits llvm.prefetch of the element's address and no load.
  Prefetch,
  // A tensorized region (te/tensor_intrinsic.h): its first argument is the
  // intrinsic's id, the others loads of the first elements of its output and
  // inputs. Evaluated for effect: it updates the output's region in place.
  TensorIntrinsic,
};
const char* intrinsic_name(Intrinsic op);  // "exp", "fma" ...
int intrinsic_arity(Intrinsic op);         // -1: any (TensorIntrinsic)
bool intrinsic_takes_integers(Intrinsic op);
bool intrinsic_is_bitwise(Intrinsic op);  // shifts and Bitwise*: integers only

struct CallNode : ExprNode {
  CallNode(DataType t, Intrinsic o, std::vector<Expr> a)
      : ExprNode(ExprKind::Call, t), op(o), args(std::move(a)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Call; }
  Intrinsic op;
  std::vector<Expr> args;
};

struct RampNode : ExprNode {
  RampNode(Expr b, Expr s, int l)
      : ExprNode(ExprKind::Ramp, b.type().with_lanes(l)),
        base(std::move(b)),
        stride(std::move(s)),
        lanes(l) {}
  static bool matches(ExprKind k) { return k == ExprKind::Ramp; }
  Expr base, stride;
  int lanes;
};

struct BroadcastNode : ExprNode {
  BroadcastNode(Expr v, int l)
      : ExprNode(ExprKind::Broadcast, v.type().with_lanes(l)), value(std::move(v)), lanes(l) {}
  static bool matches(ExprKind k) { return k == ExprKind::Broadcast; }
  Expr value;
  int lanes;
};

struct LetNode : ExprNode {
  LetNode(Var v, Expr val, Expr b)
      : ExprNode(ExprKind::Let, b.type()),
        var(std::move(v)),
        value(std::move(val)),
        body(std::move(b)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Let; }
  Var var;
  Expr value, body;
};

// A read of a flat buffer: `buffer` is a handle variable, `index` counts
// elements of the buffer's element type; a Ramp index reads a vector.
struct LoadNode : ExprNode {
  LoadNode(DataType t, Var buf, Expr i)
      : ExprNode(ExprKind::Load, t), buffer(std::move(buf)), index(std::move(i)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Load; }
  Var buffer;
  Expr index;
};

// ---- Checked constructors, with TVM's type coercion --------------------------

Expr make_const(DataType t, double value);
Expr make_int(int64_t value, DataType t = DataType::Int(32));
Expr make_zero(DataType t);
Expr make_one(DataType t);
// Binary op of any binary kind; integer immediates take the other side's type,
// int meets float as float, narrower meets wider as wider.
Expr binary(ExprKind kind, Expr a, Expr b);
Expr cast(DataType t, Expr v);
Expr select(Expr cond, Expr t, Expr f);
Expr logical_not(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr call(Intrinsic op, std::vector<Expr> args);
Expr ramp(Expr base, Expr stride, int lanes);
Expr broadcast(Expr value, int lanes);
Expr let(Var var, Expr value, Expr body);
Expr load(DataType t, Var buffer, Expr index);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // floordiv on integers
Expr operator%(Expr a, Expr b);  // floormod on integers
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

inline Expr exp(Expr x) {
  return call(Intrinsic::Exp, {std::move(x)});
}
inline Expr log(Expr x) {
  return call(Intrinsic::Log, {std::move(x)});
}
inline Expr sqrt(Expr x) {
  return call(Intrinsic::Sqrt, {std::move(x)});
}
inline Expr tanh(Expr x) {
  return call(Intrinsic::Tanh, {std::move(x)});
}
inline Expr erf(Expr x) {
  return call(Intrinsic::Erf, {std::move(x)});
}
inline Expr sigmoid(Expr x) {
  return call(Intrinsic::Sigmoid, {std::move(x)});
}
inline Expr pow(Expr x, Expr y) {
  return call(Intrinsic::Pow, {std::move(x), std::move(y)});
}
inline Expr floor(Expr x) {
  return call(Intrinsic::Floor, {std::move(x)});
}
inline Expr ceil(Expr x) {
  return call(Intrinsic::Ceil, {std::move(x)});
}
inline Expr abs(Expr x) {
  return call(Intrinsic::Abs, {std::move(x)});
}
inline Expr fma(Expr a, Expr b, Expr c) {
  return call(Intrinsic::Fma, {std::move(a), std::move(b), std::move(c)});
}
inline Expr round(Expr x) {
  return call(Intrinsic::Round, {std::move(x)});
}
inline Expr fmod(Expr x, Expr y) {
  return call(Intrinsic::Fmod, {std::move(x), std::move(y)});
}
inline Expr shift_left(Expr x, Expr y) {
  return call(Intrinsic::ShiftLeft, {std::move(x), std::move(y)});
}
inline Expr shift_right(Expr x, Expr y) {
  return call(Intrinsic::ShiftRight, {std::move(x), std::move(y)});
}
// prefetch(load): see Intrinsic::Prefetch; typed as the load, evaluated for effect.
Expr prefetch(Expr load);

// Value of an integer immediate, or nullptr.
const int64_t* as_const_int(const Expr& e);
// Value of an integer immediate or of a vector broadcasting one, or nullptr.
const int64_t* as_const_int_lanes(const Expr& e);
bool is_const_int(const Expr& e, int64_t value);

}  // namespace lathe::te
