// The one printed form of expressions, after TVMScript: A[i, k], T.max(a, b),
// a // b for integer division, T.Ramp(base, stride, lanes).
#pragma once

#include <string>

#include "te/tensor.h"

namespace lathe::te {

std::string to_string(const Expr& e);
// "C = compute((1024, 1024), lambda i, j: T.sum(A[i, k] * B[k, j], axis=[k]))"
std::string to_string(const Tensor& t);

}  // namespace lathe::te
