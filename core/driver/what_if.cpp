// What-if hints from the fused graph's producer/consumer sizes.
#include "driver/what_if.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "driver/optimized_graph.h"
#include "ir/dtype.h"

namespace lathe::driver {
namespace {

// Hints that would save less than this share of the kernel's estimated time,
// or less than a microsecond, are noise beside the measurement.
constexpr double kMinShareOfKernel = 0.01;
constexpr double kMinSecondsSaved = 1e-6;

std::string format(const char* pattern, double value) {
  char text[32];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string megabytes(double bytes) {
  const double mb = bytes / 1e6;
  if (mb < 0.1) return format("%.0f KB", bytes / 1e3);
  return format(mb >= 10 ? "%.0f MB" : mb >= 1 ? "%.1f MB" : "%.2f MB", mb);
}

std::string milliseconds(double seconds) {
  const double ms = seconds * 1e3;
  return format(ms >= 0.1 ? "%.2f ms" : "%.3f ms", ms);
}

double value_bytes(const Graph& graph, ValueId v) {
  const TensorType& type = graph.value(v).type;
  return static_cast<double>(type.numel()) * static_cast<double>(dtype_size(type.dtype));
}

bool only_layout_transforms(const Graph& graph, const FusedGroup& group) {
  return std::all_of(group.nodes.begin(), group.nodes.end(), [&](int n) {
    return graph.nodes[static_cast<size_t>(n)].op == "LayoutTransform";
  });
}

// Where a tensor of `bytes` waits between the kernel writing it and the one
// reading it: the innermost level that holds it, else DRAM (the last).
const BandwidthLevel* level_holding(const MemoryBandwidth& bandwidth, double bytes) {
  for (const BandwidthLevel& l : bandwidth.levels)
    if (l.capacity_bytes == 0 || static_cast<double>(l.capacity_bytes) >= bytes) return &l;
  return bandwidth.levels.empty() ? nullptr : &bandwidth.levels.back();
}

// The bytes saved at the level holding the tensor, and what they cost there.
struct Saving {
  const BandwidthLevel* level = nullptr;
  double bytes = 0, seconds = 0;
  std::string clause() const {
    return "would save " + megabytes(bytes) + " of " + level->name + " traffic (~" +
           milliseconds(seconds) + " at " + format("%.0f GB/s", level->read_write_gbps) + ")";
  }
};

class HintFinder {
 public:
  HintFinder(const OptimizedGraph& optimized, const MemoryBandwidth& bandwidth)
      : graph_(optimized.graph), groups_(optimized.groups), bandwidth_(bandwidth) {
    for (const FusedGroup& g : groups_)
      for (ValueId v : g.inputs) readers_[v].push_back(g.id);
    graph_outputs_.insert(graph_.outputs.begin(), graph_.outputs.end());
    group_of_node_.assign(graph_.nodes.size(), -1);
    for (const FusedGroup& g : groups_)
      for (int n : g.nodes) group_of_node_[static_cast<size_t>(n)] = g.id;
  }

  // Its outputs read again by another group: one kernel would neither write
  // nor re-read them (the write stays when others read it too).
  void outputs_read_again(const FusedGroup& group, std::vector<WhatIfHint>& hints) const {
    const bool transform = only_layout_transforms(graph_, group);
    for (ValueId v : group.outputs) {
      const auto it = readers_.find(v);
      if (it == readers_.end() || it->second.empty()) continue;
      const std::vector<int>& readers = it->second;
      const FusedGroup& next = groups_[static_cast<size_t>(readers.front())];
      const double bytes = value_bytes(graph_, v);
      const bool write_saved = readers.size() == 1 && !graph_outputs_.count(v);
      const Saving saving = save(bytes, write_saved ? 2 * bytes : bytes);
      if (!saving.level) continue;
      std::string text = "its output " + graph_.value(v).name + " (" + megabytes(bytes) + ") is ";
      if (readers.size() == 1)
        text += "read again by " + next.name + ": ";
      else
        text += "read again by " + next.name + " and " + std::to_string(readers.size() - 1) +
                " other group(s), which still need it written: ";
      text += transform ? "sinking the transform into " + next.name
                        : "computing it inside " + next.name;
      hints.push_back({text + " " + saving.clause(), next.name, saving.level->name, saving.bytes,
                       saving.seconds});
    }
  }

  // An input a layout transform wrote for this group alone: reading the
  // tensor in its original layout would spare the transform's write and
  // this group's read of the copy.
  void inputs_from_a_transform(const FusedGroup& group, std::vector<WhatIfHint>& hints) const {
    for (ValueId v : group.inputs) {
      const int producer = graph_.value(v).producer;
      if (producer < 0) continue;
      const int from = group_of_node_[static_cast<size_t>(producer)];
      if (from < 0 || from == group.id) continue;
      const FusedGroup& transform = groups_[static_cast<size_t>(from)];
      if (!only_layout_transforms(graph_, transform)) continue;
      const auto it = readers_.find(v);
      if (it == readers_.end() || it->second.size() != 1 || graph_outputs_.count(v)) continue;
      const double bytes = value_bytes(graph_, v);
      const Saving saving = save(bytes, 2 * bytes);
      if (!saving.level) continue;
      hints.push_back({"it reads " + graph_.value(v).name + " (" + megabytes(bytes) +
                           ") from the layout transform " + transform.name +
                           ", which nothing else reads: sinking the transform into this kernel " +
                           saving.clause(),
                       transform.name, saving.level->name, saving.bytes, saving.seconds});
    }
  }

 private:
  Saving save(double tensor_bytes, double bytes) const {
    Saving s;
    s.level = level_holding(bandwidth_, tensor_bytes);
    if (!s.level || !(s.level->read_write_gbps > 0)) return {};
    s.bytes = bytes;
    s.seconds = bytes / (s.level->read_write_gbps * 1e9);
    return s;
  }

  const Graph& graph_;
  const std::vector<FusedGroup>& groups_;
  const MemoryBandwidth& bandwidth_;
  std::map<ValueId, std::vector<int>> readers_;  // the groups reading each value
  std::set<ValueId> graph_outputs_;
  std::vector<int> group_of_node_;
};

}  // namespace

std::vector<WhatIfHint> what_if_hints(const OptimizedGraph& optimized, int group,
                                      const Roofline& roof, const MemoryBandwidth& bandwidth) {
  if (roof.bound.empty() || roof.bound == "compute") return {};
  if (group < 0 || group >= static_cast<int>(optimized.groups.size())) return {};
  const HintFinder finder(optimized, bandwidth);
  const FusedGroup& g = optimized.groups[static_cast<size_t>(group)];
  std::vector<WhatIfHint> hints;
  finder.outputs_read_again(g, hints);
  finder.inputs_from_a_transform(g, hints);
  std::erase_if(hints, [&](const WhatIfHint& h) {
    return h.seconds_saved < std::max(kMinSecondsSaved, kMinShareOfKernel * roof.estimated_seconds);
  });
  std::stable_sort(hints.begin(), hints.end(), [](const WhatIfHint& a, const WhatIfHint& b) {
    return a.bytes_saved > b.bytes_saved;
  });
  return hints;
}

}  // namespace lathe::driver
