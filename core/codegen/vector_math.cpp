// Vector float32 exp, erf and tanh as straight-line SIMD code.
//
// exp: LLVM lowers llvm.exp on a
// vector to one libm call per lane; softmax, sigmoid and GELU epilogues spend
// most of their time there. This is the Cephes expf scheme (as in TVM's
// fast_exp and most SIMD math libraries): exp(x) = 2^n * exp(r) with
// n = round(x / ln 2), r = x - n ln 2 split in two constants for accuracy, and
// a degree-6 polynomial for exp(r); about 1 ulp on the normal range.
//
// Every constant is a register the loop around it holds (16 in all on AVX2),
// so the range ends cost none of their own: 2^n is built as 2 * 2^(n-1),
// which keeps the exponent field in [0, 254] for n in [-126, 128] and lets the
// final product overflow to +inf by itself past ln(FLT_MAX); below the clamp
// the exponent field is 0, and the result with it, where exp(x) is under
// 2^-125.5 (denormal or within half a binade of FLT_MIN: flushed to zero).
#include <cmath>
#include <initializer_list>
#include <iterator>

#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

llvm::Value* emit_vector_expf(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* ft = x->getType();
  auto* vt = llvm::cast<llvm::VectorType>(ft);
  llvm::Type* it = llvm::VectorType::get(b.getInt32Ty(), vt->getElementCount());
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  // exp(hi) is past FLT_MAX (n = 128); exp(lo) = FLT_MIN (n = -126).
  const double hi = 88.8, lo = -87.33654022216797;

  llvm::Value* xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, c(hi));
  xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, xc, c(lo));
  llvm::Value* fx =
      b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(xc, c(1.44269504088896341)));
  llvm::Value* r = b.CreateFSub(xc, b.CreateFMul(fx, c(0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(fx, c(-2.12194440e-4)));
  llvm::Value* z = b.CreateFMul(r, r);
  llvm::Value* y = c(1.9875691500E-4);
  for (double coefficient :
       {1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1})
    y = b.CreateFAdd(b.CreateFMul(y, r), c(coefficient));
  y = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(y, z), r), c(1.0));
  // 2^(n-1) from the exponent bits (n - 1 + 127 in [0, 254]), times 2 as y + y.
  llvm::Value* n = b.CreateFPToSI(fx, it);
  llvm::Value* bits = b.CreateShl(b.CreateAdd(n, llvm::ConstantInt::get(it, 126)), 23);
  y = b.CreateFMul(b.CreateFAdd(y, y), b.CreateBitCast(bits, ft));
  // minnum/maxnum turned NaN into a bound; NaN stays NaN.
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

namespace {

// x * P(x^2) / Q(x^2) on x clamped to [-bound, bound], coefficients from the
// lowest degree up; NaN stays NaN.
llvm::Value* odd_rational(llvm::IRBuilder<>& b, llvm::Value* x, double bound,
                          std::initializer_list<double> p, std::initializer_list<double> q) {
  llvm::Type* ft = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  llvm::Value* xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, c(bound));
  xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, xc, c(-bound));
  llvm::Value* x2 = b.CreateFMul(xc, xc);
  auto horner = [&](std::initializer_list<double> coefficients) {
    llvm::Value* acc = c(*std::rbegin(coefficients));
    for (auto it = std::rbegin(coefficients) + 1; it != std::rend(coefficients); ++it)
      acc = b.CreateFAdd(b.CreateFMul(acc, x2), c(*it));
    return acc;
  };
  llvm::Value* y = b.CreateFDiv(b.CreateFMul(xc, horner(p)), horner(q));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

}  // namespace

// erf and tanh: the odd rational approximations of Eigen's fast float erf
// and tanh (as XLA's): a relative error under 5e-7 (7 ulp at most, near the
// clamp), exactly +-1 past |x| = 4 (erf) or 7.905 (tanh), where float
// rounds the function to +-1 anyway.
llvm::Value* emit_vector_erff(llvm::IRBuilder<>& b, llvm::Value* x) {
  return odd_rational(
      b, x, 4.0,
      {-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04, -5.69250639462346e-05,
       -2.10102402082508e-06, 2.77068142495902e-08, -2.72614225801306e-10},
      {-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03, -2.13374055278905e-04,
       -1.45660718464996e-05});
}

llvm::Value* emit_vector_tanhf(llvm::IRBuilder<>& b, llvm::Value* x) {
  return odd_rational(
      b, x, 7.90531110763549805,
      {4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
       -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16},
      {4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06});
}

}  // namespace lathe::codegen::detail
