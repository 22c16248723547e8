// The math a target without libm gets (the cuda kind: LLVM's NVPTX
// back end has no libcalls), evaluated here on the host CPU: the same LLVM IR
// the NVPTX code generator emits (codegen/gpu_math.cpp), JIT-compiled for
// this CPU, so its accuracy can be checked against libm without a GPU.
#pragma once

#include <string>
#include <vector>

#include "te/expr.h"

namespace lathe::codegen {

// op(x[i]) — or op(x[i], y[i]) for pow — for every i. Throws Error for an
// op the polynomial math does not cover (the cuda target refuses it too).
std::vector<float> evaluate_polynomial_math(te::Intrinsic op, const std::vector<float>& x,
                                            const std::vector<float>& y = {});
std::vector<double> evaluate_polynomial_math_f64(te::Intrinsic op, const std::vector<double>& x,
                                                 const std::vector<double>& y = {});

// What the polynomial math covers, for messages: "float32 exp, log, ...".
std::string polynomial_math_coverage();

}  // namespace lathe::codegen
