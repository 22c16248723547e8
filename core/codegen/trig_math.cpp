// Float32 tan, the inverse trigonometric and the hyperbolic functions as
// straight-line code, for targets without libm (NVPTX): the Cephes single-
// precision schemes (atanf, asinf, acosf, sinhf, asinhf, acoshf, atanhf),
// each a polynomial on a reduced range plus identities through the exp, log
// and sin/cos of vector_math.cpp. Every lane takes both sides of a range
// split and selects, as SIMD and GPU code does; NaN stays NaN.
#include <cmath>
#include <initializer_list>

#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.693147180559945309417;

struct Math {
  llvm::IRBuilder<>& b;
  llvm::Type* type;

  llvm::Value* c(double v) const { return llvm::ConstantFP::get(type, v); }
  llvm::Value* abs(llvm::Value* x) const {
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  }
  llvm::Value* sqrt(llvm::Value* x) const {
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  }
  llvm::Value* with_sign_of(llvm::Value* magnitude, llvm::Value* x) const {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
  }
  // P(z), coefficients from the highest degree down.
  llvm::Value* poly(llvm::Value* z, std::initializer_list<double> highest_first) const {
    llvm::Value* acc = c(*highest_first.begin());
    for (auto it = highest_first.begin() + 1; it != highest_first.end(); ++it)
      acc = b.CreateFAdd(b.CreateFMul(acc, z), c(*it));
    return acc;
  }
  // x + x^3 P(x^2): the odd series every function here ends in.
  llvm::Value* odd(llvm::Value* x, std::initializer_list<double> highest_first) const {
    llvm::Value* z = b.CreateFMul(x, x);
    return b.CreateFAdd(x, b.CreateFMul(b.CreateFMul(z, x), poly(z, highest_first)));
  }
  llvm::Value* keep_nan(llvm::Value* x, llvm::Value* r) const {
    return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
  }
};

// asin on [-0.5, 0.5] (Cephes asinf's polynomial).
llvm::Value* asin_small(const Math& m, llvm::Value* x) {
  return m.odd(
      x, {4.2163199048E-2, 2.4181311049E-2, 4.5470025998E-2, 7.4953002686E-2, 1.6666752422E-1});
}

// log(|x| + sqrt(x^2 + 1)) past 0.5, as log|x| + ln 2 where x^2 would
// overflow; a polynomial below (the log form cancels there).
llvm::Value* asinh_positive(const Math& m, llvm::Value* a) {
  llvm::Value* small =
      m.odd(a, {2.0122003309E-2, -4.2699340972E-2, 7.4847586088E-2, -1.6666288134E-1});
  llvm::Value* huge = m.b.CreateFAdd(emit_vector_logf(m.b, a), m.c(kLn2));
  llvm::Value* middle = emit_vector_logf(
      m.b, m.b.CreateFAdd(a, m.sqrt(m.b.CreateFAdd(m.b.CreateFMul(a, a), m.c(1.0)))));
  llvm::Value* r = m.b.CreateSelect(m.b.CreateFCmpOLT(a, m.c(0.5)), small, middle);
  return m.b.CreateSelect(m.b.CreateFCmpOGT(a, m.c(1500.0)), huge, r);
}

}  // namespace

// tan = sin / cos of the same argument: each about 1 ulp on the reduced
// range, so about 2 ulp away from the poles.
llvm::Value* emit_vector_tanf(llvm::IRBuilder<>& b, llvm::Value* x) {
  return b.CreateFDiv(emit_vector_sinf(b, x), emit_vector_cosf(b, x));
}

// atan: |x| reduced to [0, tan(pi/8)] by atan(x) = pi/4 + atan((x-1)/(x+1))
// and pi/2 - atan(1/x), then an odd polynomial; +-inf gives +-pi/2.
llvm::Value* emit_vector_atanf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* a = m.abs(x);
  llvm::Value* big = b.CreateFCmpOGT(a, m.c(2.414213562373095));
  llvm::Value* middle = b.CreateFCmpOGT(a, m.c(0.4142135623730950));
  llvm::Value* t = b.CreateSelect(
      big, b.CreateFNeg(b.CreateFDiv(m.c(1.0), a)),
      b.CreateSelect(middle, b.CreateFDiv(b.CreateFSub(a, m.c(1.0)), b.CreateFAdd(a, m.c(1.0))),
                     a));
  llvm::Value* base =
      b.CreateSelect(big, m.c(kPi / 2), b.CreateSelect(middle, m.c(kPi / 4), m.c(0)));
  llvm::Value* r = b.CreateFAdd(
      base, m.odd(t, {8.05374449538e-2, -1.38776856032E-1, 1.99777106478E-1, -3.33329491539E-1}));
  return m.keep_nan(x, m.with_sign_of(r, x));
}

// asin: the polynomial up to |x| = 0.5; past it asin(a) = pi/2 - 2 asin(s)
// with s = sqrt((1 - a) / 2) <= 0.5. NaN past |x| = 1 (the sqrt's).
llvm::Value* emit_vector_asinf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* a = m.abs(x);
  llvm::Value* s = m.sqrt(b.CreateFMul(m.c(0.5), b.CreateFSub(m.c(1.0), a)));
  llvm::Value* large = b.CreateFSub(m.c(kPi / 2), b.CreateFMul(m.c(2.0), asin_small(m, s)));
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOGT(a, m.c(0.5)), large, asin_small(m, a));
  return m.keep_nan(x, m.with_sign_of(r, x));
}

// acos = pi/2 - asin(x) in the middle; near +-1, where that cancels,
// 2 asin(sqrt((1 - x) / 2)) and pi - 2 asin(sqrt((1 + x) / 2)).
llvm::Value* emit_vector_acosf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* one = m.c(1.0);
  llvm::Value* upper =
      b.CreateFMul(m.c(2.0), asin_small(m, m.sqrt(b.CreateFMul(m.c(0.5), b.CreateFSub(one, x)))));
  llvm::Value* lower = b.CreateFSub(
      m.c(kPi),
      b.CreateFMul(m.c(2.0), asin_small(m, m.sqrt(b.CreateFMul(m.c(0.5), b.CreateFAdd(one, x))))));
  llvm::Value* middle = b.CreateFSub(m.c(kPi / 2), asin_small(m, x));
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOGT(x, m.c(0.5)), upper,
                                  b.CreateSelect(b.CreateFCmpOLT(x, m.c(-0.5)), lower, middle));
  // Past |x| = 1 the sqrt is NaN on one side only.
  r = b.CreateSelect(b.CreateFCmpOGT(m.abs(x), one), m.c(NAN), r);
  return m.keep_nan(x, r);
}

// sinh: a polynomial up to |x| = 1; past it (e - 1/e) / 2 with e = exp(|x|)
// formed as h * h, h = exp(|x| / 2), so that it stays finite up to
// sinh's own overflow (89.4) where exp(|x|) alone overflows at 88.7.
llvm::Value* emit_vector_sinhf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* a = m.abs(x);
  llvm::Value* h = emit_vector_expf(b, b.CreateFMul(a, m.c(0.5)));
  llvm::Value* large = b.CreateFSub(b.CreateFMul(b.CreateFMul(h, m.c(0.5)), h),
                                    b.CreateFDiv(b.CreateFDiv(m.c(0.5), h), h));
  llvm::Value* small = m.odd(a, {2.03721912945E-4, 8.33028376239E-3, 1.66667160211E-1});
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOGT(a, m.c(1.0)), large, small);
  return m.keep_nan(x, m.with_sign_of(r, x));
}

// cosh = (e + 1/e) / 2, e as for sinh: no cancellation anywhere.
llvm::Value* emit_vector_coshf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* h = emit_vector_expf(b, b.CreateFMul(m.abs(x), m.c(0.5)));
  llvm::Value* r = b.CreateFAdd(b.CreateFMul(b.CreateFMul(h, m.c(0.5)), h),
                                b.CreateFDiv(b.CreateFDiv(m.c(0.5), h), h));
  return m.keep_nan(x, r);
}

llvm::Value* emit_vector_asinhf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  return m.keep_nan(x, m.with_sign_of(asinh_positive(m, m.abs(x)), x));
}

// acosh: log(x + sqrt((x - 1)(x + 1))); near 1, where the log's argument
// is close to 1, sqrt(2 z) P(z) with z = x - 1; log x + ln 2 where x^2
// would overflow. NaN below 1.
llvm::Value* emit_vector_acoshf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* z = b.CreateFSub(x, m.c(1.0));
  llvm::Value* near_one =
      b.CreateFMul(m.poly(z, {1.7596881071E-3, -7.5272886713E-3, 2.6454905019E-2, -1.1784741703E-1,
                              1.4142135263E0}),
                   m.sqrt(z));
  llvm::Value* middle =
      emit_vector_logf(b, b.CreateFAdd(x, m.sqrt(b.CreateFMul(z, b.CreateFAdd(x, m.c(1.0))))));
  llvm::Value* huge = b.CreateFAdd(emit_vector_logf(b, x), m.c(kLn2));
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOLT(z, m.c(0.5)), near_one, middle);
  r = b.CreateSelect(b.CreateFCmpOGT(x, m.c(1500.0)), huge, r);
  r = b.CreateSelect(b.CreateFCmpOLT(x, m.c(1.0)), m.c(NAN), r);
  return m.keep_nan(x, r);
}

// atanh: an odd polynomial below |x| = 0.5, log((1 + x) / (1 - x)) / 2
// above (+-inf at +-1, NaN past it).
llvm::Value* emit_vector_atanhf(llvm::IRBuilder<>& b, llvm::Value* x) {
  const Math m{b, x->getType()};
  llvm::Value* one = m.c(1.0);
  llvm::Value* small = m.odd(x, {1.81740078349E-1, 8.24370301058E-2, 1.46691431730E-1,
                                 1.99782164500E-1, 3.33337300303E-1});
  llvm::Value* large = b.CreateFMul(
      m.c(0.5), emit_vector_logf(b, b.CreateFDiv(b.CreateFAdd(one, x), b.CreateFSub(one, x))));
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOLT(m.abs(x), m.c(0.5)), small, large);
  r = b.CreateSelect(b.CreateFCmpOGT(m.abs(x), one), m.c(NAN), r);
  return m.keep_nan(x, r);
}

}  // namespace lathe::codegen::detail
