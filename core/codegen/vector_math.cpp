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
  // exp(hi) is past FLT_MAX (n = 128); lo = ln(FLT_MIN), where n = -126
  // (from x = -86.99 down) gives an exponent field of 0: flushed to zero.
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

namespace lathe::codegen::detail {

namespace {

llvm::Value* horner(llvm::IRBuilder<>& b, llvm::Value* x,
                    std::initializer_list<double> highest_first) {
  llvm::Type* ft = x->getType();
  llvm::Value* acc = llvm::ConstantFP::get(ft, *highest_first.begin());
  for (auto it = highest_first.begin() + 1; it != highest_first.end(); ++it)
    acc = b.CreateFAdd(b.CreateFMul(acc, x), llvm::ConstantFP::get(ft, *it));
  return acc;
}

llvm::Type* int_vector_like(llvm::IRBuilder<>& b, llvm::Value* x) {
  return llvm::VectorType::get(b.getInt32Ty(), llvm::cast<llvm::VectorType>(x->getType()));
}

}  // namespace

// log: Cephes logf. x = m * 2^e with m in [sqrt(1/2), sqrt(2)), log(x) =
// e ln 2 + log1p(m - 1), ln 2 split in two constants and a degree-9
// polynomial for log1p: about 1 ulp. Denormals are scaled by 2^23 first;
// log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.
llvm::Value* emit_vector_logf(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* ft = x->getType();
  llvm::Type* it = int_vector_like(b, x);
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto ci = [&](int64_t v) { return llvm::ConstantInt::get(it, uint64_t(v), true); };
  llvm::Value* denormal = b.CreateFCmpOLT(x, c(1.17549435e-38));
  llvm::Value* xs = b.CreateSelect(denormal, b.CreateFMul(x, c(8388608.0)), x);
  llvm::Value* bits = b.CreateBitCast(xs, it);
  // e such that m = x / 2^e is in [0.5, 1).
  llvm::Value* e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, 23), ci(0xff)), ci(126));
  e = b.CreateSub(e, b.CreateSelect(denormal, ci(23), ci(0)));
  llvm::Value* m =
      b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, ci(int64_t(0x807fffff))), ci(0x3f000000)), ft);
  llvm::Value* small = b.CreateFCmpOLT(m, c(0.707106781186547524));
  e = b.CreateSub(e, b.CreateZExt(small, it));
  m = b.CreateFSub(b.CreateSelect(small, b.CreateFAdd(m, m), m), c(1.0));
  llvm::Value* z = b.CreateFMul(m, m);
  llvm::Value* y =
      horner(b, m,
             {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
              -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1});
  y = b.CreateFMul(b.CreateFMul(y, m), z);
  llvm::Value* fe = b.CreateSIToFP(e, ft);
  y = b.CreateFAdd(y, b.CreateFMul(fe, c(-2.12194440e-4)));
  y = b.CreateFAdd(y, b.CreateFMul(z, c(-0.5)));
  llvm::Value* r = b.CreateFAdd(b.CreateFAdd(m, y), b.CreateFMul(fe, c(0.693359375)));
  r = b.CreateSelect(b.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), r);
  r = b.CreateSelect(b.CreateFCmpOLT(x, c(0.0)), c(NAN), r);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, c(INFINITY)), x, r);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
}

namespace {

// Cephes sinf/cosf: j = the even multiple of pi/4 nearest |x|, r = |x| - j pi/4
// (pi/4 in three constants, Cody-Waite) in [-pi/4, pi/4], then the sine or
// the cosine polynomial of r by j's octant. About 1 ulp for |x| up to 8192;
// past it the reduction loses bits (as Cephes; sin(1e4) still within 2e-4).
// Infinity and NaN give NaN.
llvm::Value* sin_or_cos(llvm::IRBuilder<>& b, llvm::Value* x, bool cosine) {
  llvm::Type* ft = x->getType();
  llvm::Type* it = int_vector_like(b, x);
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto ci = [&](int64_t v) { return llvm::ConstantInt::get(it, uint64_t(v), true); };
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // Clamped so that j stays an int32 (NaN and inf are handled at the end).
  llvm::Value* axc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, ax, c(1.0e9));
  llvm::Value* j = b.CreateFPToSI(b.CreateFMul(axc, c(1.27323954473516)), it);
  j = b.CreateAnd(b.CreateAdd(j, ci(1)), ci(~int64_t(1)));
  llvm::Value* fj = b.CreateSIToFP(j, ft);
  llvm::Value* r = b.CreateFSub(axc, b.CreateFMul(fj, c(0.78515625)));
  r = b.CreateFSub(r, b.CreateFMul(fj, c(2.4187564849853515625e-4)));
  r = b.CreateFSub(r, b.CreateFMul(fj, c(3.77489497744594108e-8)));
  llvm::Value* z = b.CreateFMul(r, r);
  llvm::Value* sin_poly = b.CreateFAdd(
      r, b.CreateFMul(b.CreateFMul(r, z),
                      horner(b, z, {-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1})));
  llvm::Value* cos_poly = b.CreateFAdd(
      b.CreateFSub(c(1.0), b.CreateFMul(z, c(0.5))),
      b.CreateFMul(
          b.CreateFMul(z, z),
          horner(b, z, {2.443315711809948E-5, -1.388731625493765E-3, 4.166664568298827E-2})));
  // j is 0, 2, 4 or 6 modulo 8: octants 2 and 6 take the other polynomial,
  // 4 and 6 negate the sine; the cosine is negated in 2 and 4.
  llvm::Value* other = b.CreateICmpNE(b.CreateAnd(j, ci(2)), ci(0));
  llvm::Value* high = b.CreateICmpNE(b.CreateAnd(j, ci(4)), ci(0));
  llvm::Value* y = cosine ? b.CreateSelect(other, sin_poly, cos_poly)
                          : b.CreateSelect(other, cos_poly, sin_poly);
  llvm::Value* negate =
      cosine ? b.CreateXor(high, other) : b.CreateXor(high, b.CreateFCmpOLT(x, c(0.0)));
  y = b.CreateSelect(negate, b.CreateFNeg(y), y);
  return b.CreateSelect(b.CreateFCmpOEQ(ax, c(INFINITY)), c(NAN),
                        b.CreateSelect(b.CreateFCmpUNO(x, x), x, y));
}

}  // namespace

llvm::Value* emit_vector_sinf(llvm::IRBuilder<>& b, llvm::Value* x) {
  return sin_or_cos(b, x, false);
}

llvm::Value* emit_vector_cosf(llvm::IRBuilder<>& b, llvm::Value* x) {
  return sin_or_cos(b, x, true);
}

// pow: exp(y log |x|) with C's rules where that formula does not hold: a
// negative base gives a negative result for an odd integer exponent and NaN
// for a non-integer one; pow(x, 0) = pow(1, y) = 1. log's error of ~1 ulp
// grows with |y log x| by exp, so the relative error is about
// |y log x| * 1e-7 in float32 (under 1e-5 up to the overflow bound, 88) and
// |y log x| * 2e-16 in float64 (double_math.cpp's exp and log).
llvm::Value* emit_vector_pow(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  llvm::Type* ft = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  const bool f64 = ft->getScalarType()->isDoubleTy();
  llvm::Value* log = f64 ? emit_vector_log_f64(b, ax) : emit_vector_logf(b, ax);
  llvm::Value* exponent = b.CreateFMul(y, log);
  llvm::Value* r = f64 ? emit_vector_exp_f64(b, exponent) : emit_vector_expf(b, exponent);
  llvm::Value* integer = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, y), y);
  llvm::Value* half = b.CreateFMul(y, c(0.5));
  llvm::Value* odd = b.CreateAnd(
      integer, b.CreateFCmpONE(b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, half), half));
  llvm::Value* negative = b.CreateFCmpOLT(x, c(0.0));
  r = b.CreateSelect(b.CreateAnd(negative, odd), b.CreateFNeg(r), r);
  r = b.CreateSelect(b.CreateAnd(negative, b.CreateNot(integer)), c(NAN), r);
  return b.CreateSelect(b.CreateOr(b.CreateFCmpOEQ(y, c(0.0)), b.CreateFCmpOEQ(x, c(1.0))), c(1.0),
                        r);
}

}  // namespace lathe::codegen::detail
