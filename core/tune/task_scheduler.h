// Which task gets the next round of trials. "gradient" is Ansor's task
// scheduler: the objective is the estimated end-to-end latency
// sum(weight * best latency), and each round goes to the task whose next trials
// promise the steepest descent of it — a mix of how fast its best improved over
// the last rounds and an optimistic guess at what more trials will bring.
// "round-robin" cycles through the tasks. Tasks that are finished (space
// exhausted, early-stopped) are skipped.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace lathe::tune {

struct TaskTuningState {
  int weight = 1;  // groups running the task
  int trials = 0;  // measured configs
  int rounds = 0;
  double best_ms = std::numeric_limits<double>::infinity();
  std::vector<double> best_after_round;  // best_ms after each round
  bool finished = false;
};

class TaskScheduler {
 public:
  // Throws lathe::Error for a policy other than "gradient" or "round-robin".
  explicit TaskScheduler(const std::string& policy);

  // The next task to tune, or -1 when every task is finished. Every task gets
  // one round before any gets a second.
  int next_task(const std::vector<TaskTuningState>& tasks);

 private:
  double gradient(const TaskTuningState& task) const;

  bool round_robin_;
  int last_ = -1;
  static constexpr int kWindow = 3;      // rounds the backward gradient looks at
  static constexpr double kAlpha = 0.2;  // weight of the backward gradient
};

}  // namespace lathe::tune
