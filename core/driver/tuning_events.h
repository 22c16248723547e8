// What a tuning session reports while it runs, as `lathe tune` and the
// studio's tuning page receive it: task status, progress, trials, and the
// listener interface they implement.
#pragma once

#include "tune/tuning_events.h"

namespace lathe::driver {

// Aliases rather than copies: these are the session's own plain event
// structs (and its listener interface), delivered to the client as the
// session fills them; a copy would be converted field by field on every trial.
using tune::TaskStatus;
using tune::TrialEvent;
using tune::TuningListener;
using tune::TuningProgress;

}  // namespace lathe::driver
