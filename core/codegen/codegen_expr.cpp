// Expressions of the loop IR as LLVM values: arithmetic with TVM's floor
// division, comparisons, casts, intrinsics, vector ramps, and buffer loads
// (contiguous, a few elements shuffled into lanes, gathered, or masked under
// a vector select).
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "codegen/llvm_codegen.h"
#include "support/error.h"
#include "support/int_math.h"
#include "te/expr_functor.h"

namespace lathe::codegen::detail {

using te::DataType;
using te::Expr;
using te::ExprKind;

namespace {

// x of cast<to>(clamp(x, min of to, max of to)), an int32 vector narrowed to
// 8 bits with saturation (min/max in either order); undefined otherwise.
Expr saturated_operand(const te::CastNode* n) {
  const DataType to = n->type, from = n->value.type();
  if (!to.is_integer() || to.bits != 8 || to.lanes < 2 || from.code != DataType::Code::Int ||
      from.bits != 32)
    return Expr();
  const bool is_signed = to.code == DataType::Code::Int;
  const int64_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const auto* outer = n->value.as<te::BinaryNode>();
  if (!outer || (n->value.kind() != ExprKind::Min && n->value.kind() != ExprKind::Max))
    return Expr();
  const ExprKind inner_kind = n->value.kind() == ExprKind::Min ? ExprKind::Max : ExprKind::Min;
  const auto* inner = outer->a.as<te::BinaryNode>();
  if (!inner || outer->a.kind() != inner_kind) return Expr();
  const int64_t* outer_bound = te::as_const_int_lanes(outer->b);
  const int64_t* inner_bound = te::as_const_int_lanes(inner->b);
  if (!outer_bound || !inner_bound) return Expr();
  const int64_t low = inner_kind == ExprKind::Max ? *inner_bound : *outer_bound;
  const int64_t high = inner_kind == ExprKind::Max ? *outer_bound : *inner_bound;
  return low == lo && high == hi ? inner->a : Expr();
}

// Known divisors are kept as powers of two up to this cap: they only ever
// feed alignments, and the cap keeps products from overflowing.
constexpr int64_t kMultipleCap = int64_t(1) << 20;

int64_t power_of_two_part(int64_t v) {
  if (v == 0) return 0;
  v = v < 0 ? -v : v;
  return std::min<int64_t>(v & -v, kMultipleCap);
}

// Whether e loads anything that `already` does not load itself (the same
// buffer at a structurally equal index): what a select must guard. A load
// its condition performs anyway is safe on either side, so Relu's
// `x < 0 ? 0 : x` of a loaded x is a branch-free select, not a branch on
// the data that mispredicts on every other element.
bool loads_beyond(const Expr& e, const Expr& already) {
  std::vector<const te::LoadNode*> done;
  te::visit_expr(already, [&](const Expr& x) {
    if (const auto* load = x.as<te::LoadNode>()) done.push_back(load);
  });
  bool beyond = false;
  te::visit_expr(e, [&](const Expr& x) {
    const auto* load = x.as<te::LoadNode>();
    if (beyond || !load) return;
    beyond = std::none_of(done.begin(), done.end(), [&](const te::LoadNode* d) {
      return d->buffer.same_as(load->buffer) && d->type == load->type &&
             te::structural_equal(d->index, load->index);
    });
  });
  return beyond;
}

// A vector index as a scalar base plus a constant offset per lane: what a
// grouped conv's input vector reads (lane o at (o / 8) * 8 + c), a broadcast
// or a ramp. Division and modulo only of lanes that are all constants.
struct LaneOffsets {
  Expr base;  // scalar; undefined: zero
  std::vector<int64_t> offsets;
};

std::optional<LaneOffsets> lane_offsets(const Expr& e) {
  const int lanes = e.type().lanes;
  if (const auto* b = e.as<te::BroadcastNode>())
    return LaneOffsets{b->value, std::vector<int64_t>(lanes, 0)};
  if (const auto* r = e.as<te::RampNode>()) {
    const int64_t* stride = te::as_const_int(r->stride);
    if (!stride) return std::nullopt;
    LaneOffsets l{r->base, {}};
    for (int i = 0; i < lanes; ++i) l.offsets.push_back(i * *stride);
    return l;
  }
  const auto* bin = e.as<te::BinaryNode>();
  if (!bin || !e.type().is_int()) return std::nullopt;
  const std::optional<LaneOffsets> a = lane_offsets(bin->a), b = lane_offsets(bin->b);
  if (!a || !b) return std::nullopt;
  auto combine = [&](auto lane_op) {
    LaneOffsets l{{}, std::vector<int64_t>(lanes)};
    for (int i = 0; i < lanes; ++i) l.offsets[i] = lane_op(a->offsets[i], b->offsets[i]);
    return l;
  };
  // A constant base folds into the offsets.
  auto constant = [](const LaneOffsets& l) -> std::optional<std::vector<int64_t>> {
    const int64_t* base = l.base.defined() ? te::as_const_int(l.base) : nullptr;
    if (l.base.defined() && !base) return std::nullopt;
    std::vector<int64_t> lanes = l.offsets;
    for (int64_t& v : lanes) v += base ? *base : 0;
    return lanes;
  };
  switch (e.kind()) {
    case ExprKind::Add:
    case ExprKind::Sub: {
      const bool add = e.kind() == ExprKind::Add;
      LaneOffsets l = combine([&](int64_t x, int64_t y) { return add ? x + y : x - y; });
      if (!a->base.defined())
        l.base = add ? b->base : -b->base;
      else if (!b->base.defined())
        l.base = a->base;
      else
        l.base = add ? a->base + b->base : a->base - b->base;
      return l;
    }
    case ExprKind::Mul: {
      // A product is linear where one side is one constant for all lanes.
      const std::optional<std::vector<int64_t>> ca = constant(*a), cb = constant(*b);
      const LaneOffsets* var =
          ca && std::ranges::all_of(*ca, [&](int64_t v) { return v == (*ca)[0]; }) ? &*b : nullptr;
      int64_t factor = var ? (*ca)[0] : 0;
      if (!var && cb && std::ranges::all_of(*cb, [&](int64_t v) { return v == (*cb)[0]; })) {
        var = &*a;
        factor = (*cb)[0];
      }
      if (!var) return std::nullopt;
      LaneOffsets l{
          var->base.defined() ? var->base * te::make_const(var->base.type(), factor) : Expr(),
          var->offsets};
      for (int64_t& v : l.offsets) v *= factor;
      return l;
    }
    case ExprKind::Div:
    case ExprKind::Mod: {
      const std::optional<std::vector<int64_t>> ca = constant(*a), cb = constant(*b);
      if (!ca || !cb || std::ranges::any_of(*cb, [](int64_t v) { return v == 0; }))
        return std::nullopt;
      LaneOffsets l{{}, std::vector<int64_t>(lanes)};
      for (int i = 0; i < lanes; ++i)
        l.offsets[i] =
            e.kind() == ExprKind::Div ? floordiv((*ca)[i], (*cb)[i]) : floormod((*ca)[i], (*cb)[i]);
      return l;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

// ---- Types and helpers -------------------------------------------------------

[[noreturn]] void CodeGenLLVM::fail_at(const std::string& message) const {
  fail(str("codegen llvm: kernel '", kernel_name_, "': ", message));
}

llvm::Type* CodeGenLLVM::llvm_type(DataType t) const {
  llvm::Type* element = nullptr;
  switch (t.code) {
    case DataType::Code::Int:
    case DataType::Code::UInt:
      element = llvm::IntegerType::get(ctx_, t.bits);
      break;
    case DataType::Code::Float:
      if (t.bits == 16)
        element = llvm::Type::getHalfTy(ctx_);
      else if (t.bits == 32)
        element = llvm::Type::getFloatTy(ctx_);
      else if (t.bits == 64)
        element = llvm::Type::getDoubleTy(ctx_);
      else
        fail_at(str("no LLVM type for ", t.to_string()));
      break;
    case DataType::Code::Handle:
      element = llvm::PointerType::get(ctx_, 0);
      break;
    case DataType::Code::BFloat:
      if (t.bits != 16) fail_at(str("no LLVM type for ", t.to_string()));
      element = llvm::Type::getBFloatTy(ctx_);
      break;
  }
  return t.lanes > 1 ? llvm::FixedVectorType::get(element, t.lanes) : element;
}

llvm::Type* CodeGenLLVM::memory_type(DataType t) const {
  // An <N x i1> in memory is a bit mask; Lathe's bool tensors hold a byte per element.
  return t.is_bool() ? llvm_type(DataType::Int(8, t.lanes)) : llvm_type(t);
}

int64_t CodeGenLLVM::memory_bytes(DataType t) const {
  return t.is_bool() ? t.lanes : int64_t(t.bits) * t.lanes / 8;
}

llvm::Value* CodeGenLLVM::to_index(llvm::Value* v, DataType t) {
  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* target = t.lanes > 1 ? llvm::FixedVectorType::get(i64, t.lanes) : i64;
  if (!t.is_integer()) fail_at(str("buffer index of type ", t.to_string(), " is not an integer"));
  return builder_.CreateIntCast(v, target, t.is_int());
}

llvm::Value* CodeGenLLVM::splat_to(llvm::Value* v, int lanes) {
  if (lanes <= 1 || v->getType()->isVectorTy()) return v;
  return builder_.CreateVectorSplat(lanes, v);
}

// bfloat16 is float32's top half: widening shifts the bits up; narrowing
// rounds to nearest even on the dropped half (a NaN stays a quiet NaN), as
// support/float16.h does. Integer operations, because LLVM lowers a bfloat
// fptrunc to a libcall (__truncsfbf2) that GCC 12's libgcc lacks.
llvm::Value* CodeGenLLVM::bfloat16_to_float(llvm::Value* v, int lanes) {
  auto type = [&](llvm::Type* element) -> llvm::Type* {
    return lanes > 1 ? llvm::FixedVectorType::get(element, lanes) : element;
  };
  llvm::Value* bits = builder_.CreateBitCast(v, type(builder_.getInt16Ty()));
  llvm::Value* wide = builder_.CreateShl(builder_.CreateZExt(bits, type(builder_.getInt32Ty())),
                                         splat_to(builder_.getInt32(16), lanes));
  return builder_.CreateBitCast(wide, type(builder_.getFloatTy()));
}

llvm::Value* CodeGenLLVM::float_to_bfloat16(llvm::Value* v, int lanes) {
  auto type = [&](llvm::Type* element) -> llvm::Type* {
    return lanes > 1 ? llvm::FixedVectorType::get(element, lanes) : element;
  };
  auto int32 = [&](uint32_t c) { return splat_to(builder_.getInt32(c), lanes); };
  llvm::Value* x = builder_.CreateBitCast(v, type(builder_.getInt32Ty()));
  llvm::Value* odd = builder_.CreateAnd(builder_.CreateLShr(x, int32(16)), int32(1));
  llvm::Value* rounded =
      builder_.CreateLShr(builder_.CreateAdd(x, builder_.CreateAdd(odd, int32(0x7fff))), int32(16));
  llvm::Value* quiet_nan = builder_.CreateOr(builder_.CreateLShr(x, int32(16)), int32(0x40));
  llvm::Value* is_nan = builder_.CreateFCmpUNO(v, v);
  llvm::Value* bits = builder_.CreateTrunc(builder_.CreateSelect(is_nan, quiet_nan, rounded),
                                           type(builder_.getInt16Ty()));
  return builder_.CreateBitCast(bits, type(builder_.getBFloatTy()));
}

llvm::Value* CodeGenLLVM::cast_value(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  if (from.lanes == 1 && to.lanes > 1)
    return splat_to(cast_value(v, from, to.element_of()), to.lanes);
  if (from.lanes != to.lanes)
    fail_at(str("cast from ", from.to_string(), " to ", to.to_string(), " changes the lane count"));
  // The 16-bit floats convert through float32, which holds every one of
  // them exactly: as the reference casts, and without the libcalls LLVM
  // would need from double or an integer (__truncdfhf2, __floatsihf).
  const DataType f32 = DataType::Float(32, to.lanes);
  const auto is_half = [](DataType t) { return t.is_float() && t.bits == 16; };
  if (from.is_bfloat()) return cast_value(bfloat16_to_float(v, from.lanes), f32, to);
  if (to.is_bfloat()) return float_to_bfloat16(cast_value(v, from, f32), to.lanes);
  if (is_half(from) && to != f32) return cast_value(cast_value(v, from, f32), f32, to);
  if (is_half(to) && from != f32) return cast_value(cast_value(v, from, f32), f32, to);
  llvm::Type* target = llvm_type(to);
  if (to.is_bool()) {
    // TVM: a value is true when it is not zero.
    if (from.is_float())
      return builder_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    if (from.is_handle()) return builder_.CreateIsNotNull(v);
    return builder_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_handle() || to.is_handle()) {
    if (from.is_handle() && to.is_integer()) return builder_.CreatePtrToInt(v, target);
    if (to.is_handle() && from.is_integer()) return builder_.CreateIntToPtr(v, target);
    return v;
  }
  if (from.is_float() && to.is_float()) return builder_.CreateFPCast(v, target);
  if (from.is_float())
    return to.is_int() ? builder_.CreateFPToSI(v, target) : builder_.CreateFPToUI(v, target);
  if (to.is_float())
    return from.is_int() ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
  return builder_.CreateIntCast(v, target, from.is_int());
}

llvm::Value* CodeGenLLVM::buffer_pointer(const te::Var& buffer) const {
  auto it = values_.find(buffer);
  if (it == values_.end())
    fail_at(str("buffer '", buffer.name(),
                "' is used outside its scope (not a parameter or allocation)"));
  if (!it->second->getType()->isPointerTy())
    fail_at(str("'", buffer.name(), "' is read or written as a buffer but is not a handle"));
  return it->second;
}

int64_t CodeGenLLVM::known_multiple(const Expr& e) const {
  switch (e.kind()) {
    case ExprKind::IntImm:
      return power_of_two_part(e.as<te::IntImmNode>()->value);
    case ExprKind::Var: {
      auto it = known_multiples_.find(te::Var(e));
      return it == known_multiples_.end() ? 1 : it->second;
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Min:
    case ExprKind::Max: {
      const auto* n = e.as<te::BinaryNode>();
      return std::gcd(known_multiple(n->a), known_multiple(n->b));
    }
    case ExprKind::Mul: {
      const auto* n = e.as<te::BinaryNode>();
      int64_t a = known_multiple(n->a), b = known_multiple(n->b);
      if (a == 0 || b == 0) return 0;
      return std::min(a * b, kMultipleCap);  // both at most 2^20: no overflow
    }
    case ExprKind::Select: {
      const auto* n = e.as<te::SelectNode>();
      return std::gcd(known_multiple(n->true_value), known_multiple(n->false_value));
    }
    case ExprKind::Cast:
      return e.type().is_integer() ? known_multiple(e.as<te::CastNode>()->value) : 1;
    case ExprKind::Broadcast:
      return known_multiple(e.as<te::BroadcastNode>()->value);
    default:
      return 1;
  }
}

bool CodeGenLLVM::non_negative(const Expr& e) const {
  if (e.type().code == DataType::Code::UInt) return true;
  switch (e.kind()) {
    case ExprKind::IntImm:
      return e.as<te::IntImmNode>()->value >= 0;
    case ExprKind::Var:
      return non_negative_vars_.count(te::Var(e)) > 0;
    case ExprKind::Add:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Min: {
      const auto* n = e.as<te::BinaryNode>();
      return non_negative(n->a) && non_negative(n->b);
    }
    case ExprKind::Max: {
      const auto* n = e.as<te::BinaryNode>();
      return non_negative(n->a) || non_negative(n->b);
    }
    case ExprKind::Mod:
      // A floor modulo takes the divisor's sign (division by zero is undefined anyway).
      return non_negative(e.as<te::BinaryNode>()->b);
    case ExprKind::Select: {
      const auto* n = e.as<te::SelectNode>();
      return non_negative(n->true_value) && non_negative(n->false_value);
    }
    case ExprKind::Cast: {
      // Widening keeps a non-negative value so; an unsigned value of the same
      // width may land on the sign bit.
      const Expr& v = e.as<te::CastNode>()->value;
      const int room = v.type().code == DataType::Code::UInt ? 1 : 0;
      return v.type().is_integer() && v.type().bits + room <= e.type().bits && non_negative(v);
    }
    case ExprKind::Broadcast:
      return non_negative(e.as<te::BroadcastNode>()->value);
    case ExprKind::Ramp: {
      const auto* n = e.as<te::RampNode>();
      return non_negative(n->base) && non_negative(n->stride);
    }
    default:
      return false;
  }
}

int64_t CodeGenLLVM::access_alignment(const te::Var& buffer, const Expr& index,
                                      int64_t element_bytes) {
  auto it = buffers_.find(buffer);
  int64_t base = it != buffers_.end() ? it->second.alignment : element_bytes;
  int64_t multiple = known_multiple(index);
  int64_t alignment = multiple == 0 ? base : std::gcd(base, multiple * element_bytes);
  // Whatever the index, an element is at least element-aligned in a Lathe buffer.
  return std::max<int64_t>(alignment, std::min<int64_t>(element_bytes, base));
}

// ---- Expressions -------------------------------------------------------------

llvm::Value* CodeGenLLVM::emit_expr(const Expr& e) {
  if (!e.defined()) fail_at("an expression is undefined");
  switch (e.kind()) {
    case ExprKind::IntImm:
      return llvm::ConstantInt::get(llvm_type(e.type()), e.as<te::IntImmNode>()->value,
                                    /*IsSigned=*/true);
    case ExprKind::FloatImm:
      return llvm::ConstantFP::get(llvm_type(e.type()), e.as<te::FloatImmNode>()->value);
    case ExprKind::Var: {
      auto it = values_.find(te::Var(e));
      if (it == values_.end())
        fail_at(str("variable '", e.as<te::VarNode>()->name,
                    "' is used outside its scope (not a parameter, loop, let or allocation)"));
      return it->second;
    }
    case ExprKind::Not:
      return builder_.CreateNot(emit_expr(e.as<te::NotNode>()->a));
    case ExprKind::Select:
      return emit_select(e.as<te::SelectNode>());
    case ExprKind::Cast: {
      const auto* n = e.as<te::CastNode>();
      // A requantization's int(round(x)): one conversion where the target
      // has one (x86's vcvtps2dq rounds half to even).
      if (const auto* round = n->value.as<te::CallNode>();
          round && round->op == te::Intrinsic::Round && n->type.is_int())
        if (llvm::Value* v = emit_round_to_int(round->args[0], n->type)) return v;
      if (const Expr unclamped = saturated_operand(n); unclamped.defined())
        if (llvm::Value* v = emit_saturating_narrow(unclamped, n->type)) return v;
      return cast_value(emit_expr(n->value), n->value.type(), n->type);
    }
    case ExprKind::Call:
      return emit_call(e.as<te::CallNode>());
    case ExprKind::ProducerLoad:
      fail_at("a ProducerLoad reached code generation: storage flattening must run first");
    case ExprKind::Reduce:
      fail_at("a Reduce reached code generation: reductions must be lowered to loops first");
    case ExprKind::Load:
      return emit_load(e.as<te::LoadNode>());
    case ExprKind::Ramp:
      return emit_ramp(e.as<te::RampNode>());
    case ExprKind::Broadcast: {
      const auto* n = e.as<te::BroadcastNode>();
      return builder_.CreateVectorSplat(n->lanes, emit_expr(n->value));
    }
    case ExprKind::Let: {
      const auto* n = e.as<te::LetNode>();
      llvm::Value* shadowed = bind(n->var, emit_expr(n->value), n->value);
      llvm::Value* body = emit_expr(n->body);
      unbind(n->var, shadowed);
      return body;
    }
    default:
      return emit_binary(e.as<te::BinaryNode>());
  }
}

llvm::Value* CodeGenLLVM::emit_binary(const te::BinaryNode* n) {
  DataType ta = n->a.type(), tb = n->b.type();
  if (ta.element_of() != tb.element_of())
    fail_at(str("operands of ", te::kind_name(n->kind), " have different types ", ta.to_string(),
                " and ", tb.to_string()));
  const int lanes = std::max(ta.lanes, tb.lanes);
  llvm::Value* a = splat_to(emit_expr(n->a), lanes);
  llvm::Value* b = splat_to(emit_expr(n->b), lanes);
  const DataType t = ta.with_lanes(lanes);
  const bool is_float = t.is_float(), is_signed = t.is_int();
  switch (n->kind) {
    case ExprKind::Add:
      return is_float ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b, "", false, is_signed);
    case ExprKind::Sub:
      return is_float ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b, "", false, is_signed);
    case ExprKind::Mul:
      return is_float ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b, "", false, is_signed);
    case ExprKind::Div:
      return is_float ? builder_.CreateFDiv(a, b) : emit_floor_div_mod(true, a, b, n->a, n->b);
    case ExprKind::Mod:
      if (is_float) {
        // floormod on floats, as TVM: a - floor(a / b) * b.
        llvm::Value* q =
            builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
        return builder_.CreateFSub(a, builder_.CreateFMul(q, b));
      }
      return emit_floor_div_mod(false, a, b, n->a, n->b);
    case ExprKind::Min:
      // fcmp + select lowers to minps/maxps; llvm.minnum would add NaN handling.
      if (is_float) return builder_.CreateSelect(builder_.CreateFCmpOLT(a, b), a, b);
      return builder_.CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case ExprKind::Max:
      if (is_float) return builder_.CreateSelect(builder_.CreateFCmpOGT(a, b), a, b);
      return builder_.CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    case ExprKind::EQ:
      return is_float ? builder_.CreateFCmpOEQ(a, b) : builder_.CreateICmpEQ(a, b);
    case ExprKind::NE:
      return is_float ? builder_.CreateFCmpUNE(a, b) : builder_.CreateICmpNE(a, b);
    case ExprKind::LT:
      return is_float ? builder_.CreateFCmpOLT(a, b)
                      : (is_signed ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpULT(a, b));
    case ExprKind::LE:
      return is_float ? builder_.CreateFCmpOLE(a, b)
                      : (is_signed ? builder_.CreateICmpSLE(a, b) : builder_.CreateICmpULE(a, b));
    case ExprKind::GT:
      return is_float ? builder_.CreateFCmpOGT(a, b)
                      : (is_signed ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpUGT(a, b));
    case ExprKind::GE:
      return is_float ? builder_.CreateFCmpOGE(a, b)
                      : (is_signed ? builder_.CreateICmpSGE(a, b) : builder_.CreateICmpUGE(a, b));
    case ExprKind::And:
      return builder_.CreateAnd(a, b);
    case ExprKind::Or:
      return builder_.CreateOr(a, b);
    default:
      fail_at(str("unexpected expression kind ", te::kind_name(n->kind)));
  }
}

llvm::Value* CodeGenLLVM::emit_floor_div_mod(bool is_div, llvm::Value* a, llvm::Value* b,
                                             const Expr& ea, const Expr& eb) {
  if (!ea.type().is_int() || (non_negative(ea) && non_negative(eb))) {
    // Non-negative operands: floor and truncation agree, and unsigned
    // division becomes shifts and masks for powers of two.
    return is_div ? builder_.CreateUDiv(a, b) : builder_.CreateURem(a, b);
  }
  // Truncating division, then one step towards minus infinity when the
  // remainder is non-zero and its sign differs from the divisor's.
  llvm::Value* q = builder_.CreateSDiv(a, b);
  llvm::Value* r = builder_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust;
  const int64_t* divisor = te::as_const_int_lanes(eb);
  if (divisor && *divisor > 0)
    adjust = builder_.CreateICmpSLT(r, zero);
  else
    adjust = builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                                builder_.CreateICmpSLT(builder_.CreateXor(r, b), zero));
  if (is_div) return builder_.CreateSub(q, builder_.CreateZExt(adjust, a->getType()));
  return builder_.CreateAdd(r, builder_.CreateSelect(adjust, b, zero));
}

llvm::Value* CodeGenLLVM::emit_select(const te::SelectNode* n) {
  const int lanes = std::max<int>(n->type.lanes, n->cond.type().lanes);
  const bool guarded =
      loads_beyond(n->true_value, n->cond) || loads_beyond(n->false_value, n->cond);
  if (!guarded) {
    llvm::Value* cond = emit_expr(n->cond);
    llvm::Value* t = splat_to(emit_expr(n->true_value), lanes);
    llvm::Value* f = splat_to(emit_expr(n->false_value), lanes);
    return builder_.CreateSelect(cond, t, f);
  }
  // A condition the same in every lane (a concat's or a pad's choice made
  // outside the vectorized axis) guards like a scalar one: masked loads with
  // an all-false mask at an address outside the buffer cost a microcode
  // assist each on some CPUs, a branch costs nothing.
  const auto* uniform = n->cond.as<te::BroadcastNode>();
  if (n->cond.type().lanes == 1 || uniform) {
    llvm::Value* cond = emit_expr(uniform ? uniform->value : n->cond);
    // A select often guards a load that would be out of bounds (padding):
    // only the chosen side may run, so it becomes control flow.
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "select_true", function_);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "select_false", function_);
    llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(ctx_, "select_end", function_);
    builder_.CreateCondBr(cond, then_bb, else_bb);
    builder_.SetInsertPoint(then_bb);
    llvm::Value* t = splat_to(emit_expr(n->true_value), lanes);
    llvm::BasicBlock* then_end = builder_.GetInsertBlock();
    builder_.CreateBr(end_bb);
    builder_.SetInsertPoint(else_bb);
    llvm::Value* f = splat_to(emit_expr(n->false_value), lanes);
    llvm::BasicBlock* else_end = builder_.GetInsertBlock();
    builder_.CreateBr(end_bb);
    builder_.SetInsertPoint(end_bb);
    llvm::PHINode* phi = builder_.CreatePHI(t->getType(), 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }
  // Per-lane guard: loads on each side are masked by the lanes that choose it.
  llvm::Value* cond = emit_expr(n->cond);
  llvm::Value* outer = lane_mask_;
  llvm::Value* true_mask = outer ? builder_.CreateAnd(outer, cond) : cond;
  llvm::Value* not_cond = builder_.CreateNot(cond);
  llvm::Value* false_mask = outer ? builder_.CreateAnd(outer, not_cond) : not_cond;
  lane_mask_ = true_mask;
  llvm::Value* t = splat_to(emit_expr(n->true_value), lanes);
  lane_mask_ = false_mask;
  llvm::Value* f = splat_to(emit_expr(n->false_value), lanes);
  lane_mask_ = outer;
  return builder_.CreateSelect(cond, t, f);
}

llvm::Value* CodeGenLLVM::emit_call(const te::CallNode* n) {
  const DataType t = n->type;
  if (n->op == te::Intrinsic::Prefetch) return emit_prefetch(n);
  if (n->op == te::Intrinsic::TensorIntrinsic) return emit_tensor_intrinsic(n);
  std::vector<llvm::Value*> args;
  for (const Expr& a : n->args) {
    if (a.type().element_of() != t.element_of())
      fail_at(str(te::intrinsic_name(n->op), " argument of type ", a.type().to_string(),
                  " for a result of type ", t.to_string()));
    args.push_back(splat_to(emit_expr(a), t.lanes));
  }
  if (!t.is_float() && !te::intrinsic_takes_integers(n->op))
    fail_at(str(te::intrinsic_name(n->op), " of ", t.to_string(), ": needs a float type"));
  if (t.is_float() && te::intrinsic_is_bitwise(n->op))
    fail_at(str(te::intrinsic_name(n->op), " of ", t.to_string(), ": needs an integer type"));
  if (llvm::Value* own = emit_target_math(n->op, t, args)) return own;
  llvm::Value* x = args[0];
  // Vectors of float32 get inline polynomials (vector_math.cpp); scalars and
  // float64 keep libm's exact functions.
  const bool vector_f32 = t.is_float() && t.bits == 32 && t.lanes > 1;
  switch (n->op) {
    case te::Intrinsic::Exp:
      if (vector_f32) return emit_vector_expf(builder_, x);
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
    case te::Intrinsic::Log:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
    case te::Intrinsic::Sqrt:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case te::Intrinsic::Floor:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
    case te::Intrinsic::Ceil:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
    case te::Intrinsic::Pow:
      return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, args[1]);
    case te::Intrinsic::Fma:
      return builder_.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, args[1], args[2]});
    case te::Intrinsic::Abs:
      if (t.is_float()) return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      if (t.is_int())
        return builder_.CreateIntrinsic(llvm::Intrinsic::abs, {x->getType()},
                                        {x, builder_.getFalse()});
      return x;  // unsigned
    case te::Intrinsic::Sin:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x);
    case te::Intrinsic::Cos:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x);
    case te::Intrinsic::Round:
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
    case te::Intrinsic::Fmod:
      return builder_.CreateFRem(x, args[1]);
    case te::Intrinsic::ShiftLeft:
      return builder_.CreateShl(x, args[1]);
    case te::Intrinsic::ShiftRight:
      // Right shifts of signed values keep the sign, as C++'s >>.
      return t.is_int() ? builder_.CreateAShr(x, args[1]) : builder_.CreateLShr(x, args[1]);
    case te::Intrinsic::BitwiseAnd:
      return builder_.CreateAnd(x, args[1]);
    case te::Intrinsic::BitwiseOr:
      return builder_.CreateOr(x, args[1]);
    case te::Intrinsic::BitwiseXor:
      return builder_.CreateXor(x, args[1]);
    case te::Intrinsic::BitwiseNot:
      return builder_.CreateNot(x);
    case te::Intrinsic::Tan:
      return emit_libm_per_lane("tanf", "tan", x);
    case te::Intrinsic::Asin:
      return emit_libm_per_lane("asinf", "asin", x);
    case te::Intrinsic::Acos:
      return emit_libm_per_lane("acosf", "acos", x);
    case te::Intrinsic::Atan:
      return emit_libm_per_lane("atanf", "atan", x);
    case te::Intrinsic::Sinh:
      return emit_libm_per_lane("sinhf", "sinh", x);
    case te::Intrinsic::Cosh:
      return emit_libm_per_lane("coshf", "cosh", x);
    case te::Intrinsic::Asinh:
      return emit_libm_per_lane("asinhf", "asinh", x);
    case te::Intrinsic::Acosh:
      return emit_libm_per_lane("acoshf", "acosh", x);
    case te::Intrinsic::Atanh:
      return emit_libm_per_lane("atanhf", "atanh", x);
    case te::Intrinsic::Tanh:
      if (vector_f32) return emit_vector_tanhf(builder_, x);
      return emit_libm_per_lane("tanhf", "tanh", x);
    case te::Intrinsic::Erf:
      if (vector_f32) return emit_vector_erff(builder_, x);
      return emit_libm_per_lane("erff", "erf", x);
    case te::Intrinsic::Sigmoid: {
      // 1 / (1 + exp(-x)), with exp as above: needs no libm symbol of its own.
      llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
      llvm::Value* minus_x = builder_.CreateFNeg(x);
      llvm::Value* e = vector_f32 ? emit_vector_expf(builder_, minus_x)
                                  : builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, minus_x);
      return builder_.CreateFDiv(one, builder_.CreateFAdd(one, e));
    }
    case te::Intrinsic::Prefetch:
    case te::Intrinsic::TensorIntrinsic:
      break;  // handled before the arguments are evaluated
  }
  fail_at(str("unknown intrinsic ", te::intrinsic_name(n->op)));
}

llvm::Value* CodeGenLLVM::emit_ramp(const te::RampNode* n) {
  llvm::Value* base = emit_expr(n->base);
  llvm::Value* stride = emit_expr(n->stride);
  llvm::Type* element = base->getType();
  if (stride->getType() != element)
    stride = builder_.CreateIntCast(stride, element, n->stride.type().is_int());
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < n->lanes; ++i) lanes.push_back(llvm::ConstantInt::get(element, i));
  llvm::Value* offsets = builder_.CreateMul(builder_.CreateVectorSplat(n->lanes, stride),
                                            llvm::ConstantVector::get(lanes));
  return builder_.CreateAdd(builder_.CreateVectorSplat(n->lanes, base), offsets);
}

// Lanes at constant offsets from one scalar index, all within one vector's
// width (a grouped conv's input: each group's channel repeated over its
// lanes): one load of the elements they span and a shuffle, where a gather
// would load each lane alone. Loads under a lane mask stay gathers. Null
// where the index has no such form.
llvm::Value* CodeGenLLVM::emit_window_load(const te::LoadNode* n) {
  const int lanes = n->type.lanes;
  if (lane_mask_) return nullptr;
  const std::optional<LaneOffsets> l = lane_offsets(n->index);
  if (!l) return nullptr;
  const auto [lo, hi] = std::ranges::minmax(l->offsets);
  if (hi - lo >= lanes) return nullptr;
  llvm::Type* element = memory_type(n->type.element_of());
  const llvm::Align element_align(memory_bytes(n->type.element_of()));
  auto pointer_at = [&](int64_t offset) {
    Expr at = te::make_const(n->index.type().element_of(), static_cast<double>(offset));
    if (l->base.defined()) at = l->base + at;
    return builder_.CreateInBoundsGEP(element, buffer_pointer(n->buffer),
                                      to_index(emit_expr(at), at.type()));
  };
  // Two values (groups of 8 in a 16-lane block): each loaded alone and
  // broadcast, merged by a constant lane mask, which x86 does with two scalar
  // loads and one two-source permute (vpermt2ps); the shuffle of the loaded
  // block below took two (vshufps, vpermpd) for each FMA they feed.
  if (std::ranges::all_of(l->offsets, [&](int64_t v) { return v == lo || v == hi; })) {
    auto broadcast = [&](int64_t offset) {
      return builder_.CreateVectorSplat(
          lanes, builder_.CreateAlignedLoad(element, pointer_at(offset), element_align));
    };
    llvm::Value* low = broadcast(lo);
    if (lo == hi) return low;
    std::vector<llvm::Constant*> high_lanes;
    for (int64_t offset : l->offsets) high_lanes.push_back(builder_.getInt1(offset == hi));
    return builder_.CreateSelect(llvm::ConstantVector::get(high_lanes), broadcast(hi), low);
  }
  llvm::Value* ptr = pointer_at(lo);
  // Only the elements spanned are read (a whole vector from the first could
  // run past the buffer's end): a masked load, one instruction on AVX-512,
  // where a load of the odd-sized span came in pieces and took an insert
  // more to put together.
  llvm::Type* vector = llvm::FixedVectorType::get(element, lanes);
  std::vector<llvm::Constant*> spanned;
  for (int i = 0; i < lanes; ++i) spanned.push_back(builder_.getInt1(i <= hi - lo));
  llvm::Value* window =
      builder_.CreateMaskedLoad(vector, ptr, element_align, llvm::ConstantVector::get(spanned));
  std::vector<int> mask;
  for (int64_t offset : l->offsets) mask.push_back(static_cast<int>(offset - lo));
  return builder_.CreateShuffleVector(window, mask);
}

llvm::Value* CodeGenLLVM::emit_load(const te::LoadNode* n) {
  const DataType t = n->type;
  llvm::Value* base = buffer_pointer(n->buffer);
  llvm::Type* element = memory_type(t.element_of());
  const int64_t element_bytes = memory_bytes(t.element_of());
  llvm::Value* result = nullptr;
  const auto* ramp = n->index.as<te::RampNode>();
  if (t.lanes == 1) {
    llvm::Value* index = to_index(emit_expr(n->index), n->index.type());
    llvm::Value* ptr = builder_.CreateInBoundsGEP(element, base, index);
    llvm::Align align(access_alignment(n->buffer, n->index, element_bytes));
    result = builder_.CreateAlignedLoad(element, ptr, align);
  } else if (ramp && ramp->lanes == t.lanes && te::is_const_int(ramp->stride, 1)) {
    // Contiguous lanes: one vector load.
    llvm::Value* index = to_index(emit_expr(ramp->base), ramp->base.type());
    llvm::Value* ptr = builder_.CreateInBoundsGEP(element, base, index);
    llvm::Type* vector = llvm::FixedVectorType::get(element, t.lanes);
    llvm::Align align(access_alignment(n->buffer, ramp->base, element_bytes));
    if (lane_mask_ && llvm::cast<llvm::FixedVectorType>(lane_mask_->getType())->getNumElements() ==
                          unsigned(t.lanes))
      result = builder_.CreateMaskedLoad(vector, ptr, align, lane_mask_);
    else
      result = builder_.CreateAlignedLoad(vector, ptr, align);
  } else if (llvm::Value* window = emit_window_load(n)) {
    result = window;
  } else {
    // Strided or arbitrary lanes: a gather, masked when guarded by a select.
    llvm::Value* index = to_index(emit_expr(n->index), n->index.type());
    llvm::Value* ptrs = builder_.CreateInBoundsGEP(element, base, index);
    llvm::Type* vector = llvm::FixedVectorType::get(element, t.lanes);
    llvm::Value* mask = nullptr;
    if (lane_mask_ && llvm::cast<llvm::FixedVectorType>(lane_mask_->getType())->getNumElements() ==
                          unsigned(t.lanes))
      mask = lane_mask_;
    result = builder_.CreateMaskedGather(vector, ptrs, llvm::Align(element_bytes), mask);
  }
  if (t.is_bool())
    result = builder_.CreateICmpNE(result, llvm::Constant::getNullValue(result->getType()));
  return result;
}

}  // namespace lathe::codegen::detail
