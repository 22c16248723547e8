// Named tensors to and from NumPy .npz files, as `lathe run` reads and writes them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/tensor.h"

namespace lathe::driver {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

NamedTensors read_npz_tensors(const std::string& path);
void write_npz_tensors(const std::string& path, const NamedTensors& tensors);

}  // namespace lathe::driver
