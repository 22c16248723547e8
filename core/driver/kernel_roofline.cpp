#include "driver/kernel_roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "driver/graph_compiler.h"
#include "driver/kernel_tasks.h"
#include "tir/analysis/flop_count.h"
#include "tir/analysis/memory_traffic.h"

namespace lathe::driver {
namespace {

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

}  // namespace

double KernelRoofline::intensity() const {
  for (const RooflineLevel& l : roof.levels)
    if (l.name == roof.bound) return l.intensity;
  return roof.levels.empty() ? INFINITY : roof.levels.back().intensity;
}

namespace {

// The capacity of each level a kernel's traffic is modelled at: the register
// file, then every cache the bandwidth table measured (DRAM holds everything);
// for a GPU, its L2.
std::vector<int64_t> cache_capacities(const VectorUnit& registers, const MachineRoof& machine) {
  // A GPU's roof has DRAM alone: its traffic is what misses the L2 (what a
  // kernel's threads share through shared memory and registers stays on chip).
  if (!machine.device.empty()) {
    const int64_t l2 =
        machine.machine.caches.empty() ? 0 : machine.machine.caches.back().capacity_bytes;
    return {l2};
  }
  std::vector<int64_t> capacities = {static_cast<int64_t>(registers.bits / 8) *
                                     registers.registers};
  for (const BandwidthLevel& l : machine.bandwidth.levels)
    if (l.name != "DRAM") capacities.push_back(l.capacity_bytes);
  return capacities;
}

// A kernel's operations and the peak they run against: an int8 kernel's
// (tensorized dot products) are its int8 operations under the int8 peak,
// where the machine has one measured; any other's its FLOPs under the FMA peak.
struct KernelWork {
  double operations = 0;
  double peak = 0;
};

KernelWork kernel_work(const tir::PrimFunc& func, const MachineRoof& machine) {
  const double flops = tir::count_flops(func);
  const double int8 = tir::count_int8_ops(func);
  if (int8 > flops && machine.peak_int8_gops > 0) return {int8, machine.peak_int8_gops};
  return {flops, machine.peak_gflops};
}

}  // namespace

Roofline kernel_roof(const tir::PrimFunc& func, const VectorUnit& registers,
                     const MachineRoof& machine) {
  const KernelWork work = kernel_work(func, machine);
  return classify_roofline(work.operations,
                           tir::memory_traffic(func, cache_capacities(registers, machine)),
                           work.peak, machine.bandwidth);
}

std::vector<KernelRoofline> kernel_rooflines(const CompiledGraph& compiled,
                                             const std::vector<KernelProfile>& profile,
                                             const MachineRoof& machine) {
  const std::vector<int64_t> capacities = cache_capacities(compiled.optimized.vector_unit, machine);

  // The model's view of each function, computed once however many groups run it.
  struct KernelModel {
    const KernelTask* task;
    double flops;  // or int8 operations, against `peak`
    double peak;
    std::vector<LevelTraffic> traffic;
  };
  std::map<std::string, KernelModel> by_func;
  for (size_t i = 0; i < compiled.tasks.size(); ++i) {
    const KernelWork work = kernel_work(compiled.funcs[i], machine);
    by_func.emplace(compiled.tasks[i].func_name,
                    KernelModel{&compiled.tasks[i], work.operations, work.peak,
                                tir::memory_traffic(compiled.funcs[i], capacities)});
  }
  // The profile names each run by its group (the graph JSON's node).
  std::map<std::string, int> group_by_name;
  for (const FusedGroup& g : compiled.optimized.groups) group_by_name.emplace(g.name, g.id);

  std::vector<KernelRoofline> rows;
  for (const KernelProfile& p : profile) {
    KernelRoofline row;
    row.profile = p;
    if (const auto g = group_by_name.find(p.node_name); g != group_by_name.end())
      row.group = g->second;
    const auto it = by_func.find(p.func_name);
    if (it != by_func.end()) {
      const KernelModel& model = it->second;
      row.task = model.task->id;
      row.workload = task_workload_id(*model.task);
      row.flops = model.flops;
      row.roof = classify_roofline(model.flops, model.traffic, model.peak, machine.bandwidth);
      row.hints = what_if_hints(compiled.optimized, row.group, row.roof, machine.bandwidth);
      const double seconds = p.time_us * 1e-6;
      if (seconds > 0) {
        row.achieved_gflops = model.flops / seconds / 1e9;
        if (!row.roof.levels.empty() && row.roof.levels.back().name == "DRAM")
          row.dram_gbps = row.roof.levels.back().bytes / seconds / 1e9;
        // The model's time at the roof over the measured time: achieved over
        // roof GFLOPS, and for a kernel without FLOPs (a layout transform)
        // achieved over roof bandwidth.
        row.percent_of_roof = row.roof.estimated_seconds / seconds * 100;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_roofline_profile(const std::vector<KernelRoofline>& rows,
                                    const MachineRoof& machine) {
  std::vector<KernelRoofline> sorted = rows;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.profile.time_us > b.profile.time_us;
  });
  double total = 0;
  for (const KernelRoofline& r : sorted) total += r.profile.time_us;

  std::vector<std::vector<std::string>> table = {
      {"Node Name", "Ops", "Time(us)", "Time(%)", "GFLOPS", "DRAM GB/s", "Intensity", "Roof",
       "% Roof", "Bound"},
      {"---------", "---", "--------", "-------", "------", "---------", "---------", "----",
       "------", "-----"}};
  for (const KernelRoofline& r : sorted) {
    const bool modelled = !r.roof.bound.empty();
    table.push_back({r.profile.node_name, r.profile.func_name, fixed(r.profile.time_us, 3),
                     fixed(total > 0 ? r.profile.time_us / total * 100 : 0, 2),
                     fixed(r.achieved_gflops, 1), fixed(r.dram_gbps, 1),
                     modelled ? fixed(r.intensity(), 2) : "-",
                     modelled ? fixed(r.roof.roof_gflops, 1) : "-",
                     modelled ? fixed(r.percent_of_roof, 1) : "-", modelled ? r.roof.bound : "-"});
  }
  table.push_back({"Total_time", "-", fixed(total, 3), "-", "-", "-", "-", "-", "-", "-"});

  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& line : table)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string text;
  char head[160];
  if (!machine.device.empty()) {
    // A GPU: theoretical numbers from the driver, not a measurement.
    std::snprintf(head, sizeof head, "Roofline: %s: peak %.1f GFLOPS FP32 on %d SMs; GB/s",
                  machine.device.c_str(), machine.peak_gflops, machine.bandwidth.threads);
    text += head;
    for (const BandwidthLevel& l : machine.bandwidth.levels)
      text += " " + l.name + " " + fixed(l.read_gbps, 1);
    text += "; from " + machine.measured_at + "\n";
  } else {
    std::snprintf(head, sizeof head, "Roofline: peak %.1f GFLOPS", machine.peak_gflops);
    text += head;
    // An int8 kernel's row counts its int8 operations (GOPS) against this one.
    if (machine.peak_int8_gops > 0) {
      std::snprintf(head, sizeof head, ", int8 %.1f GOPS", machine.peak_int8_gops);
      text += head;
    }
    std::snprintf(head, sizeof head, " on %d threads; GB/s read", machine.bandwidth.threads);
    text += head;
    for (const BandwidthLevel& l : machine.bandwidth.levels)
      text += " " + l.name + " " + fixed(l.read_gbps, 1);
    text +=
        machine.from_cache ? "; measured " + machine.measured_at + " (kept)\n" : "; measured now\n";
  }
  for (const auto& line : table) {
    for (size_t c = 0; c < line.size(); ++c) {
      std::string cell = line[c];
      cell.resize(width[c], ' ');
      text += cell + (c + 1 < line.size() ? "  " : "");
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    text += "\n";
  }
  bool hinted = false;
  for (const KernelRoofline& r : sorted) {
    for (const WhatIfHint& hint : r.hints) {
      if (!hinted) text += "\nWhat if (memory-bound kernels, from the graph's tensor sizes):\n";
      hinted = true;
      text += "  " + r.profile.node_name + ": " + hint.text + "\n";
    }
  }
  return text;
}

}  // namespace lathe::driver
