// The tuner's cost model: gradient-boosted trees (XGBoost) over the features
// of lowered kernels (tune/features.h), trained online on the candidates
// measured so far. The objective is a ranking (pairwise, within a task): the
// search only needs to know which candidates are faster, and a ranking does
// not care that one task's GFLOPS are ten times another's.
// XGBoost itself lives in a module loaded on the first update
// (tune/xgboost_ranker.h), so a program that never trains one does not load
// libxgboost. Calls from several threads take turns.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace lathe::tune {

class CostModel {
 public:
  CostModel();
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // Adds measured samples and retrains from scratch on every sample so far.
  // `throughputs`: higher is better (GFLOPS; 0 for a failed candidate).
  // `groups`: the task id of each sample — the ranking objective compares
  // samples only within a task. Throws lathe::Error, keeping the model as it
  // was, for sizes that disagree (rows of a width other than the first
  // sample's), a negative or non-finite throughput, a failure of XGBoost, or
  // an XGBoost module that cannot be loaded (the message names the file).
  void update(const std::vector<std::vector<float>>& features,
              const std::vector<double>& throughputs, const std::vector<int>& groups);
  // One score per row, higher = predicted faster; all zero before the first
  // training. Scores only order candidates of one task; they are no GFLOPS.
  // Throws lathe::Error for rows whose width differs from the training rows'.
  std::vector<double> predict(const std::vector<std::vector<float>>& features) const;
  bool trained() const;
  size_t num_samples() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lathe::tune
