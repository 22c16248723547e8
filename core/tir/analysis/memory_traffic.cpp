#include "tir/analysis/memory_traffic.h"

#include "tir/analysis/traffic_model.h"

namespace lathe::tir {

std::vector<LoopFootprint> loop_footprints(const PrimFunc& func) {
  return traffic::TrafficModel(func).loop_footprints();
}

std::vector<LevelTraffic> memory_traffic(const PrimFunc& func,
                                         const std::vector<int64_t>& capacities,
                                         const TrafficOptions& options) {
  const traffic::TrafficModel model(func);
  std::vector<LevelTraffic> out;
  for (int64_t c : capacities) out.push_back(model.traffic(static_cast<double>(c), options.warm));
  return out;
}

}  // namespace lathe::tir
