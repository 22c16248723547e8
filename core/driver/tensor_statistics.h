// Summary statistics and a histogram of a constant tensor, for the studio's
// inspector: what a user checks in a weight before blaming the compiler
// (NaNs, dead channels, a folded BatchNorm that blew the range up).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/tensor.h"

namespace lathe::driver {

struct TensorStatistics {
  int64_t count = 0;  // all elements
  int64_t finite = 0;
  int64_t nans = 0;
  int64_t infinities = 0;
  int64_t zeros = 0;
  // Over the finite elements; all 0 when there are none.
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  // population standard deviation
  double mean_abs = 0;
  double l2_norm = 0;
  // Equal-width bins over [min, max] of the finite elements; bin_counts sums
  // to `finite`. A constant tensor has one bin.
  std::vector<int64_t> bin_counts;
  double bin_width() const;
  // The left edge of bin i.
  double bin_start(size_t i) const { return min + static_cast<double>(i) * bin_width(); }
};

// Two passes over the data; `bins` must be positive.
TensorStatistics tensor_statistics(const Tensor& tensor, int bins = 64);

}  // namespace lathe::driver
