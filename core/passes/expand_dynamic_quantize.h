// DynamicQuantizeLinear spelled as the ONNX function that defines it, for
// GPU targets.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

// Each DynamicQuantizeLinear becomes ReduceMin and ReduceMax over the whole
// tensor, the scale and zero point computed from them as the op defines
// (and as its compute does, bit for bit), and QuantizeLinear. On a GPU the
// one-op form would need its grid-wide range before any element is
// quantized, which the blocks of one kernel cannot wait for; expanded, the
// reductions are kernels of their own. The node's three outputs keep their
// values.
Graph expand_dynamic_quantize(const Graph& graph);

}  // namespace lathe::passes
