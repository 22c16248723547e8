#include "ir/normalized_error.h"

#include <cmath>

#include "support/error.h"

namespace lathe {

double normalized_error(const Tensor& got, const Tensor& want) {
  LATHE_CHECK(got.type() == want.type(), "output ", got.type().to_string(),
              " does not match the reference ", want.type().to_string());
  double diff = 0, ref = 0;
  visit_dtype(want.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* g = static_cast<const T*>(got.raw());
    const T* w = static_cast<const T*>(want.raw());
    for (int64_t i = 0; i < want.numel(); ++i) {
      const double gi = static_cast<double>(g[i]), wi = static_cast<double>(w[i]);
      // Written so that a NaN is never an operand of std::max, which would drop it.
      if (std::isnan(gi) || std::isnan(wi)) {
        if (std::isnan(gi) != std::isnan(wi)) diff = INFINITY;
      } else if (std::isinf(wi)) {
        if (gi != wi) diff = INFINITY;
      } else {
        diff = std::max(diff, std::abs(gi - wi));
        ref = std::max(ref, std::abs(wi));
      }
    }
  });
  return ref == 0 || std::isinf(diff) ? diff : diff / ref;
}

}  // namespace lathe
