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

// Constant padding of every dimension: `before[d]` and `after[d]` elements
// (both may be empty for "no padding"). Returns `x` itself when nothing pads.
Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           double value = 0.0, const std::string& name = "pad");

// The largest divisor of `n` that is at most `limit` (1 when none larger):
// channel blocks of the NCHWc layout are block(C) = largest_divisor(C, 16).
int64_t largest_divisor(int64_t n, int64_t limit);

// Convolution on channel-blocked data, as TVM's conv2d_NCHWc:
//   data   [N, C/xb, H, W, xb]
//   kernel [OC/ob, Cg/ib, KH, KW, ib, ob]   (Cg = C / groups)
//   out    [N, OC/ob, OH, OW, ob]
// Output channel o = of*ob + oi reads input channel c = (o / (OC/groups)) * Cg + rc,
// rc in [0, Cg), at data[n, c/xb, y*sh + ky*dh - pt, x*sw + kx*dw - pl, c%xb] with weight
// kernel[of, rc/ib, ky, kx, rc%ib, oi]. Depthwise (groups == C == OC) reduces over ky, kx
// only. The padded data is its own stage ("<name>_pad"); the reduction is tagged
// "conv2d_NCHWc" or "depthwise_conv2d_NCHWc", with reduce axes (rco, ry, rx, rci) or (ry, rx).
Tensor conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& p,
                    const std::string& name = "conv");

// NumPy matmul of A and B, either one possibly transposed in its last two
// dimensions (Gemm's transA/transB; a transposed B is read through a
// "<name>_bt" stage that schedules pack into panels). Batch dimensions
// broadcast; a 1-D operand is a vector. Tagged "matmul" when both operands are
// matrices (the output ends in M x N), else "matvec".
Tensor batch_matmul(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false,
                    const std::string& name = "matmul");

// How many taps k in [0, kernel) of one window dimension read an input
// coordinate o * stride + k * dilation - pad_begin inside [lo, hi): a closed
// form per output position `o` (average pooling's divisor).
te::Expr window_tap_count(te::Expr o, int64_t stride, int64_t dilation, int64_t pad_begin,
                          int64_t kernel, int64_t lo, int64_t hi);

// Pools on NCHW, or NCHWc (5-D, the channel block innermost), over the two
// spatial dimensions, with dilations and explicit
// begin/end padding; the output extents are given (ceil_mode and auto_pad are
// already resolved in them).
struct PoolWindow {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t out_h = 1, out_w = 1;
  bool count_include_pad = false;  // AveragePool: divide by the taps inside the padded extent
};
Tensor pool2d_window(const Tensor& input, PoolKind kind, const PoolWindow& w,
                     const std::string& name = "pool");

// Max or mean over every dimension after the first two: [N, C, 1, ..., 1];
// `blocked`: NCHWc data, whose innermost channel block is kept.
Tensor global_pool(const Tensor& input, PoolKind kind, const std::string& name = "pool",
                   bool blocked = false);

// Softmax or log-softmax over any axis: max, exp(x - max) (softmax only), sum,
// and the normalizing stage.
Tensor softmax(const Tensor& x, int axis, bool log, const std::string& name = "softmax");

}  // namespace lathe::topi
