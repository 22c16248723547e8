// Named tensors to and from NumPy .npz files, as `lathe run` reads and writes them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/tensor.h"

namespace lathe::driver {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// float16 travels as NumPy's '<f2'. NumPy has no bfloat16: a bfloat16 tensor
// is written as '<f4' (widened, exactly), and as_input_dtype rounds a float32
// array given for a bfloat16 input.
NamedTensors read_npz_tensors(const std::string& path);
void write_npz_tensors(const std::string& path, const NamedTensors& tensors);

// `t`, read from a file, as an input of dtype `expected` takes it: a float32
// array for a bfloat16 input rounded to nearest even (as Cast rounds);
// anything else unchanged, for the caller's type check to judge.
Tensor as_input_dtype(const Tensor& t, DType expected);

}  // namespace lathe::driver
