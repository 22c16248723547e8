// Float64 exp and log as straight-line code, for targets without libm
// (NVPTX): a model in double, or a float op that accumulates in double
// (softmax cross-entropy, integer pow), needs them on the GPU too.
//
// exp: x = n ln2 + r with |r| <= ln2 / 2 (ln 2 in two parts, the first
// short enough that n times it is exact), exp(r) by its Taylor series to
// r^13 / 13! (the next term is under 2^-56 of the sum), times 2^n as
// 2^(n/2) * 2^(n - n/2): each factor a normal number for n in [-1076, 1024],
// so results down to the denormals round as a multiplication does and the
// ends overflow to inf and underflow to 0 by themselves.
// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.172, by its odd series to s^23 (the next
// term is under 2^-60), plus e ln 2 in two parts. Both within a few ulp.
#include <cmath>
#include <cstdint>

#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

namespace {

llvm::Type* int64_vector_like(llvm::IRBuilder<>& b, llvm::Value* x) {
  return llvm::VectorType::get(b.getInt64Ty(), llvm::cast<llvm::VectorType>(x->getType()));
}

}  // namespace

llvm::Value* emit_vector_exp_f64(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* ft = x->getType();
  llvm::Type* it = int64_vector_like(b, x);
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  // exp(hi) is past DBL_MAX (n = 1024); exp(lo) is under half the least
  // denormal (n = -1076).
  const double hi = 709.8, lo = -746.0;
  llvm::Value* xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, c(hi));
  xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, xc, c(lo));
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven,
                                          b.CreateFMul(xc, c(1.4426950408889634074)));
  llvm::Value* r = b.CreateFSub(xc, b.CreateFMul(n, c(6.93145751953125E-1)));
  r = b.CreateFSub(r, b.CreateFMul(n, c(1.42860682030941723212E-6)));
  // Horner from 1/13! down to 1/0!.
  double inverse_factorial[14];
  inverse_factorial[0] = 1.0;
  for (int k = 1; k < 14; ++k) inverse_factorial[k] = inverse_factorial[k - 1] / k;
  llvm::Value* y = c(inverse_factorial[13]);
  for (int k = 12; k >= 0; --k) y = b.CreateFAdd(b.CreateFMul(y, r), c(inverse_factorial[k]));
  llvm::Value* ni = b.CreateFPToSI(n, it);
  llvm::Value* half = b.CreateAShr(ni, 1);
  auto power_of_two = [&](llvm::Value* e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, llvm::ConstantInt::get(it, 1023)), 52), ft);
  };
  y = b.CreateFMul(b.CreateFMul(y, power_of_two(half)), power_of_two(b.CreateSub(ni, half)));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

llvm::Value* emit_vector_log_f64(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* ft = x->getType();
  llvm::Type* it = int64_vector_like(b, x);
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto ci = [&](int64_t v) { return llvm::ConstantInt::get(it, uint64_t(v), true); };
  // Denormals scaled by 2^54 first.
  llvm::Value* denormal = b.CreateFCmpOLT(x, c(2.2250738585072014e-308));
  llvm::Value* xs = b.CreateSelect(denormal, b.CreateFMul(x, c(18014398509481984.0)), x);
  llvm::Value* bits = b.CreateBitCast(xs, it);
  // e such that m = x / 2^e is in [1, 2), then [sqrt(1/2), sqrt(2)).
  llvm::Value* e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, 52), ci(0x7ff)), ci(1023));
  e = b.CreateSub(e, b.CreateSelect(denormal, ci(54), ci(0)));
  llvm::Value* m = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, ci(int64_t(0x800fffffffffffffULL))), ci(0x3ff0000000000000LL)),
      ft);
  llvm::Value* large = b.CreateFCmpOGT(m, c(1.41421356237309504880));
  e = b.CreateAdd(e, b.CreateZExt(large, it));
  m = b.CreateSelect(large, b.CreateFMul(m, c(0.5)), m);
  llvm::Value* s = b.CreateFDiv(b.CreateFSub(m, c(1.0)), b.CreateFAdd(m, c(1.0)));
  llvm::Value* z = b.CreateFMul(s, s);
  // 2 (s + s^3/3 + ... + s^23/23) = 2s + 2s z (1/3 + z/5 + ... + z^10/23).
  llvm::Value* p = c(1.0 / 23);
  for (int k = 21; k >= 3; k -= 2) p = b.CreateFAdd(b.CreateFMul(p, z), c(1.0 / k));
  llvm::Value* two_s = b.CreateFAdd(s, s);
  llvm::Value* log_m = b.CreateFAdd(two_s, b.CreateFMul(b.CreateFMul(two_s, z), p));
  // ln 2's first part has 32 significant bits: e times it is exact.
  llvm::Value* fe = b.CreateSIToFP(e, ft);
  llvm::Value* r =
      b.CreateFAdd(b.CreateFMul(fe, c(6.93147180369123816490e-01)),
                   b.CreateFAdd(log_m, b.CreateFMul(fe, c(1.90821492927058770002e-10))));
  r = b.CreateSelect(b.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), r);
  r = b.CreateSelect(b.CreateFCmpOLT(x, c(0.0)), c(NAN), r);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, c(INFINITY)), x, r);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
}

}  // namespace lathe::codegen::detail
