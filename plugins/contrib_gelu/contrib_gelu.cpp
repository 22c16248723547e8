// The contrib_gelu plugin: ONNX Runtime's com.microsoft Gelu and FastGelu,
// which transformer exports (BERT, GPT-2 through ORT's fusions) contain and
// Lathe's core lacks. Each op is complete from this folder: inference (its
// schema), the reference kernel and the TE compute, scheduled by the generic
// template. The formulas are ORT's (contrib_ops/cpu/bert/{gelu,fast_gelu}.h):
//   Gelu(x)           = 0.5 x (1 + erf(x / sqrt 2))
//   FastGelu(x [, b]) = 0.5 y (1 + tanh(sqrt(2/pi) (y + 0.044715 y^3))), y = x + b
// where the optional bias b is a 1-D tensor along the last axis.
#include <cmath>

#include "ir/ops/infer_util.h"
#include "plugin/plugin_api.h"
#include "te/tensor.h"

namespace lathe::contrib_gelu {
namespace {

constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kFastGeluCubic = 0.044715;

// ---- schemas -------------------------------------------------------------

void infer_gelu(InferContext& ctx) {
  LATHE_CHECK(ctx.num_inputs() == 1, "Gelu takes one input, got ", ctx.num_inputs());
  ctx.check_dtype(0, kFloatTypes);
  infer_same_as_input(ctx);
}

void infer_fast_gelu(InferContext& ctx) {
  LATHE_CHECK(ctx.num_inputs() <= 2, "FastGelu takes an input and an optional bias, got ",
              ctx.num_inputs(), " inputs");
  ctx.check_dtype(0, kFloatTypes);
  const TensorType& x = ctx.input(0);
  if (ctx.has_input(1)) {
    const TensorType& bias = ctx.input(1);
    LATHE_CHECK(bias.dtype == x.dtype, "FastGelu's bias is ", dtype_name(bias.dtype),
                " but its input is ", dtype_name(x.dtype));
    LATHE_CHECK(!x.shape.empty() && bias.shape == Shape{x.shape.back()},
                "FastGelu's bias must be 1-D with the input's last dimension (",
                x.shape.empty() ? 0 : x.shape.back(), "), got ", shape_to_string(bias.shape));
  }
  ctx.set_output(0, x);
}

// ---- reference kernels: double arithmetic, one element at a time ----------

double gelu(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

double fast_gelu(double y) {
  return 0.5 * y * (1.0 + std::tanh(kSqrt2OverPi * (y + kFastGeluCubic * y * y * y)));
}

template <typename T>
void gelu_elements(KernelContext& ctx) {
  const T* x = ctx.input(0).data<T>();
  T* y = ctx.output(0).data<T>();
  for (int64_t i = 0; i < ctx.output(0).numel(); ++i) y[i] = static_cast<T>(gelu(x[i]));
}

template <typename T>
void fast_gelu_elements(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const T* x = input.data<T>();
  const T* bias = ctx.has_input(1) ? ctx.input(1).data<T>() : nullptr;
  const int64_t row = input.shape().empty() ? 1 : input.shape().back();
  T* y = ctx.output(0).data<T>();
  for (int64_t i = 0; i < input.numel(); ++i) {
    const double v = static_cast<double>(x[i]) + (bias ? static_cast<double>(bias[i % row]) : 0.0);
    y[i] = static_cast<T>(fast_gelu(v));
  }
}

void gelu_kernel(KernelContext& ctx) {
  if (ctx.input(0).dtype() == DType::Float64)
    gelu_elements<double>(ctx);
  else
    gelu_elements<float>(ctx);
}

void fast_gelu_kernel(KernelContext& ctx) {
  if (ctx.input(0).dtype() == DType::Float64)
    fast_gelu_elements<double>(ctx);
  else
    fast_gelu_elements<float>(ctx);
}

// ---- TE computes: one elementwise stage each, in the tensor's type --------

std::vector<te::Expr> index_of(const std::vector<te::Var>& vars) {
  return {vars.begin(), vars.end()};
}

std::vector<te::Tensor> gelu_compute(const topi::ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  return {te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) {
        const te::Expr v = x(index_of(i));
        const auto c = [&](double value) { return te::make_const(v.type(), value); };
        return c(0.5) * v * (c(1.0) + te::erf(v * c(1.0 / std::sqrt(2.0))));
      },
      ctx.name(), {}, "elemwise")};
}

std::vector<te::Tensor> fast_gelu_compute(const topi::ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const bool has_bias = ctx.has_input(1);
  return {te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) {
        te::Expr y = x(index_of(i));
        if (has_bias) y = y + ctx.input(1)(i.back());
        const auto c = [&](double value) { return te::make_const(y.type(), value); };
        const te::Expr inner = c(kSqrt2OverPi) * (y + c(kFastGeluCubic) * y * y * y);
        return c(0.5) * y * (c(1.0) + te::tanh(inner));
      },
      ctx.name(), {}, has_bias ? "broadcast" : "elemwise")};
}

void register_ops(plugin::Registrar& registrar) {
  registrar.define_op("com.microsoft.Gelu", FusionKind::ElemWise, infer_gelu);
  registrar.define_kernel("com.microsoft.Gelu", gelu_kernel);
  registrar.define_compute("com.microsoft.Gelu", gelu_compute);

  // With its bias, FastGelu broadcasts it along the last axis.
  registrar.define_op("com.microsoft.FastGelu", FusionKind::Broadcast, infer_fast_gelu);
  registrar.define_kernel("com.microsoft.FastGelu", fast_gelu_kernel);
  registrar.define_compute("com.microsoft.FastGelu", fast_gelu_compute);
}

const LathePluginDescriptor descriptor = {LATHE_PLUGIN_ABI_VERSION, "contrib_gelu", "1.0",
                                          "ONNX Runtime's com.microsoft Gelu and FastGelu",
                                          register_ops};

}  // namespace
}  // namespace lathe::contrib_gelu

LATHE_PLUGIN(lathe::contrib_gelu::descriptor)
