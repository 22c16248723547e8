// The JSON form of a schedule, for tuning records: the trace as an array of
// steps, each [primitive, stage, axes, ints, strings, results], under a format
// name and version. Loading replays the steps on the given tensors.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "schedule/schedule.h"
#include "schedule/schedule_text.h"

namespace lathe::schedule {

inline constexpr const char* kScheduleJsonFormat = "lathe-schedule";
inline constexpr int kScheduleJsonVersion = 1;

// {"format": "lathe-schedule", "version": 1,
//  "steps": [["create_schedule", "", [], [], ["C"], []],
//            ["split", "C", ["i"], [64], [], ["i_outer", "i_inner"]], ...]}
nlohmann::json schedule_to_json(const Schedule& s);

// Replays the steps on a new schedule of `tensors` (looked up by the names of
// the create_schedule step). Throws ScheduleTextError for a malformed document
// or a step that does not apply; a diagnostic's line is the 1-based step (0:
// the document), its column the 1-based field of the step (0: the whole step).
std::unique_ptr<Schedule> schedule_from_json(const nlohmann::json& j,
                                             const std::map<std::string, te::Tensor>& tensors);
// The same from JSON text; text that is not JSON is a diagnostic at 0:0.
std::unique_ptr<Schedule> schedule_from_json_text(const std::string& text,
                                                  const std::map<std::string, te::Tensor>& tensors);

}  // namespace lathe::schedule
