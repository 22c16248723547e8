#include "tune/task_scheduler.h"

#include <cmath>

#include "support/error.h"

namespace lathe::tune {

TaskScheduler::TaskScheduler(const std::string& policy) : round_robin_(policy == "round-robin") {
  LATHE_CHECK(round_robin_ || policy == "gradient", "unknown task scheduler '", policy,
              "'; use gradient or round-robin");
}

double TaskScheduler::gradient(const TaskTuningState& t) const {
  // Nothing measured correctly yet: no promise to go on.
  if (!std::isfinite(t.best_ms)) return 0;
  // Backward: the improvement per round over the last kWindow rounds.
  double backward = 0;
  const size_t n = t.best_after_round.size();
  if (n > static_cast<size_t>(kWindow))
    backward = (t.best_after_round[n - 1] - t.best_after_round[n - 1 - kWindow]) / kWindow;
  // Forward, optimistic: the next round gains as much as an average trial so
  // far did, best_ms / trials (Ansor's g_next_1).
  double forward = -t.best_ms / std::max(1, t.trials);
  return t.weight * (kAlpha * backward + (1 - kAlpha) * forward);
}

int TaskScheduler::next_task(const std::vector<TaskTuningState>& tasks) {
  const int n = static_cast<int>(tasks.size());
  // Warm-up: every open task once, in order.
  for (int i = 0; i < n; ++i)
    if (!tasks[static_cast<size_t>(i)].finished && tasks[static_cast<size_t>(i)].rounds == 0)
      return last_ = i;
  if (round_robin_) {
    for (int step = 1; step <= n; ++step) {
      int i = (last_ + step) % n;
      if (!tasks[static_cast<size_t>(i)].finished) return last_ = i;
    }
    return -1;
  }
  int best = -1;
  double steepest = 0;
  for (int i = 0; i < n; ++i) {
    const TaskTuningState& t = tasks[static_cast<size_t>(i)];
    if (t.finished) continue;
    double g = gradient(t);
    if (best < 0 || g < steepest) {
      best = i;
      steepest = g;
    }
  }
  return last_ = best;
}

}  // namespace lathe::tune
