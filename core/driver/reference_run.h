// A model run on the reference kernels: the oracle `lathe run --reference`
// and the tests compare compiled code with.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"

namespace lathe::driver {

// The graph's outputs, in order, for `inputs` by graph input name. Throws
// when an input is missing or does not match its declared type.
std::vector<Tensor> run_reference(const Graph& graph, const std::map<std::string, Tensor>& inputs);

}  // namespace lathe::driver
