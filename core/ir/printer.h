// The graph's one text form, shown by `lathe inspect --print`, the studio and tests.
#pragma once

#include <string>

#include "ir/graph.h"

namespace lathe {

// One line per input, constant, node and output:
//   %conv1_out = Conv(%input, %conv1.weight) {group=1, strides=[2,2]} : float32[1,64,112,112]  #
//   conv1
std::string print_graph(const Graph& graph);

}  // namespace lathe
