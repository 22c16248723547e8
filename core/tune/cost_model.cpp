#include "tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <string>

#include "support/error.h"
#include "tune/xgboost_ranker.h"

namespace lathe::tune {
namespace {

// A booster of the XGBoost module, freed by the module that made it.
struct BoosterDeleter {
  const LatheXgboostRanker* ranker = nullptr;
  void operator()(void* booster) const { ranker->free_booster(booster); }
};
using Booster = std::unique_ptr<void, BoosterDeleter>;

}  // namespace

struct CostModel::Impl {
  size_t width = 0;             // features per sample, fixed by the first sample
  std::vector<float> features;  // row-major, one row per sample
  std::vector<double> throughputs;
  std::vector<int> groups;
  Booster booster;
  // The booster's prediction buffer is shared, and update replaces the booster.
  mutable std::mutex mutex;

  size_t rows() const { return throughputs.size(); }
  Booster train() const;
};

// Trains a fresh booster on every sample. The ranking objective reads a
// task's samples as one contiguous query group, so rows go in task order; a
// label is the sample's throughput over its task's best, so 1 is the best seen.
Booster CostModel::Impl::train() const {
  std::vector<size_t> order(rows());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return groups[a] < groups[b]; });
  std::map<int, double> best;
  for (size_t i = 0; i < rows(); ++i) best[groups[i]] = std::max(best[groups[i]], throughputs[i]);

  std::vector<float> data;
  data.reserve(features.size());
  std::vector<float> labels;
  std::vector<unsigned> group_sizes;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    data.insert(data.end(), features.begin() + i * width, features.begin() + (i + 1) * width);
    double top = best[groups[i]];
    labels.push_back(top > 0 ? static_cast<float>(throughputs[i] / top) : 0.0f);
    if (k == 0 || groups[order[k - 1]] != groups[i]) group_sizes.push_back(0);
    ++group_sizes.back();
  }

  // Loaded here, on the first training: only the xgb tuner ever trains.
  const LatheXgboostRanker& ranker = xgboost_ranker();
  Booster booster(ranker.train(data.data(), rows(), width, labels.data(), group_sizes.data(),
                               group_sizes.size()),
                  BoosterDeleter{&ranker});
  if (!booster) fail(str("cost model: ", ranker.last_error()));
  return booster;
}

CostModel::CostModel() : impl_(std::make_unique<Impl>()) {}
CostModel::~CostModel() = default;

void CostModel::update(const std::vector<std::vector<float>>& features,
                       const std::vector<double>& throughputs, const std::vector<int>& groups) {
  LATHE_CHECK(features.size() == throughputs.size() && features.size() == groups.size(),
              "cost model: ", features.size(), " feature rows, ", throughputs.size(),
              " throughputs and ", groups.size(), " groups");
  if (features.empty()) return;
  std::lock_guard lock(impl_->mutex);
  Impl& m = *impl_;
  size_t width = m.width ? m.width : features[0].size();
  LATHE_CHECK(width > 0, "cost model: a sample without features");
  for (size_t i = 0; i < features.size(); ++i) {
    LATHE_CHECK(features[i].size() == width, "cost model: sample ", i, " has ", features[i].size(),
                " features, expected ", width);
    LATHE_CHECK(std::isfinite(throughputs[i]) && throughputs[i] >= 0, "cost model: sample ", i,
                " has throughput ", throughputs[i]);
  }

  size_t old_rows = m.rows();
  m.width = width;
  for (const auto& row : features) m.features.insert(m.features.end(), row.begin(), row.end());
  m.throughputs.insert(m.throughputs.end(), throughputs.begin(), throughputs.end());
  m.groups.insert(m.groups.end(), groups.begin(), groups.end());
  try {
    m.booster = m.train();
  } catch (...) {
    m.features.resize(old_rows * width);
    m.throughputs.resize(old_rows);
    m.groups.resize(old_rows);
    if (old_rows == 0) m.width = 0;
    throw;
  }
}

std::vector<double> CostModel::predict(const std::vector<std::vector<float>>& features) const {
  std::lock_guard lock(impl_->mutex);
  const Impl& m = *impl_;
  if (!m.booster || features.empty()) return std::vector<double>(features.size(), 0.0);
  std::vector<float> data;
  data.reserve(features.size() * m.width);
  for (size_t i = 0; i < features.size(); ++i) {
    LATHE_CHECK(features[i].size() == m.width, "cost model: row ", i, " has ", features[i].size(),
                " features, the model was trained on ", m.width);
    data.insert(data.end(), features[i].begin(), features[i].end());
  }

  // A trained booster means the module is loaded.
  const LatheXgboostRanker& ranker = *m.booster.get_deleter().ranker;
  std::vector<double> scores(features.size());
  if (ranker.predict(m.booster.get(), data.data(), features.size(), m.width, scores.data()) != 0)
    fail(str("cost model: ", ranker.last_error()));
  return scores;
}

bool CostModel::trained() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->booster != nullptr;
}

size_t CostModel::num_samples() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->rows();
}

}  // namespace lathe::tune
