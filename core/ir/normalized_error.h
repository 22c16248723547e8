// The project's error measure, how far a computed tensor is from its
// reference: the one every test, benchmark and tuning measurement checks
// against a tolerance.
#pragma once

#include "ir/tensor.h"

namespace lathe {

// max |got - want| over the largest finite |want| (the absolute difference
// when the reference is all zero or infinite); 0 when they are equal.
// Infinity where they disagree on a NaN (one is NaN, the other not) or on an
// infinity (want is ±inf and got is not the same), so that a NaN output
// never passes `error <= tolerance` the way std::max-based loops let it.
// Throws lathe::Error when the dtypes or shapes differ.
double normalized_error(const Tensor& got, const Tensor& want);

}  // namespace lathe
