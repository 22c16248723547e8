#include "driver/cache_residency.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/graph.h"
#include "support/byte_size.h"
#include "support/error.h"

namespace lathe::driver {

namespace {

int64_t value_bytes(const Graph& graph, ValueId id) {
  const TensorType& type = graph.type(id);
  return type.numel() * static_cast<int64_t>(dtype_size(type.dtype));
}

}  // namespace

ModelFootprint model_footprint(const Graph& graph, const std::vector<passes::FusedGroup>& groups) {
  ModelFootprint footprint;
  std::set<ValueId> constants;
  // Each activation's life in kernel steps: from the group that writes it
  // (graph inputs: before the first) to the last group that reads it (graph
  // outputs: past the last).
  struct Life {
    int first = -1, last = -1;
  };
  std::map<ValueId, Life> lives;
  for (ValueId id : graph.inputs) lives[id] = {-1, -1};
  const int num_groups = static_cast<int>(groups.size());
  for (int g = 0; g < num_groups; ++g) {
    for (ValueId id : groups[g].inputs) {
      if (graph.value(id).is_constant()) {
        if (constants.insert(id).second) footprint.weight_bytes += value_bytes(graph, id);
      } else if (auto it = lives.find(id); it != lives.end()) {
        it->second.last = std::max(it->second.last, g);
      }
    }
    for (ValueId id : groups[g].outputs) lives[id] = {g, g};
  }
  for (ValueId id : graph.outputs)
    if (auto it = lives.find(id); it != lives.end()) it->second.last = num_groups;

  // Bytes alive at each step: +size where a life starts, -size after it ends.
  std::vector<int64_t> change(static_cast<size_t>(num_groups) + 3, 0);
  for (const auto& [id, life] : lives) {
    const int64_t bytes = value_bytes(graph, id);
    change[static_cast<size_t>(life.first + 1)] += bytes;
    change[static_cast<size_t>(std::max(life.first, life.last) + 2)] -= bytes;
  }
  int64_t alive = 0;
  for (int64_t delta : change) {
    alive += delta;
    footprint.activation_bytes = std::max(footprint.activation_bytes, alive);
  }
  return footprint;
}

CacheDecision decide_cache_flush(const ModelFootprint& footprint, tune::CacheFlush requested,
                                 const std::vector<CacheLevel>& caches) {
  const std::string sizes =
      str("the model touches ", format_bytes(static_cast<double>(footprint.bytes())),
          " an inference (", format_bytes(static_cast<double>(footprint.weight_bytes)),
          " of weights, ", format_bytes(static_cast<double>(footprint.activation_bytes)),
          " of activations at most at once)");
  const std::string warm = "kernels measured warm (weights and outputs left in cache)";
  const std::string cold = "kernels measured cold (weights and outputs flushed before each run)";
  if (requested == tune::CacheFlush::Always) return {true, cold + ", as asked; " + sizes};
  if (requested == tune::CacheFlush::Never) return {false, warm + ", as asked; " + sizes};
  auto outermost =
      std::max_element(caches.begin(), caches.end(),
                       [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  if (outermost == caches.end()) return {true, cold + ": the system names no data cache; " + sizes};
  const std::string cache =
      str("half the ", format_bytes(static_cast<double>(outermost->capacity_bytes)), " L",
          outermost->level);
  if (footprint.bytes() <= outermost->capacity_bytes / 2)
    return {false, warm + ": " + sizes + ", within " + cache};
  return {true, cold + ": " + sizes + ", more than " + cache};
}

}  // namespace lathe::driver
