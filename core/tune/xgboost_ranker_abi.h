// The C interface between the tuner's cost model (tune/cost_model) and the
// module that holds XGBoost (tune/xgboost/xgboost_ranker.cpp, built as
// liblathe_xgboost_ranker.so). The module is loaded on the first training,
// so only tuning with the xgb tuner maps libxgboost: `lathe compile`, `run`
// and `inspect` never do. Plain C types only, and errors as strings, so no
// C++ exception or library state crosses the boundary.
#pragma once

#include <stddef.h>

extern "C" {

// Bumped whenever the struct below changes; the loader refuses a module built
// against another version.
#define LATHE_XGBOOST_RANKER_ABI_VERSION 1

// The symbol the module exports, and its type.
#define LATHE_XGBOOST_RANKER_SYMBOL "lathe_xgboost_ranker"

struct LatheXgboostRanker {
  int abi_version;
  // Trains gradient-boosted trees with a pairwise ranking objective on `rows`
  // row-major rows of `width` features. `labels` has a value per row (higher:
  // better); rows come in query groups of `group_sizes[0..num_groups)`
  // consecutive rows, and only rows of one group are compared. Returns the
  // booster, or null with last_error() saying why.
  void* (*train)(const float* data, size_t rows, size_t width, const float* labels,
                 const unsigned* group_sizes, size_t num_groups);
  // Writes one score per row into `scores`; returns 0, or -1 with last_error()
  // saying why.
  int (*predict)(void* booster, const float* data, size_t rows, size_t width, double* scores);
  void (*free_booster)(void* booster);
  // This thread's last failure: "XGBoosterCreate failed: ...".
  const char* (*last_error)(void);
};

typedef const LatheXgboostRanker* (*LatheXgboostRankerEntry)(void);
}
