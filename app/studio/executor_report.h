// What the studio prints after running a package's executor (the Package
// tab's Run Benchmark, the export dialog's Run): its outputs and the time
// summary of `lathe run --print-time`, so both read the same.
#pragma once

#include <QStringList>

#include "driver/executor.h"

namespace lathe::studio {

// Runs `executor` once on the inputs already fed, then times it (`repeat`
// measurements of `number` runs each). Returns the outputs' types and shapes,
// the runs and threads, and the time summary, a line each. Throws what the
// executor throws.
QStringList runAndTime(driver::GraphExecutor& executor, int repeat, int number);

}  // namespace lathe::studio
