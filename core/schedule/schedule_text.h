// The schedule text: the part of TVM's Python TE schedule API that TVM's
// tutorials use (te.create_schedule, s[C].split, s.cache_write ...), parsed and
// executed on a Schedule, and printed back from a schedule's trace.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "support/error.h"

namespace lathe::schedule {

// One problem in a schedule text: 1-based line and column of the offending
// token (of the statement, for errors the primitives themselves raise). For
// the JSON form, line is the 1-based step index and column the 1-based field
// of the step (0: the whole step; line 0: the document).
struct ScheduleDiagnostic {
  int line = 0, column = 0;
  std::string message;
  std::string to_string() const;
};

// what() lists the diagnostics, one "line:col: message" per line.
class ScheduleTextError : public Error {
 public:
  explicit ScheduleTextError(std::vector<ScheduleDiagnostic> diagnostics);
  const std::vector<ScheduleDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<ScheduleDiagnostic> diagnostics_;
};

// Executes the text's statements on the schedule its te.create_schedule line
// makes. `tensors` is the Python environment the text reads (names of the
// compute's tensors); names the text binds (axes, cache tensors) name the axes
// and stages they make, so lowered loops carry the user's names. Throws
// ScheduleTextError: every syntax error of the text, or else the first
// semantic error (later statements depend on it).
std::unique_ptr<Schedule> parse_schedule(const std::string& text,
                                         const std::map<std::string, te::Tensor>& tensors);

// The schedule's trace in the same language, one statement per step, so that
// parse_schedule(print_schedule(s), tensors) has an equal trace, where tensors
// maps each tensor's name to it. Root axes print as C.op.axis[0]; created axes
// and cache tensors by the names their steps bound. Throws Error for a trace
// that cannot be written as text (a bound name that is not a Python
// identifier, a step that does not replay).
std::string print_schedule(const Schedule& s);

}  // namespace lathe::schedule
