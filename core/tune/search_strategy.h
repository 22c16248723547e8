// How the next configs of one task are chosen, after AutoTVM's tuners:
//   random  — uniformly among the configs not tried yet;
//   grid    — in index order;
//   ga      — a genetic algorithm over knob values, fitness the measured GFLOPS;
//   xgb     — model-guided evolutionary search (Ansor's): a population of the
//             best measured configs and random ones is mutated and crossed
//             over for a few generations, scored by the cost model, and the
//             best-scored untried configs are measured, with some random ones
//             (epsilon-greedy) so the model keeps learning.
// Every strategy proposes each config at most once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "topi/config_space.h"

namespace lathe::tune {

// Predicted scores (higher is faster) of configs of the strategy's task.
using ConfigScorer = std::function<std::vector<double>(const std::vector<topi::Config>&)>;

class SearchStrategy {
 public:
  SearchStrategy(const topi::SearchSpace& space, uint64_t seed);
  virtual ~SearchStrategy() = default;

  // Up to `n` configs never proposed before; fewer when the space runs out.
  std::vector<topi::Config> next_batch(int n);
  // Marks configs as tried without proposing them (prior records).
  void mark_tried(const topi::Config& config);
  // Measured throughput of proposed configs, 0 for a failed one.
  virtual void update(const std::vector<topi::Config>& configs, const std::vector<double>& gflops);
  bool exhausted() const;

 protected:
  virtual std::vector<topi::Config> propose(int n) = 0;
  topi::Config random_config();
  // random_config, mutate and crossover return points of the space (valid
  // configs), unless kValidAttempts draws found none.
  topi::Config mutate(const topi::Config& config);
  topi::Config crossover(const topi::Config& a, const topi::Config& b);
  bool tried(const topi::Config& config) const { return tried_.count(config) > 0; }
  // Fills `out` up to n with random untried configs (not already in out).
  void fill_random(std::vector<topi::Config>& out, int n);
  topi::Config mutate_once(const topi::Config& config);  // may leave the constraint

  static constexpr int kValidAttempts = 64;
  const topi::SearchSpace& space_;
  std::mt19937_64 rng_;
  std::set<topi::Config> tried_;
  std::vector<std::pair<double, topi::Config>> measured_;  // gflops, config
};

// `kind`: "random", "grid", "ga" or "xgb"; the scorer is used by "xgb" only.
// Throws lathe::Error for an unknown kind.
std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& kind,
                                                     const topi::SearchSpace& space, uint64_t seed,
                                                     ConfigScorer scorer);

}  // namespace lathe::tune
