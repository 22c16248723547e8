// The XGBoost side of the tuner's cost model: training and prediction of a
// ranking booster over flat feature matrices, behind the C interface of
// tune/xgboost_ranker_abi.h. Built as its own shared module, the only Lathe
// binary that links libxgboost; the hyperparameters live here with the calls.
#include <xgboost/c_api.h>

#include <algorithm>
#include <limits>
#include <string>
#include <thread>
#include <utility>

#include "tune/xgboost_ranker_abi.h"

namespace {

// Boosting rounds of each retraining: enough for a few thousand samples,
// few enough that retraining every round of the search stays in milliseconds.
constexpr int kRounds = 48;

thread_local std::string last_error_message;

// Thrown inside the module only: each entry point turns it into its return value.
struct XgboostFailure {
  std::string message;
};

void check(int rc, const char* call) {
  if (rc != 0) throw XgboostFailure{std::string(call) + " failed: " + XGBGetLastError()};
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
  Matrix(const float* data, size_t rows, size_t width) {
    check(XGDMatrixCreateFromMat(data, rows, width, std::numeric_limits<float>::quiet_NaN(),
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

void* train(const float* data, size_t rows, size_t width, const float* labels,
            const unsigned* group_sizes, size_t num_groups) {
  BoosterHandle handle = nullptr;
  try {
    silence_xgboost();
    Matrix matrix(data, rows, width);
    check(XGDMatrixSetFloatInfo(matrix.get(), "label", labels, rows), "XGDMatrixSetFloatInfo");
    check(XGDMatrixSetUIntInfo(matrix.get(), "group", group_sizes, num_groups),
          "XGDMatrixSetUIntInfo");
    DMatrixHandle train_set[] = {matrix.get()};
    check(XGBoosterCreate(train_set, 1, &handle), "XGBoosterCreate");
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
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
    return handle;
  } catch (const XgboostFailure& failure) {
    if (handle) XGBoosterFree(handle);
    last_error_message = failure.message;
  } catch (const std::exception& e) {
    if (handle) XGBoosterFree(handle);
    last_error_message = e.what();
  }
  return nullptr;
}

int predict(void* booster, const float* data, size_t rows, size_t width, double* scores) {
  try {
    silence_xgboost();
    Matrix matrix(data, rows, width);
    const char* config =
        R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0,)"
        R"( "strict_shape": false})";
    const bst_ulong* shape = nullptr;
    bst_ulong dims = 0;
    const float* result = nullptr;
    check(XGBoosterPredictFromDMatrix(booster, matrix.get(), config, &shape, &dims, &result),
          "XGBoosterPredictFromDMatrix");
    bst_ulong count = 1;
    for (bst_ulong d = 0; d < dims; ++d) count *= shape[d];
    if (count != rows)
      throw XgboostFailure{"XGBoost returned " + std::to_string(count) + " predictions for " +
                           std::to_string(rows) + " rows"};
    std::copy(result, result + count, scores);
    return 0;
  } catch (const XgboostFailure& failure) {
    last_error_message = failure.message;
  } catch (const std::exception& e) {
    last_error_message = e.what();
  }
  return -1;
}

void free_booster(void* booster) {
  XGBoosterFree(booster);
}

const char* last_error() {
  return last_error_message.c_str();
}

constexpr LatheXgboostRanker kRanker = {LATHE_XGBOOST_RANKER_ABI_VERSION, train, predict,
                                        free_booster, last_error};

}  // namespace

extern "C" __attribute__((visibility("default"))) const LatheXgboostRanker* lathe_xgboost_ranker() {
  return &kRanker;
}
