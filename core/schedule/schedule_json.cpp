// Tuning records' form of a schedule: the trace, step by step, as JSON.
// Loading checks every field's type before use, so that a malformed record
// is a diagnostic, never a crash.
#include "schedule/schedule_json.h"

#include <limits>

#include "schedule/schedule_replay.h"

namespace lathe::schedule {
namespace {

using nlohmann::json;

[[noreturn]] void json_error(int step, int field, const std::string& message) {
  throw ScheduleTextError({{step, field, message}});
}

std::vector<std::string> strings_of(const json& j, int step, int field, const char* what) {
  if (!j.is_array()) json_error(step, field, str(what, " must be an array of strings"));
  std::vector<std::string> out;
  for (const json& item : j) {
    if (!item.is_string()) json_error(step, field, str(what, " must be an array of strings"));
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<int64_t> ints_of(const json& j, int step, int field) {
  if (!j.is_array()) json_error(step, field, "ints must be an array of integers");
  std::vector<int64_t> out;
  for (const json& item : j) {
    if (item.is_number_unsigned() &&
        item.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      json_error(step, field, "an integer is out of range");
    if (!item.is_number_integer()) json_error(step, field, "ints must be an array of integers");
    out.push_back(item.get<int64_t>());
  }
  return out;
}

ScheduleStep step_of(const json& j, int step) {
  if (!j.is_array() || j.size() != 6)
    json_error(step, 0, "a step is [primitive, stage, axes, ints, strings, results]");
  if (!j[0].is_string()) json_error(step, 1, "the primitive must be a string");
  if (!j[1].is_string()) json_error(step, 2, "the stage must be a string");
  ScheduleStep s;
  s.primitive = j[0].get<std::string>();
  s.stage = j[1].get<std::string>();
  s.axes = strings_of(j[2], step, 3, "axes");
  s.ints = ints_of(j[3], step, 4);
  s.strings = strings_of(j[4], step, 5, "strings");
  s.results = strings_of(j[5], step, 6, "results");
  return s;
}

}  // namespace

json schedule_to_json(const Schedule& s) {
  json steps = json::array();
  for (const ScheduleStep& st : s.trace())
    steps.push_back(
        json::array({st.primitive, st.stage, st.axes, st.ints, st.strings, st.results}));
  return {{"format", kScheduleJsonFormat}, {"version", kScheduleJsonVersion}, {"steps", steps}};
}

std::unique_ptr<Schedule> schedule_from_json(const json& j,
                                             const std::map<std::string, te::Tensor>& tensors) {
  if (!j.is_object()) json_error(0, 0, "a schedule record must be a JSON object");
  auto format = j.find("format");
  if (format == j.end() || !format->is_string() ||
      format->get<std::string>() != kScheduleJsonFormat)
    json_error(0, 0, str("\"format\" must be \"", kScheduleJsonFormat, "\""));
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer())
    json_error(0, 0, "\"version\" must be an integer");
  if (version->get<int64_t>() != kScheduleJsonVersion)
    json_error(0, 0,
               str("unsupported schedule record version ", version->get<int64_t>(),
                   " (this build reads version ", kScheduleJsonVersion, ")"));
  auto steps = j.find("steps");
  if (steps == j.end() || !steps->is_array() || steps->empty())
    json_error(0, 0, "\"steps\" must be a non-empty array");
  std::vector<ScheduleStep> trace;
  for (size_t i = 0; i < steps->size(); ++i)
    trace.push_back(step_of((*steps)[i], static_cast<int>(i) + 1));
  int at = 1;
  try {
    detail::TraceReplayer replayer(trace[0], tensors);
    for (size_t i = 1; i < trace.size(); ++i) {
      at = static_cast<int>(i) + 1;
      replayer.apply(trace[i], replayer.resolve(trace[i]));
    }
    return replayer.release();
  } catch (const detail::ReplayError& e) {
    json_error(at, e.field(), e.what());
  } catch (const std::exception& e) {
    json_error(at, 0, e.what());
  }
}

std::unique_ptr<Schedule> schedule_from_json_text(
    const std::string& text, const std::map<std::string, te::Tensor>& tensors) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) json_error(0, 0, "the schedule record is not valid JSON");
  return schedule_from_json(j, tensors);
}

}  // namespace lathe::schedule
