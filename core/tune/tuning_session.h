// A tuning session: rounds of candidates for the tasks of a model until the
// trial count or the time budget is spent. Each round the task scheduler
// picks a task, its search strategy proposes a batch of configs, the batch is
// built on every core (schedule, lowering, LLVM), then measured one by one in
// a worker process, each result appended to the records as it finishes; every
// result is checked against the reference executor. A candidate that measures
// faster than its task's best is measured again, alternating with that best,
// and becomes the best only if it is still faster (records.h: the cost of a
// record). The cost model learns from every first measurement of every task.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "tune/measure.h"
#include "tune/records.h"
#include "tune/search_task.h"
#include "tune/tuning_events.h"

namespace lathe::tune {

// Lets another thread (the studio) pause, resume and stop a running session.
struct TuningControl {
  std::atomic<bool> stop{false};
  std::atomic<bool> pause{false};
};

// Which cache state kernels are measured in: Auto decides per model
// (driver/cache_residency.h), cold when everything one inference touches
// outgrows the last-level cache, warm when it stays there.
enum class CacheFlush { Auto, Always, Never };

struct TuningOptions {
  codegen::Target target = codegen::Target::host();
  std::string tuner = "xgb";  // random, grid, ga, xgb
  SpaceKind space = SpaceKind::Template;
  std::string scheduler = "gradient";  // or round-robin
  int trials = 0;                      // measurements over all tasks; 0: bounded by the time budget
  double time_budget_s = 0;            // 0: bounded by trials
  int early_stopping = 0;  // a task stops after this many trials without a new best; 0: never
  int batch_size = 16;
  int build_threads = 0;  // 0: every core
  // Each cost averages at least 10 ms of runs (single runs of a sub-millisecond
  // kernel are too noisy to pick a best among hundreds). driver::make_tuning_session
  // sets measure.flush_cache from cache_flush and the model: each run with the
  // weights and outputs out of cache, or in it, as the kernel finds them
  // inside that model.
  CacheFlush cache_flush = CacheFlush::Auto;
  MeasureOptions measure{.number = 1, .repeat = 3, .min_repeat_ms = 10, .flush_cache = true};
  // A candidate whose first measurement beats its task's best is measured
  // this many times more, each time after the best (best, candidate, best,
  // candidate ...), and replaces the best only if the minimum of its costs
  // there is below the best's. 0: a first measurement decides.
  int confirm_rounds = 3;
  // Normalized error a result may have against the reference: the bound
  // `lathe schedule --measure` and the studio's schedule editor hold kernels to.
  double max_error = 1e-4;
  std::string records_path;                 // appended; empty: records are not written
  std::vector<TuningRecord> prior_records;  // --prior-records: resume
  uint64_t seed = 1;
  TuningControl* control = nullptr;
  // Tests: sees, and may change, every measurement before the session uses
  // it: the task's index, the measured schedule's text, the result.
  std::function<void(size_t task, const std::string& schedule, MeasureResult&)> measure_hook;
};

class TuningSession {
 public:
  TuningSession(std::vector<SearchTask> tasks, TuningOptions options,
                TuningListener* listener = nullptr);
  ~TuningSession();
  TuningSession(const TuningSession&) = delete;
  TuningSession& operator=(const TuningSession&) = delete;

  // Runs until trials or time run out, every task is finished, or stop is set.
  void run();

  const TuningProgress& progress() const { return progress_; }
  // The best record of each task (indexed like the tasks), ok() == false when none.
  const std::vector<TuningRecord>& best() const { return best_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  TuningProgress progress_;
  std::vector<TuningRecord> best_;
};

}  // namespace lathe::tune
