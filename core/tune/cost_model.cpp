#include "tune/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

#include "support/error.h"

namespace lathe::tune {
namespace {

// Boosting rounds of each retraining: enough for a few thousand samples,
// few enough that retraining every round of the search stays in milliseconds.
constexpr int kRounds = 48;

void check(int rc, const char* call) {
  if (rc != 0) throw Error(str("cost model: ", call, " failed: ", XGBGetLastError()));
}

void discard_log(const char*) {}

// XGBoost keeps its verbosity and log callback per thread, and its warnings
// would reach the tuner's stdout: each thread that calls it turns them off first.
void silence_xgboost() {
  thread_local bool silenced = false;
  if (silenced) return;
  check(XGBSetGlobalConfig(R"({"verbosity": 0})"), "XGBSetGlobalConfig");
  check(XGBRegisterLogCallback(discard_log), "XGBRegisterLogCallback");
  silenced = true;
}

class Matrix {
 public:
  // `data` is row-major, rows × width.
  Matrix(const std::vector<float>& data, size_t rows, size_t width) {
    check(XGDMatrixCreateFromMat(data.data(), rows, width, std::numeric_limits<float>::quiet_NaN(),
                                 &handle_),
          "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(handle_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

struct BoosterDeleter {
  void operator()(void* b) const { XGBoosterFree(b); }
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

  Matrix matrix(data, rows(), width);
  check(XGDMatrixSetFloatInfo(matrix.get(), "label", labels.data(), labels.size()),
        "XGDMatrixSetFloatInfo");
  check(XGDMatrixSetUIntInfo(matrix.get(), "group", group_sizes.data(), group_sizes.size()),
        "XGDMatrixSetUIntInfo");

  DMatrixHandle train_set[] = {matrix.get()};
  BoosterHandle handle = nullptr;
  check(XGBoosterCreate(train_set, 1, &handle), "XGBoosterCreate");
  Booster booster(handle);
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  const std::pair<const char*, std::string> params[] = {
      {"objective", "rank:pairwise"},
      {"tree_method", "hist"},
      {"max_depth", "6"},
      {"eta", "0.3"},
      {"gamma", "0.0001"},
      {"min_child_weight", "1"},
      {"seed", "7"},
      {"nthread", std::to_string(threads)},
      {"verbosity", "0"},
  };
  for (const auto& [key, value] : params)
    check(XGBoosterSetParam(handle, key, value.c_str()), "XGBoosterSetParam");
  for (int round = 0; round < kRounds; ++round)
    check(XGBoosterUpdateOneIter(handle, round, matrix.get()), "XGBoosterUpdateOneIter");
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
    silence_xgboost();
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

  silence_xgboost();
  Matrix matrix(data, features.size(), m.width);
  const char* config = R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0,)"
                       R"( "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  check(XGBoosterPredictFromDMatrix(m.booster.get(), matrix.get(), config, &shape, &dims, &result),
        "XGBoosterPredictFromDMatrix");
  bst_ulong count = 1;
  for (bst_ulong d = 0; d < dims; ++d) count *= shape[d];
  LATHE_CHECK(count == features.size(), "cost model: XGBoost returned ", count, " predictions for ",
              features.size(), " rows");
  return std::vector<double>(result, result + count);
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
