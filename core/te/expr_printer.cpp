#include "te/expr_printer.h"

#include <cmath>
#include <sstream>

#include "te/tensor_intrinsic.h"

namespace lathe::te {
namespace {

// Binding strength, as in Python: higher binds tighter.
int precedence(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Or:
      return 1;
    case ExprKind::And:
      return 2;
    case ExprKind::Not:
      return 3;
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return 4;
    case ExprKind::Add:
    case ExprKind::Sub:
      return 5;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
      return 6;
    default:
      return 10;
  }
}

const char* infix(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Add:
      return " + ";
    case ExprKind::Sub:
      return " - ";
    case ExprKind::Mul:
      return " * ";
    case ExprKind::Div:
      return e.type().is_float() ? " / " : " // ";
    case ExprKind::Mod:
      return " % ";
    case ExprKind::EQ:
      return " == ";
    case ExprKind::NE:
      return " != ";
    case ExprKind::LT:
      return " < ";
    case ExprKind::LE:
      return " <= ";
    case ExprKind::GT:
      return " > ";
    case ExprKind::GE:
      return " >= ";
    case ExprKind::And:
      return " and ";
    case ExprKind::Or:
      return " or ";
    default:
      return nullptr;
  }
}

std::string float_literal(double v, DataType t) {
  std::ostringstream os;
  if (std::isinf(v)) {
    os << "T." << t.to_string() << "(\"" << (v > 0 ? "inf" : "-inf") << "\")";
    return os.str();
  }
  os.precision(9);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return t == DataType::Float(32) ? s + "f" : "T." + t.to_string() + "(" + s + ")";
}

class Printer {
 public:
  std::string print(const Expr& e, int parent_precedence = 0) {
    std::string s = body(e);
    return precedence(e) < parent_precedence ? "(" + s + ")" : s;
  }

 private:
  std::string list(const std::vector<Expr>& items) {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + print(items[i]);
    return s;
  }

  std::string body(const Expr& e) {
    if (!e.defined()) return "<undefined>";
    switch (e.kind()) {
      case ExprKind::IntImm: {
        int64_t v = e.as<IntImmNode>()->value;
        if (e.type() == DataType::Int(32)) return std::to_string(v);
        if (e.type().is_bool()) return v ? "T.bool(True)" : "T.bool(False)";
        return "T." + e.type().to_string() + "(" + std::to_string(v) + ")";
      }
      case ExprKind::FloatImm:
        return float_literal(e.as<FloatImmNode>()->value, e.type());
      case ExprKind::Var:
        return e.as<VarNode>()->name;
      case ExprKind::Min:
      case ExprKind::Max: {
        const auto* n = e.as<BinaryNode>();
        return std::string(e.kind() == ExprKind::Min ? "T.min(" : "T.max(") + print(n->a) + ", " +
               print(n->b) + ")";
      }
      case ExprKind::Not:
        return "not " + print(e.as<NotNode>()->a, precedence(e) + 1);
      case ExprKind::Select: {
        const auto* n = e.as<SelectNode>();
        return "T.Select(" + print(n->cond) + ", " + print(n->true_value) + ", " +
               print(n->false_value) + ")";
      }
      case ExprKind::Cast:
        return "T.Cast(\"" + e.type().to_string() + "\", " + print(e.as<CastNode>()->value) + ")";
      case ExprKind::Call: {
        const auto* n = e.as<CallNode>();
        if (n->op == Intrinsic::TensorIntrinsic) {
          // T.dot_16x4_u8s8(C[..], a[..], b[..]): the intrinsic by name, without its id.
          const int64_t* id = as_const_int(n->args[0]);
          std::vector<Expr> operands(n->args.begin() + 1, n->args.end());
          return "T." + (id ? tensor_intrinsic_by_id(static_cast<int>(*id)).name : "?") + "(" +
                 list(operands) + ")";
        }
        return std::string("T.") + intrinsic_name(n->op) + "(" + list(n->args) + ")";
      }
      case ExprKind::ProducerLoad: {
        const auto* n = e.as<ProducerLoadNode>();
        return n->producer->name + "[" + list(n->indices) + "]";
      }
      case ExprKind::Reduce: {
        const auto* n = e.as<ReduceNode>();
        std::string axes;
        for (size_t i = 0; i < n->axis.size(); ++i) axes += (i ? ", " : "") + n->axis[i].name();
        std::string s = std::string("T.") + reducer_name(n->combiner) + "(" + print(n->source) +
                        ", axis=[" + axes + "]";
        if (n->condition.defined()) s += ", where=" + print(n->condition);
        return s + ")";
      }
      case ExprKind::Load: {
        const auto* n = e.as<LoadNode>();
        return n->buffer.name() + "[" + print(n->index) + "]";
      }
      case ExprKind::Ramp: {
        const auto* n = e.as<RampNode>();
        return "T.Ramp(" + print(n->base) + ", " + print(n->stride) + ", " +
               std::to_string(n->lanes) + ")";
      }
      case ExprKind::Broadcast: {
        const auto* n = e.as<BroadcastNode>();
        return "T.Broadcast(" + print(n->value) + ", " + std::to_string(n->lanes) + ")";
      }
      case ExprKind::Let: {
        const auto* n = e.as<LetNode>();
        return "T.Let(" + n->var.name() + ", " + print(n->value) + ", " + print(n->body) + ")";
      }
      default: {
        const auto* n = e.as<BinaryNode>();
        int p = precedence(e);
        // Left-associative: the right operand needs parentheses at equal precedence.
        return print(n->a, p) + infix(e) + print(n->b, p + 1);
      }
    }
  }
};

}  // namespace

std::string to_string(const Expr& e) {
  return Printer().print(e);
}

std::string to_string(const Tensor& t) {
  std::ostringstream os;
  os << t.name() << " = ";
  if (const ComputeOpNode* c = t.op().as_compute()) {
    os << "compute((";
    for (size_t i = 0; i < t.shape().size(); ++i) os << (i ? ", " : "") << t.shape()[i];
    os << (t.shape().size() == 1 ? ",)" : ")") << ", lambda ";
    for (size_t i = 0; i < c->axis.size(); ++i) os << (i ? ", " : "") << c->axis[i].name();
    os << ": " << to_string(c->body) << ")";
  } else {
    os << "placeholder((";
    for (size_t i = 0; i < t.shape().size(); ++i) os << (i ? ", " : "") << t.shape()[i];
    os << (t.shape().size() == 1 ? ",)" : ")") << ", \"" << t.dtype().to_string() << "\")";
  }
  return os.str();
}

}  // namespace lathe::te
