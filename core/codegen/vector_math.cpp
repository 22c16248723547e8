// Vector float32 exp as straight-line SIMD code. LLVM lowers llvm.exp on a
// vector to one libm call per lane; softmax, sigmoid and GELU epilogues spend
// most of their time there. This is the Cephes expf scheme (as in TVM's
// fast_exp and most SIMD math libraries): exp(x) = 2^n * exp(r) with
// n = round(x / ln 2), r = x - n ln 2 split in two constants for accuracy, and
// a degree-6 polynomial for exp(r); about 1 ulp on the finite range.
#include <cmath>

#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

llvm::Value* emit_vector_expf(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* ft = x->getType();
  auto* vt = llvm::cast<llvm::VectorType>(ft);
  llvm::Type* it = llvm::VectorType::get(b.getInt32Ty(), vt->getElementCount());
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  const double hi = 88.72283935546875, lo = -87.33654022216797;

  llvm::Value* xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, c(hi));
  xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, xc, c(lo));
  llvm::Value* fx = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::floor, b.CreateFAdd(b.CreateFMul(xc, c(1.44269504088896341)), c(0.5)));
  llvm::Value* r = b.CreateFSub(xc, b.CreateFMul(fx, c(0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(fx, c(-2.12194440e-4)));
  llvm::Value* z = b.CreateFMul(r, r);
  llvm::Value* y = c(1.9875691500E-4);
  for (double coefficient :
       {1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1})
    y = b.CreateFAdd(b.CreateFMul(y, r), c(coefficient));
  y = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(y, z), r), c(1.0));
  // 2^n from the exponent bits; n + 127 stays in [1, 254] on the clamped range.
  llvm::Value* n = b.CreateFPToSI(fx, it);
  llvm::Value* bits = b.CreateShl(b.CreateAdd(n, llvm::ConstantInt::get(it, 127)), 23);
  y = b.CreateFMul(y, b.CreateBitCast(bits, ft));
  // Outside the finite range: 0 below, +inf above; NaN stays NaN.
  y = b.CreateSelect(b.CreateFCmpOLT(x, c(lo)), c(0.0), y);
  y = b.CreateSelect(b.CreateFCmpOGT(x, c(hi)), c(INFINITY), y);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

}  // namespace lathe::codegen::detail
