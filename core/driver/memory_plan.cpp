// Liveness-based storage sharing over the nodes in execution order.
#include "driver/memory_plan.h"

#include <algorithm>
#include <vector>

#include "runtime/ndarray.h"
#include "support/error.h"

namespace lathe::driver {

MemoryPlanSummary plan_memory(runtime::GraphModuleDesc& desc) {
  runtime::finalize(desc);
  const uint32_t num_entries = desc.num_entries();
  LATHE_CHECK(desc.dltype.size() == num_entries && desc.shape.size() == num_entries,
              "plan_memory: ", num_entries, " entries but ", desc.dltype.size(), " dtypes and ",
              desc.shape.size(), " shapes");

  std::vector<size_t> entry_bytes(num_entries);
  for (uint32_t e = 0; e < num_entries; ++e) {
    try {
      const runtime::DataType t = runtime::DataType::parse(desc.dltype[e]);
      entry_bytes[e] = static_cast<size_t>(runtime::num_elements(desc.shape[e]) * t.bytes());
    } catch (const runtime::Error& error) {
      fail(str("plan_memory: entry ", e, ": ", error.what()));
    }
  }

  // Readers left per entry; graph outputs get one that is never released.
  std::vector<int> readers(num_entries, 0);
  for (const runtime::GraphNode& node : desc.nodes)
    for (const runtime::GraphEntryRef& in : node.inputs) {
      LATHE_CHECK(in.node_id < desc.nodes.size(), "plan_memory: node '", node.name, "' reads node ",
                  in.node_id, ", which does not exist");
      ++readers[desc.entry_id(in)];
    }
  for (const runtime::GraphEntryRef& head : desc.heads) ++readers[desc.entry_id(head)];

  std::vector<size_t> storage_size;
  std::vector<int> free_list;  // storage ids
  desc.storage_id.assign(num_entries, -1);
  std::vector<bool> owned_by_argument(num_entries, false);

  auto new_storage = [&](size_t bytes) {
    storage_size.push_back(bytes);
    return static_cast<int>(storage_size.size() - 1);
  };
  auto take_storage = [&](size_t bytes) {
    if (free_list.empty()) return new_storage(bytes);
    // Best fit: the smallest free storage that holds `bytes`; if none, the
    // largest, grown (growing the largest wastes the least).
    auto best = free_list.end();
    for (auto it = free_list.begin(); it != free_list.end(); ++it) {
      const size_t size = storage_size[static_cast<size_t>(*it)];
      if (size < bytes) continue;
      if (best == free_list.end() || size < storage_size[static_cast<size_t>(*best)]) best = it;
    }
    if (best == free_list.end())
      best = std::max_element(free_list.begin(), free_list.end(), [&](int a, int b) {
        return storage_size[static_cast<size_t>(a)] < storage_size[static_cast<size_t>(b)];
      });
    const int sid = *best;
    free_list.erase(best);
    storage_size[static_cast<size_t>(sid)] =
        std::max(storage_size[static_cast<size_t>(sid)], bytes);
    return sid;
  };
  auto release = [&](uint32_t entry) {
    if (owned_by_argument[entry]) return;
    if (--readers[entry] == 0) free_list.push_back(desc.storage_id[entry]);
  };

  for (uint32_t node_id = 0; node_id < desc.nodes.size(); ++node_id) {
    const runtime::GraphNode& node = desc.nodes[node_id];
    const uint32_t first = desc.node_row_ptr[node_id], last = desc.node_row_ptr[node_id + 1];
    if (!node.is_op()) {
      for (uint32_t e = first; e < last; ++e) {
        desc.storage_id[e] = new_storage(entry_bytes[e]);
        owned_by_argument[e] = true;
      }
      continue;
    }
    // Outputs first, so that no output lands in an input's storage.
    for (uint32_t e = first; e < last; ++e) desc.storage_id[e] = take_storage(entry_bytes[e]);
    for (const runtime::GraphEntryRef& in : node.inputs) release(desc.entry_id(in));
    // An output nobody reads (and that is not a graph output) is dead at once.
    for (uint32_t e = first; e < last; ++e)
      if (readers[e] == 0) free_list.push_back(desc.storage_id[e]);
  }

  MemoryPlanSummary summary;
  summary.num_storages = storage_size.size();
  for (size_t s : storage_size) summary.planned_bytes += s;
  for (size_t b : entry_bytes) summary.naive_bytes += b;
  return summary;
}

}  // namespace lathe::driver
