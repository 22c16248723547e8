// Math without libm (llvm_codegen.h: emit_polynomial_math) and its host
// evaluation for checks (gpu_math.h).
#include "codegen/gpu_math.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <cmath>

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
  if (!type->getScalarType()->isFloatTy()) return nullptr;
  // The polynomials take vectors; a scalar goes through a vector of one.
  const bool scalar = !type->isVectorTy();
  auto widen = [&](llvm::Value* v) -> llvm::Value* {
    if (!scalar) return v;
    llvm::Type* one = llvm::FixedVectorType::get(v->getType(), 1);
    return b.CreateInsertElement(llvm::PoisonValue::get(one), v, uint64_t(0));
  };
  llvm::Value* x = widen(args[0]);
  llvm::Value* r = nullptr;
  switch (op) {
    case te::Intrinsic::Exp:
      r = emit_vector_expf(b, x);
      break;
    case te::Intrinsic::Log:
      r = emit_vector_logf(b, x);
      break;
    case te::Intrinsic::Tanh:
      r = emit_vector_tanhf(b, x);
      break;
    case te::Intrinsic::Erf:
      r = emit_vector_erff(b, x);
      break;
    case te::Intrinsic::Sin:
      r = emit_vector_sinf(b, x);
      break;
    case te::Intrinsic::Cos:
      r = emit_vector_cosf(b, x);
      break;
    case te::Intrinsic::Sigmoid: {
      llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
      r = b.CreateFDiv(one, b.CreateFAdd(one, emit_vector_expf(b, b.CreateFNeg(x))));
      break;
    }
    case te::Intrinsic::Pow:
      if (llvm::Value* p = small_power(b, args[0], args[1])) return p;
      r = emit_vector_powf(b, x, widen(args[1]));
      break;
    default:
      return nullptr;
  }
  return scalar ? b.CreateExtractElement(r, uint64_t(0)) : r;
}

}  // namespace detail

std::vector<float> evaluate_polynomial_math(te::Intrinsic op, const std::vector<float>& x,
                                            const std::vector<float>& y) {
  const bool binary = te::intrinsic_arity(op) == 2;
  if (binary && y.size() != x.size())
    fail(str("evaluate_polynomial_math: ", te::intrinsic_name(op), " takes ", x.size(),
             " second arguments, got ", y.size()));
  detail::initialize_llvm();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("polynomial_math", *context);
  llvm::IRBuilder<> b(*context);
  // float f(float x, float y), the scalar form every GPU lane runs.
  llvm::Function* f = llvm::Function::Create(
      llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy(), b.getFloatTy()}, false),
      llvm::GlobalValue::ExternalLinkage, "f", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", f));
  std::vector<llvm::Value*> args = {f->getArg(0)};
  if (binary) args.push_back(f->getArg(1));
  llvm::Value* r = detail::emit_polynomial_math(b, op, args);
  if (!r)
    fail(str("evaluate_polynomial_math: ", te::intrinsic_name(op),
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
  auto* fn = address->toPtr<float (*)(float, float)>();
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = fn(x[i], binary ? y[i] : 0.0f);
  return out;
}

}  // namespace lathe::codegen
