#include "driver/tensor_statistics.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace lathe::driver {
namespace {

// Visits every element as a double; float32 (nearly every weight) without
// the per-element dtype dispatch of Tensor::element_as_double.
template <typename F>
void for_each_element(const Tensor& tensor, F&& f) {
  const int64_t n = tensor.numel();
  if (tensor.dtype() == DType::Float32) {
    const float* p = tensor.data<float>();
    for (int64_t i = 0; i < n; ++i) f(static_cast<double>(p[i]));
    return;
  }
  for (int64_t i = 0; i < n; ++i) f(tensor.element_as_double(i));
}

}  // namespace

double TensorStatistics::bin_width() const {
  if (bin_counts.empty()) return 0;
  const double span = max - min;
  return span > 0 ? span / static_cast<double>(bin_counts.size()) : 1;
}

TensorStatistics tensor_statistics(const Tensor& tensor, int bins) {
  LATHE_CHECK(bins > 0, "tensor_statistics: the histogram needs at least one bin, got ", bins);
  TensorStatistics s;
  s.count = tensor.defined() ? tensor.numel() : 0;
  if (s.count == 0) return s;

  // Welford's update keeps the variance accurate for millions of elements.
  double mean = 0, m2 = 0, abs_sum = 0, squares = 0;
  double lo = INFINITY, hi = -INFINITY;
  for_each_element(tensor, [&](double x) {
    if (std::isnan(x)) {
      ++s.nans;
      return;
    }
    if (std::isinf(x)) {
      ++s.infinities;
      return;
    }
    if (x == 0) ++s.zeros;
    ++s.finite;
    const double delta = x - mean;
    mean += delta / static_cast<double>(s.finite);
    m2 += delta * (x - mean);
    abs_sum += std::fabs(x);
    squares += x * x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  });
  if (s.finite == 0) return s;
  const auto finite = static_cast<double>(s.finite);
  s.min = lo;
  s.max = hi;
  s.mean = mean;
  s.stddev = std::sqrt(m2 / finite);
  s.mean_abs = abs_sum / finite;
  s.l2_norm = std::sqrt(squares);

  s.bin_counts.assign(hi > lo ? static_cast<size_t>(bins) : 1, 0);
  const double width = s.bin_width();
  const size_t last = s.bin_counts.size() - 1;
  for_each_element(tensor, [&](double x) {
    if (!std::isfinite(x)) return;
    // The maximum belongs to the last bin, as in numpy.histogram.
    const auto bin = static_cast<size_t>(std::max(0.0, (x - lo) / width));
    ++s.bin_counts[std::min(bin, last)];
  });
  return s;
}

}  // namespace lathe::driver
