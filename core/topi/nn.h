// Compute definitions (TE) of the operators the kernel compiler is tested and
// benchmarked on; the start of TOPI's inventory. Shapes are static; layouts
// are NCHW as ONNX has them.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace lathe::topi {

using te::Tensor;

// C[i, j] = sum_k A[i, k] * B[k, j]
Tensor matmul(const Tensor& a, const Tensor& b, const std::string& name = "C");

// Zero (or `value`) padding of the trailing two dimensions: an injective
// stage that schedules usually inline.
Tensor pad2d(const Tensor& x, int64_t pad_top, int64_t pad_left, int64_t pad_bottom,
             int64_t pad_right, double value = 0.0, const std::string& name = "pad");

struct Conv2dParams {
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
};

// out[n, f, y, x] = sum_{rc, ry, rx} pad(in)[n, g*C/G + rc, y*sh + ry*dh, x*sw + rx*dw] * w[f, rc,
// ry, rx]
Tensor conv2d_nchw(const Tensor& input, const Tensor& weight, const Conv2dParams& p,
                   const std::string& name = "conv");

enum class PoolKind { Max, Avg };
struct Pool2dParams {
  int64_t kernel_h = 2, kernel_w = 2;
  int64_t stride_h = 2, stride_w = 2;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool count_include_pad = false;
};
Tensor pool2d_nchw(const Tensor& input, PoolKind kind, const Pool2dParams& p,
                   const std::string& name = "pool");

// Softmax over the last axis, as four stages: max, exp(x - max), sum, divide.
Tensor softmax_last_axis(const Tensor& x, const std::string& name = "softmax");

}  // namespace lathe::topi
