#include "driver/loop_costs.h"

#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>

#include "driver/kernel_roofline.h"
#include "support/byte_size.h"
#include "tir/printer.h"

namespace lathe::driver {
namespace {

std::string format(const char* pattern, double value) {
  char text[48];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// "31%", "0.4%", "<0.1%".
std::string format_share(double share) {
  const double percent = share * 100;
  if (percent >= 9.95) return format("%.0f%%", percent);
  if (percent >= 0.05) return format("%.1f%%", percent);
  return "<0.1%";
}

std::string buffer_list(const std::vector<tir::BufferFootprint>& buffers) {
  std::string list;
  for (const tir::BufferFootprint& b : buffers) {
    list += (list.empty() ? "" : ", ") + b.buffer + " " + format_bytes(b.bytes);
    // A strided walk: most of each line it brings in goes unused.
    if (b.used_bytes > 0 && b.used_bytes * 2 <= b.bytes)
      list += " for " + format_bytes(b.used_bytes) + " used";
  }
  return list;
}

std::string spill_reason(const LoopCost& cost) {
  const LoopSpill& spill = *cost.spill;
  std::string reason = "one iteration's working set " + format_bytes(cost.working_set_bytes) +
                       " (" + buffer_list(cost.buffers) + ") exceeds " + spill.level + " (" +
                       format_bytes(static_cast<double>(spill.capacity_bytes)) + "): ";
  for (size_t i = 0; i < spill.rereads.size(); ++i) {
    const LoopSpill::Reread& r = spill.rereads[i];
    reason += (i ? (i + 1 == spill.rereads.size() ? " and " : ", ") : "") + r.buffer;
    reason += i ? format(" %.0f times", std::round(r.times))
                : " is re-read" + format(" %.0f times", std::round(r.times));
  }
  reason += " from " + spill.served_by;
  return reason;
}

std::string explanation(const LoopCost& cost, const std::string& reason) {
  std::string text;
  if (!reason.empty()) text += reason + "\n\n";
  text += cost.loop_var + ": " + std::to_string(cost.trip_count) + " iterations";
  if (cost.executions > 1) text += format(", run %.0f times", cost.executions);
  text += "\none iteration touches " + format_bytes(cost.working_set_bytes) + ", fits in " +
          cost.fits_in + (cost.buffers.empty() ? "" : ": " + buffer_list(cost.buffers));
  for (const tir::AccessReuse& r : cost.reuse)
    text += "\nreuse of " + r.buffer + (r.store ? " (stored)" : "") +
            " across iterations: " + format_bytes(r.distance_bytes) + " apart, hits in " +
            r.hits_in;
  text += format("\n%.3g FLOPs, ", cost.flops) +
          format("estimated %.3g ms", cost.estimated_seconds * 1e3) + " (" +
          format_share(cost.time_share) + " of the kernel)";
  return text;
}

}  // namespace

AnnotatedLoopIR annotated_loop_ir(const tir::PrimFunc& func, const LoopCostMachine& machine) {
  tir::PrintedFunc printed = tir::print_with_loop_lines(func);
  tir::LoopCosts costs = tir::loop_costs(func, machine);
  AnnotatedLoopIR out;
  out.loop_ir = std::move(printed.text);
  out.estimated_ms = costs.estimated_seconds * 1e3;
  // Both walk the loops in pre-order: the i-th `for` printed is the i-th loop costed.
  const size_t n = std::min(printed.loop_lines.size(), costs.loops.size());
  for (size_t i = 0; i < n; ++i) {
    LoopNote note;
    note.line = printed.loop_lines[i];
    note.cost = std::move(costs.loops[i]);
    const LoopCost& c = note.cost;
    note.note = "×" + std::to_string(c.trip_count) + " · " + format_share(c.time_share) + " · " +
                format_bytes(c.working_set_bytes) + " (" + c.fits_in + ")";
    if (c.spill) note.spill_reason = spill_reason(c);
    note.explanation = explanation(c, note.spill_reason);
    out.loops.push_back(std::move(note));
  }
  return out;
}

LoopCostMachine loop_cost_machine(const MachineRoof& roof, const VectorUnit& registers) {
  LoopCostMachine m;
  m.peak_gflops = roof.peak_gflops;
  m.register_file_bytes = static_cast<int64_t>(registers.bits / 8) * registers.registers;
  m.bandwidth = roof.bandwidth;
  return m;
}

const LoopCostMachine& this_loop_cost_machine(const Target& target) {
  static std::mutex mutex;
  static std::optional<LoopCostMachine> machine;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!machine) machine = loop_cost_machine(machine_roof(), target.vector_unit());
  return *machine;
}

}  // namespace lathe::driver
