#include "tir/analysis/loop_costs.h"

#include <algorithm>
#include <cmath>

#include "support/roofline.h"
#include "tir/analysis/flop_count.h"
#include "tir/analysis/traffic_model.h"

namespace lathe::tir {
namespace {

using traffic::Access;
using traffic::Loop;
using traffic::TrafficModel;

// Below this many reads per byte, data that left the cache was streamed, not reused.
constexpr double kRereadThreshold = 1.5;
// A buffer holding less of an iteration's working set than this (a conv's
// bias beside its weights) is not what overflows the cache, however often
// it is read again.
constexpr double kMinShareOfIteration = 1.0 / 32;

// The cache levels of the bandwidth table (DRAM excluded), innermost first.
std::vector<const BandwidthLevel*> cache_levels(const MemoryBandwidth& bandwidth) {
  std::vector<const BandwidthLevel*> caches;
  for (const BandwidthLevel& l : bandwidth.levels)
    if (l.capacity_bytes > 0) caches.push_back(&l);
  return caches;
}

std::string smallest_level_holding(double bytes, const std::vector<const BandwidthLevel*>& caches) {
  for (const BandwidthLevel* c : caches)
    if (bytes <= static_cast<double>(c->capacity_bytes)) return c->name;
  return "DRAM";
}

// The loops (indices into model.loops()) across whose consecutive
// iterations `access` touches an element again, per the header's
// approximation, innermost first.
std::vector<int> reuse_loops(const TrafficModel& model, const Access& access) {
  const std::vector<Loop>& loops = model.loops();
  // The strides and extents of what sweeps inside a loop, the vector's lanes first.
  struct Sweep {
    int64_t stride, extent;
  };
  std::vector<Sweep> inner;
  if (access.index.lanes > 1)
    inner.push_back({std::abs(access.index.lane_stride), access.index.lanes});
  std::vector<int> found;
  bool in_temporal_run = false;
  // A buffer allocated inside a loop starts afresh in each of its iterations:
  // only loops inside the allocation carry its reuse.
  const int scope = model.buffer(access.buffer).scope;
  for (auto it = access.path.rbegin(); it != access.path.rend(); ++it) {
    const Loop& l = loops[*it];
    if (*it == scope || access.index.is_opaque(l.var)) break;
    const int64_t stride = std::abs(access.index.coeff(l.var));
    if (l.extent > 1) {
      if (stride == 0) {
        // Nested loops that all leave the index alone are one reuse: the last
        // use in one iteration of the outer and the first in the next are
        // adjacent iterations of the innermost of them.
        if (!in_temporal_run) found.push_back(*it);
        in_temporal_run = true;
      } else {
        in_temporal_run = false;
        // A window: the next iteration's start is reached by some loop
        // inside (a conv's column against its kernel's taps).
        const bool window = std::any_of(inner.begin(), inner.end(), [&](const Sweep& s) {
          return s.stride != 0 && stride % s.stride == 0 && stride / s.stride < s.extent;
        });
        if (window) found.push_back(*it);
      }
    }
    inner.push_back({stride, l.extent});
  }
  return found;
}

}  // namespace

LoopCosts loop_costs(const PrimFunc& func, const LoopCostMachine& machine) {
  const TrafficModel model(func);
  const std::vector<Loop>& loops = model.loops();
  const std::vector<const BandwidthLevel*> caches = cache_levels(machine.bandwidth);

  // The capacity in front of each level of the bandwidth table: what misses
  // the register file L1 serves, what misses L1 L2 serves … and DRAM what
  // misses the last cache.
  std::vector<double> capacities = {static_cast<double>(machine.register_file_bytes)};
  for (const BandwidthLevel* c : caches)
    capacities.push_back(static_cast<double>(c->capacity_bytes));
  capacities.resize(std::min(capacities.size(), machine.bandwidth.levels.size()));

  LoopCosts out;
  {
    std::vector<LevelTraffic> traffic;
    for (double c : capacities) traffic.push_back(model.traffic(c, /*warm=*/false));
    out.estimated_seconds =
        classify_roofline(count_flops(func), traffic, machine.peak_gflops, machine.bandwidth)
            .estimated_seconds;
  }

  const std::vector<LoopFootprint> footprints = model.loop_footprints();
  for (size_t id = 0; id < loops.size(); ++id) {
    const Loop& loop = loops[id];
    LoopCost cost;
    cost.loop_var = loop.name;
    cost.depth = loop.depth;
    cost.parent = loop.parent;
    cost.trip_count = loop.extent;
    for (int a = loop.parent; a >= 0; a = loops[a].parent)
      cost.executions *= static_cast<double>(loops[a].extent);
    cost.buffers = footprints[id].buffers;
    cost.working_set_bytes = footprints[id].working_set_bytes;
    cost.fits_in = smallest_level_holding(cost.working_set_bytes, caches);

    cost.flops = count_flops(loop.stmt) * cost.executions;
    std::vector<LevelTraffic> traffic;
    for (double c : capacities) traffic.push_back(model.loop_share(static_cast<int>(id), c));
    cost.estimated_seconds =
        classify_roofline(cost.flops, traffic, machine.peak_gflops, machine.bandwidth)
            .estimated_seconds;
    cost.time_share = out.estimated_seconds > 0
                          ? std::min(1.0, cost.estimated_seconds / out.estimated_seconds)
                          : 0;
    out.loops.push_back(std::move(cost));
  }

  // Reuse: each access to the loops that carry it, once per buffer and direction.
  for (const Access& access : model.accesses()) {
    for (int carrier : reuse_loops(model, access)) {
      LoopCost& cost = out.loops[carrier];
      const std::string& name = model.buffer(access.buffer).name;
      const bool seen = std::any_of(
          cost.reuse.begin(), cost.reuse.end(),
          [&](const AccessReuse& r) { return r.buffer == name && r.store == access.store; });
      if (!seen)
        cost.reuse.push_back({name, access.store, cost.working_set_bytes,
                              smallest_level_holding(cost.working_set_bytes, caches)});
    }
  }

  // Spills: a loop carrying reuse whose one iteration overflows a cache
  // level re-reads, in each iteration, what the one before brought in.
  for (size_t id = 0; id < loops.size(); ++id) {
    LoopCost& cost = out.loops[id];
    if (cost.reuse.empty()) continue;
    const BandwidthLevel* overflowed = nullptr;
    for (const BandwidthLevel* c : caches)
      if (cost.working_set_bytes > static_cast<double>(c->capacity_bytes)) overflowed = c;
    if (!overflowed) continue;

    const Loop& loop = loops[id];
    const traffic::Footprint one = model.footprint(loop.accesses, loop.depth + 1);
    const traffic::Footprint all = model.footprint(loop.accesses, loop.depth);
    LoopSpill spill;
    spill.level = overflowed->name;
    spill.capacity_bytes = overflowed->capacity_bytes;
    spill.served_by = smallest_level_holding(cost.working_set_bytes, caches);
    for (const auto& [buffer, _] : one.buffers) {
      const std::string& name = model.buffer(buffer).name;
      const bool carried = std::any_of(cost.reuse.begin(), cost.reuse.end(),
                                       [&](const AccessReuse& r) { return r.buffer == name; });
      const double whole = all.bytes_of(buffer);
      if (!carried || whole <= 0 ||
          one.bytes_of(buffer) < kMinShareOfIteration * cost.working_set_bytes)
        continue;
      const double times = static_cast<double>(loop.extent) * one.bytes_of(buffer) / whole;
      if (times >= kRereadThreshold) spill.rereads.push_back({name, times});
    }
    if (spill.rereads.empty()) continue;
    std::stable_sort(spill.rereads.begin(), spill.rereads.end(),
                     [](const auto& a, const auto& b) { return a.times > b.times; });
    cost.spill = std::move(spill);
  }
  return out;
}

}  // namespace lathe::tir
