// Math without libm (llvm_codegen.h: emit_polynomial_math) and its host
// evaluation for checks (gpu_math.h).
#include "codegen/gpu_math.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <cmath>
#include <map>
#include <type_traits>

#include "codegen/llvm_codegen.h"
#include "support/error.h"

namespace lathe::codegen {

namespace detail {

namespace {

// The constant an exponent is when every lane holds the same one.
const llvm::ConstantFP* constant_exponent(llvm::Value* y) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(y)) return c;
  if (auto* c = llvm::dyn_cast<llvm::Constant>(y))
    return llvm::dyn_cast_or_null<llvm::ConstantFP>(c->getSplatValue());
  return nullptr;
}

// pow with a small constant exponent as multiplications (x^2 of a variance is
// the common one: exact to the rounding of the products, and cheap).
llvm::Value* small_power(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  const llvm::ConstantFP* c = constant_exponent(y);
  if (!c) return nullptr;
  const double e = c->getValueAPF().convertToDouble();
  if (e == 0.5) return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  if (e != std::round(e) || std::fabs(e) > 4 || e == 0) return nullptr;
  llvm::Value* r = x;
  for (int i = 1; i < int(std::fabs(e)); ++i) r = b.CreateFMul(r, x);
  return e > 0 ? r : b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), r);
}

}  // namespace

llvm::Value* emit_polynomial_math(llvm::IRBuilder<>& b, te::Intrinsic op,
                                  const std::vector<llvm::Value*>& args) {
  llvm::Type* type = args[0]->getType();
  const bool f32 = type->getScalarType()->isFloatTy();
  if (!f32 && !type->getScalarType()->isDoubleTy()) return nullptr;
  // The polynomials take vectors; a scalar goes through a vector of one.
  const bool scalar = !type->isVectorTy();
  auto widen = [&](llvm::Value* v) -> llvm::Value* {
    if (!scalar) return v;
    llvm::Type* one = llvm::FixedVectorType::get(v->getType(), 1);
    return b.CreateInsertElement(llvm::PoisonValue::get(one), v, uint64_t(0));
  };
  llvm::Value* x = widen(args[0]);
  auto exp = [&](llvm::Value* v) {
    return f32 ? emit_vector_expf(b, v) : emit_vector_exp_f64(b, v);
  };
  llvm::Value* r = nullptr;
  switch (op) {
    case te::Intrinsic::Exp:
      r = exp(x);
      break;
    case te::Intrinsic::Log:
      r = f32 ? emit_vector_logf(b, x) : emit_vector_log_f64(b, x);
      break;
    case te::Intrinsic::Sigmoid: {
      llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
      r = b.CreateFDiv(one, b.CreateFAdd(one, exp(b.CreateFNeg(x))));
      break;
    }
    case te::Intrinsic::Pow:
      if (llvm::Value* p = small_power(b, args[0], args[1])) return p;
      r = emit_vector_pow(b, x, widen(args[1]));
      break;
    default: {
      if (!f32) return nullptr;
      using Emit = llvm::Value* (*)(llvm::IRBuilder<>&, llvm::Value*);
      static const std::map<te::Intrinsic, Emit> float32_only = {
          {te::Intrinsic::Tanh, emit_vector_tanhf},   {te::Intrinsic::Erf, emit_vector_erff},
          {te::Intrinsic::Sin, emit_vector_sinf},     {te::Intrinsic::Cos, emit_vector_cosf},
          {te::Intrinsic::Tan, emit_vector_tanf},     {te::Intrinsic::Asin, emit_vector_asinf},
          {te::Intrinsic::Acos, emit_vector_acosf},   {te::Intrinsic::Atan, emit_vector_atanf},
          {te::Intrinsic::Sinh, emit_vector_sinhf},   {te::Intrinsic::Cosh, emit_vector_coshf},
          {te::Intrinsic::Asinh, emit_vector_asinhf}, {te::Intrinsic::Acosh, emit_vector_acoshf},
          {te::Intrinsic::Atanh, emit_vector_atanhf}};
      const auto it = float32_only.find(op);
      if (it == float32_only.end()) return nullptr;
      r = it->second(b, x);
    }
  }
  return scalar ? b.CreateExtractElement(r, uint64_t(0)) : r;
}

}  // namespace detail

namespace {

// T f(T x, T y), the scalar form every GPU lane runs, JIT-compiled for the
// host and applied to each x[i] (and y[i]).
template <typename T>
std::vector<T> evaluate(te::Intrinsic op, const std::vector<T>& x, const std::vector<T>& y) {
  const bool binary = te::intrinsic_arity(op) == 2;
  if (binary && y.size() != x.size())
    fail(str("evaluate_polynomial_math: ", te::intrinsic_name(op), " takes ", x.size(),
             " second arguments, got ", y.size()));
  detail::initialize_llvm();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("polynomial_math", *context);
  llvm::IRBuilder<> b(*context);
  llvm::Type* t = std::is_same_v<T, float> ? b.getFloatTy() : b.getDoubleTy();
  llvm::Function* f = llvm::Function::Create(llvm::FunctionType::get(t, {t, t}, false),
                                             llvm::GlobalValue::ExternalLinkage, "f", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", f));
  std::vector<llvm::Value*> args = {f->getArg(0)};
  if (binary) args.push_back(f->getArg(1));
  llvm::Value* r = detail::emit_polynomial_math(b, op, args);
  if (!r)
    fail(str("evaluate_polynomial_math: ", te::intrinsic_name(op), " of ",
             std::is_same_v<T, float> ? "float32" : "float64",
             " has no polynomial (the cuda target refuses it)"));
  b.CreateRet(r);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) fail(str("evaluate_polynomial_math: ", problems));

  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) fail(str("evaluate_polynomial_math: ", llvm::toString(jit.takeError())));
  if (llvm::Error e =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    fail(str("evaluate_polynomial_math: ", llvm::toString(std::move(e))));
  auto address = (*jit)->lookup("f");
  if (!address) fail(str("evaluate_polynomial_math: ", llvm::toString(address.takeError())));
  auto* fn = address->toPtr<T (*)(T, T)>();
  std::vector<T> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = fn(x[i], binary ? y[i] : T(0));
  return out;
}

}  // namespace

std::vector<float> evaluate_polynomial_math(te::Intrinsic op, const std::vector<float>& x,
                                            const std::vector<float>& y) {
  return evaluate(op, x, y);
}

std::vector<double> evaluate_polynomial_math_f64(te::Intrinsic op, const std::vector<double>& x,
                                                 const std::vector<double>& y) {
  return evaluate(op, x, y);
}

std::string polynomial_math_coverage() {
  return "float32 exp, log, pow, tanh, erf, sigmoid, sin, cos, tan, asin, acos, atan, sinh, "
         "cosh, asinh, acosh and atanh, float64 exp, log, pow and sigmoid";
}

}  // namespace lathe::codegen
