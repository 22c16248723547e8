// Tuning records: one JSON object a line, appended as each measurement
// finishes (core/tune writes them; `lathe compile --tuning-records` reads
// them). A record names its task by a hash of the task's structure key, so a
// record applies to every structurally equal kernel of any model.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "driver/graph_compiler.h"

namespace lathe::driver {

// For compile_graph's schedule_for: the schedule of the fastest error-free
// record of each task in the file. Throws naming the line of a malformed record.
std::function<std::optional<std::string>(const KernelTask&)> best_schedules_from_records(
    const std::string& path);

}  // namespace lathe::driver
