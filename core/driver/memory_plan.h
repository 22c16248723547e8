// The static memory plan of a compiled graph: which storage each output
// entry lives in (mod.json's storage_id), after TVM's GraphPlanMemory.
#pragma once

#include <cstddef>

#include "runtime/graph_json.h"

namespace lathe::driver {

struct MemoryPlanSummary {
  size_t num_storages = 0;
  size_t planned_bytes = 0;  // sum of storage sizes: what the executor allocates
  size_t naive_bytes = 0;    // one storage per entry, for comparison
};

// Assigns desc.storage_id for every entry (desc.dltype and desc.shape must be
// filled, node_row_ptr finalized). "null" nodes (graph inputs, parameters)
// get storage of their own. A kernel output takes a free storage: the
// smallest free one large enough, else the largest free one, grown; else a
// new one. A storage becomes free after the last kernel reading its entry
// ran, never for graph outputs (heads), which must survive to the end. A
// kernel's outputs never share storage with its own inputs.
MemoryPlanSummary plan_memory(runtime::GraphModuleDesc& desc);

}  // namespace lathe::driver
