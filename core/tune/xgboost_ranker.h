// The XGBoost module of the cost model, loaded on first use: what keeps
// libxgboost out of every program that does not tune with the xgb tuner.
#pragma once

#include "tune/xgboost_ranker_abi.h"

namespace lathe::tune {

// The module's file name, looked up as support/program_files.h says, with
// $LATHE_XGBOOST_RANKER to override.
inline constexpr const char* kXgboostRankerModule = "liblathe_xgboost_ranker.so";

// dlopen()s the module on the first call and returns its entry points, for
// the rest of the process. Throws lathe::Error naming the file when it is
// missing, does not load, or was built for another interface version; a
// later call tries again.
const LatheXgboostRanker& xgboost_ranker();

}  // namespace lathe::tune
