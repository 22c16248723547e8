// Reference kernels for elementwise and broadcasting ops. Float math runs in
// the tensor's own precision, as NumPy computes ONNX's expected outputs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

#define LATHE_FLOATS float, double
#define LATHE_SIGNED int8_t, int16_t, int32_t, int64_t
#define LATHE_UNSIGNED uint8_t, uint16_t, uint32_t, uint64_t
#define LATHE_NUMERIC LATHE_FLOATS, LATHE_SIGNED, LATHE_UNSIGNED

// Integer arithmetic wraps, as NumPy's and ONNX Runtime's does. C++ leaves
// signed overflow undefined (and promotes small types to int, where even
// uint16 * uint16 can overflow), so integers compute in uint64_t, whose
// conversion back to T is modular.
template <typename T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <typename T>
T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  else
    return a - b;
}
template <typename T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}
template <typename T>
T wrapping_neg(T x) {
  if constexpr (std::is_integral_v<T>)
    return wrapping_sub(T{}, x);
  else
    return -x;  // 0 - x would turn -0.0 into +0.0
}

// out = op(a, b) over broadcast inputs of the same type In, output type Out.
template <typename In, typename Out, typename F>
void broadcast_apply(const Tensor& a, const Tensor& b, Tensor& out, F op) {
  const In* pa = static_cast<const In*>(a.raw());
  const In* pb = static_cast<const In*>(b.raw());
  Out* po = out.data<Out>();
  std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a.shape(), out.shape()),
                                                 broadcast_strides(b.shape(), out.shape())};
  for_each_broadcast(out.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
    po[i] = static_cast<Out>(op(pa[off[0]], pb[off[1]]));
  });
}

template <typename... Ts, typename F>
void unary(KernelContext& ctx, F op) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  dispatch_types<Ts...>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] = static_cast<T>(op(px[i]));
  });
}

template <typename... Ts, typename F>
void binary(KernelContext& ctx, F op) {
  dispatch_types<Ts...>(ctx.input(0).dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    broadcast_apply<T, T>(ctx.input(0), ctx.input(1), ctx.output(0), op);
  });
}

template <typename... Ts, typename F>
void compare(KernelContext& ctx, F op) {
  dispatch_types<Ts...>(ctx.input(0).dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    broadcast_apply<T, bool>(ctx.input(0), ctx.input(1), ctx.output(0), op);
  });
}

// Sum, Mean, Max, Min: fold every input into the (broadcast) output.
template <typename F>
void variadic(KernelContext& ctx, F op, bool mean) {
  Tensor& out = ctx.output(0);
  dispatch_types<LATHE_NUMERIC>(out.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.data<T>();
    const Tensor& first = ctx.input(0);
    std::array<std::vector<int64_t>, 1> s0 = {broadcast_strides(first.shape(), out.shape())};
    const T* p0 = first.data<T>();
    for_each_broadcast(out.shape(), s0,
                       [&](int64_t i, const std::array<int64_t, 1>& off) { po[i] = p0[off[0]]; });
    for (size_t k = 1; k < ctx.num_inputs(); ++k) {
      const Tensor& in = ctx.input(k);
      const T* pk = in.data<T>();
      std::array<std::vector<int64_t>, 1> sk = {broadcast_strides(in.shape(), out.shape())};
      for_each_broadcast(out.shape(), sk, [&](int64_t i, const std::array<int64_t, 1>& off) {
        po[i] = static_cast<T>(op(po[i], pk[off[0]]));
      });
    }
    if (mean)
      for (int64_t i = 0, n = out.numel(); i < n; ++i)
        po[i] = static_cast<T>(po[i] / static_cast<T>(ctx.num_inputs()));
  });
}

void div(KernelContext& ctx) {
  dispatch_types<LATHE_NUMERIC>(ctx.input(0).dtype(), "Div", [&](auto tag) {
    using T = decltype(tag);
    broadcast_apply<T, T>(ctx.input(0), ctx.input(1), ctx.output(0), [](T a, T b) -> T {
      if constexpr (std::is_integral_v<T>) {
        if (b == 0) fail("integer division by zero");
        // The lowest value over -1 overflows (x86 traps): it wraps, as negation.
        if constexpr (std::is_signed_v<T>)
          if (b == -1) return wrapping_neg(a);
      }
      return a / b;
    });
  });
}

void mod(KernelContext& ctx) {
  bool fmod = ctx.attrs().get_int("fmod", 0) != 0;
  dispatch_types<LATHE_NUMERIC>(ctx.input(0).dtype(), "Mod", [&](auto tag) {
    using T = decltype(tag);
    // Captured implicitly: unsigned types never read fmod, and clang warns of
    // an explicit capture some instantiations leave unused.
    broadcast_apply<T, T>(ctx.input(0), ctx.input(1), ctx.output(0), [=](T a, T b) -> T {
      if constexpr (std::is_integral_v<T>) {
        if (b == 0) fail("integer modulo by zero");
        if constexpr (std::is_signed_v<T>)
          if (b == -1) return T{};  // the lowest value % -1 traps on x86
        T r = static_cast<T>(a % b);
        // Without fmod the result takes the divisor's sign, as Python's %.
        if constexpr (std::is_signed_v<T>)
          if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        return r;
      } else {
        T r = std::fmod(a, b);
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      }
    });
  });
}

void pow(KernelContext& ctx) {
  const Tensor& base = ctx.input(0);
  const Tensor& exponent = ctx.input(1);
  Tensor& out = ctx.output(0);
  dispatch_types<LATHE_NUMERIC>(base.dtype(), "Pow", [&](auto tag) {
    using T = decltype(tag);
    const T* pb = base.data<T>();
    T* po = out.data<T>();
    std::array<std::vector<int64_t>, 2> strides = {
        broadcast_strides(base.shape(), out.shape()),
        broadcast_strides(exponent.shape(), out.shape())};
    for_each_broadcast(out.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
      double e = exponent.element_as_double(off[1]);
      if constexpr (std::is_same_v<T, float>)
        po[i] = std::pow(pb[off[0]], static_cast<float>(e));
      else
        po[i] = static_cast<T>(std::pow(static_cast<double>(pb[off[0]]), e));
    });
  });
}

void where(KernelContext& ctx) {
  const Tensor& cond = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  Tensor& out = ctx.output(0);
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const bool* pc = cond.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    std::array<std::vector<int64_t>, 3> strides = {broadcast_strides(cond.shape(), out.shape()),
                                                   broadcast_strides(x.shape(), out.shape()),
                                                   broadcast_strides(y.shape(), out.shape())};
    for_each_broadcast(out.shape(), strides, [&](int64_t i, const std::array<int64_t, 3>& off) {
      po[i] = pc[off[0]] ? px[off[1]] : py[off[2]];
    });
  });
}

// A float (read from any type) as To, saturating NaN to 0 for integers as
// the rest of cast does.
template <typename To>
To storage_float_cast(float v) {
  if constexpr (std::is_same_v<To, bool>)
    return v != 0.0f;
  else if constexpr (std::is_integral_v<To>)
    return std::isnan(v) ? To{} : static_cast<To>(static_cast<long double>(v));
  else
    return To(v);
}

void cast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  visit_dtype(x.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    visit_dtype(y.dtype(), [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* px = x.data<From>();
      To* py = y.data<To>();
      for (int64_t i = 0, n = x.numel(); i < n; ++i) {
        if constexpr (is_storage_float_v<From> || is_storage_float_v<To>) {
          // Through float, as ONNX Runtime casts them: exact for the storage
          // floats' widening, one rounding to nearest even for their narrowing.
          py[i] = storage_float_cast<To>(static_cast<float>(px[i]));
        } else if constexpr (std::is_same_v<To, bool>) {
          py[i] = px[i] != From{};
        } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
          // Out-of-range float to int is undefined in C++; saturate NaN to 0.
          From v = px[i];
          py[i] = std::isnan(v) ? To{} : static_cast<To>(static_cast<long double>(v));
        } else {
          py[i] = static_cast<To>(px[i]);
        }
      }
    });
  });
}

void shrink(KernelContext& ctx) {
  const double bias = ctx.attrs().get_float("bias", 0.0f);
  const double lambd = ctx.attrs().get_float("lambd", 0.5f);
  // The comparisons run in double so that -lambd means the same for unsigned
  // types; the shifted value is computed in the tensor's type, as onnxruntime does.
  unary<LATHE_NUMERIC>(ctx, [bias, lambd](auto x) {
    using T = decltype(x);
    double v = static_cast<double>(x);
    if (v < -lambd) return static_cast<T>(x + static_cast<T>(bias));
    if (v > lambd) return static_cast<T>(x - static_cast<T>(bias));
    return T{};
  });
}

void bit_shift(KernelContext& ctx) {
  const bool left = ctx.attrs().get_string("direction", "") == "LEFT";
  binary<LATHE_UNSIGNED>(ctx, [left](auto a, auto b) {
    using T = decltype(a);
    // Shifting by the bit width or more is undefined in C++; every bit is
    // shifted out then, so the result is 0.
    if (static_cast<uint64_t>(b) >= std::numeric_limits<T>::digits) return T{0};
    return static_cast<T>(left ? a << b : a >> b);
  });
}

void clip(KernelContext& ctx) {
  dispatch_types<LATHE_NUMERIC>(ctx.input(0).dtype(), "Clip", [&](auto tag) {
    using T = decltype(tag);
    T lo = ctx.has_input(1) ? ctx.input(1).data<T>()[0] : std::numeric_limits<T>::lowest();
    T hi = ctx.has_input(2) ? ctx.input(2).data<T>()[0] : std::numeric_limits<T>::max();
    const T* px = ctx.input(0).data<T>();
    T* py = ctx.output(0).data<T>();
    for (int64_t i = 0, n = ctx.input(0).numel(); i < n; ++i)
      py[i] = std::min(std::max(px[i], lo), hi);
  });
}

template <typename T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

void register_unary_math(OpRegistry& r) {
  auto set = [&](const char* op, KernelFn fn) { r.find_mutable(op)->kernel = fn; };
  set("Sqrt",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::sqrt(x); }); });
  set("Exp", [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::exp(x); }); });
  set("Log", [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::log(x); }); });
  set("Erf", [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::erf(x); }); });
  set("Floor",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::floor(x); }); });
  set("Ceil",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::ceil(x); }); });
  // ONNX rounds halves to even, which is nearbyint under the default rounding mode.
  set("Round",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::nearbyint(x); }); });
  set("Tanh",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::tanh(x); }); });
  set("Sin", [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::sin(x); }); });
  set("Cos", [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::cos(x); }); });
  set("Tan", [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::tan(x); }); });
  set("Asin",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::asin(x); }); });
  set("Acos",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::acos(x); }); });
  set("Atan",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::atan(x); }); });
  set("Sinh",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::sinh(x); }); });
  set("Cosh",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::cosh(x); }); });
  set("Asinh",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::asinh(x); }); });
  set("Acosh",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::acosh(x); }); });
  set("Atanh",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return std::atanh(x); }); });
  set("Reciprocal",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return decltype(x)(1) / x; }); });
  set("Sigmoid",
      [](KernelContext& c) { unary<LATHE_FLOATS>(c, [](auto x) { return sigmoid(x); }); });
  set("Softplus", [](KernelContext& c) {
    unary<LATHE_FLOATS>(c, [](auto x) { return std::log(std::exp(x) + decltype(x)(1)); });
  });
  set("Softsign", [](KernelContext& c) {
    unary<LATHE_FLOATS>(c, [](auto x) { return x / (decltype(x)(1) + std::abs(x)); });
  });
  set("IsNaN", [](KernelContext& c) {
    dispatch_types<LATHE_FLOATS>(c.input(0).dtype(), "IsNaN", [&](auto tag) {
      using T = decltype(tag);
      const T* px = c.input(0).data<T>();
      bool* py = c.output(0).data<bool>();
      for (int64_t i = 0, n = c.input(0).numel(); i < n; ++i) py[i] = std::isnan(px[i]);
    });
  });
  set("IsInf", [](KernelContext& c) {
    bool pos = c.attrs().get_int("detect_positive", 1) != 0;
    bool neg = c.attrs().get_int("detect_negative", 1) != 0;
    dispatch_types<LATHE_FLOATS>(c.input(0).dtype(), "IsInf", [&](auto tag) {
      using T = decltype(tag);
      const T* px = c.input(0).data<T>();
      bool* py = c.output(0).data<bool>();
      for (int64_t i = 0, n = c.input(0).numel(); i < n; ++i)
        py[i] = std::isinf(px[i]) && ((px[i] > 0 && pos) || (px[i] < 0 && neg));
    });
  });
}

void register_activations(OpRegistry& r) {
  auto set = [&](const char* op, KernelFn fn) { r.find_mutable(op)->kernel = fn; };
  set("Relu", [](KernelContext& c) {
    // NaN stays NaN (it fails x < 0), as np.maximum(x, 0) in ONNX's reference.
    unary<LATHE_NUMERIC>(c, [](auto x) { return x < decltype(x){} ? decltype(x){} : x; });
  });
  set("Abs", [](KernelContext& c) {
    unary<LATHE_NUMERIC>(c, [](auto x) {
      if constexpr (std::is_unsigned_v<decltype(x)>)
        return x;
      else
        return x < decltype(x){} ? wrapping_neg(x) : x;
    });
  });
  set("Neg", [](KernelContext& c) {
    unary<LATHE_FLOATS, LATHE_SIGNED>(c, [](auto x) { return wrapping_neg(x); });
  });
  set("Sign", [](KernelContext& c) {
    unary<LATHE_FLOATS, LATHE_SIGNED>(c, [](auto x) {
      using T = decltype(x);
      return x > T{} ? T(1) : (x < T{} ? T(-1) : T{});
    });
  });
  set("LeakyRelu", [](KernelContext& c) {
    float alpha = c.attrs().get_float("alpha", 0.01f);
    unary<LATHE_FLOATS>(c, [alpha](auto x) { return x >= 0 ? x : x * alpha; });
  });
  set("ThresholdedRelu", [](KernelContext& c) {
    float alpha = c.attrs().get_float("alpha", 1.0f);
    unary<LATHE_FLOATS>(c, [alpha](auto x) { return x > alpha ? x : decltype(x){}; });
  });
  set("Elu", [](KernelContext& c) {
    float alpha = c.attrs().get_float("alpha", 1.0f);
    unary<LATHE_FLOATS>(c, [alpha](auto x) {
      using T = decltype(x);
      return x >= 0 ? x : static_cast<T>(alpha) * (std::exp(x) - T(1));
    });
  });
  set("Celu", [](KernelContext& c) {
    float alpha = c.attrs().get_float("alpha", 1.0f);
    unary<LATHE_FLOATS>(c, [alpha](auto x) {
      using T = decltype(x);
      T a = static_cast<T>(alpha);
      return std::max(T{}, x) + std::min(T{}, a * (std::exp(x / a) - T(1)));
    });
  });
  set("Selu", [](KernelContext& c) {
    float alpha = c.attrs().get_float("alpha", 1.67326319217681884765625f);
    float gamma = c.attrs().get_float("gamma", 1.05070102214813232421875f);
    unary<LATHE_FLOATS>(c, [alpha, gamma](auto x) {
      using T = decltype(x);
      return x > 0 ? static_cast<T>(gamma) * x
                   : static_cast<T>(gamma) *
                         (static_cast<T>(alpha) * std::exp(x) - static_cast<T>(alpha));
    });
  });
  set("HardSigmoid", [](KernelContext& c) {
    float alpha = c.attrs().get_float("alpha", 0.2f);
    float beta = c.attrs().get_float("beta", 0.5f);
    unary<LATHE_FLOATS>(c, [alpha, beta](auto x) {
      using T = decltype(x);
      return std::max(T{}, std::min(T(1), static_cast<T>(alpha) * x + static_cast<T>(beta)));
    });
  });
  set("HardSwish", [](KernelContext& c) {
    unary<LATHE_FLOATS>(c, [](auto x) {
      using T = decltype(x);
      return x * std::max(T{}, std::min(T(1), x / T(6) + T(0.5)));
    });
  });
  set("Clip", clip);
  set("Cast", cast);
  // CastLike's output type, inferred from target_type, is all the cast needs.
  set("CastLike", cast);
  set("Shrink", shrink);
}

void register_binary(OpRegistry& r) {
  auto set = [&](const char* op, KernelFn fn) { r.find_mutable(op)->kernel = fn; };
  set("Add", [](KernelContext& c) {
    binary<LATHE_NUMERIC>(c, [](auto a, auto b) { return wrapping_add(a, b); });
  });
  set("Sub", [](KernelContext& c) {
    binary<LATHE_NUMERIC>(c, [](auto a, auto b) { return wrapping_sub(a, b); });
  });
  set("Mul", [](KernelContext& c) {
    binary<LATHE_NUMERIC>(c, [](auto a, auto b) { return wrapping_mul(a, b); });
  });
  set("Div", div);
  set("Mod", mod);
  set("Pow", pow);
  set("Sum", [](KernelContext& c) {
    variadic(
        c, [](auto a, auto b) { return wrapping_add(a, b); }, false);
  });
  set("Mean", [](KernelContext& c) {
    variadic(
        c, [](auto a, auto b) { return wrapping_add(a, b); }, true);
  });
  // NaN propagates through Max and Min, as in NumPy's maximum/minimum.
  set("Max", [](KernelContext& c) {
    variadic(
        c, [](auto a, auto b) { return a != a ? a : (b != b ? b : std::max(a, b)); }, false);
  });
  set("Min", [](KernelContext& c) {
    variadic(
        c, [](auto a, auto b) { return a != a ? a : (b != b ? b : std::min(a, b)); }, false);
  });
  set("Equal", [](KernelContext& c) {
    compare<LATHE_NUMERIC, bool>(c, [](auto a, auto b) { return a == b; });
  });
  set("Less",
      [](KernelContext& c) { compare<LATHE_NUMERIC>(c, [](auto a, auto b) { return a < b; }); });
  set("Greater",
      [](KernelContext& c) { compare<LATHE_NUMERIC>(c, [](auto a, auto b) { return a > b; }); });
  set("LessOrEqual",
      [](KernelContext& c) { compare<LATHE_NUMERIC>(c, [](auto a, auto b) { return a <= b; }); });
  set("GreaterOrEqual",
      [](KernelContext& c) { compare<LATHE_NUMERIC>(c, [](auto a, auto b) { return a >= b; }); });
  set("And", [](KernelContext& c) { compare<bool>(c, [](bool a, bool b) { return a && b; }); });
  set("Or", [](KernelContext& c) { compare<bool>(c, [](bool a, bool b) { return a || b; }); });
  set("Xor", [](KernelContext& c) { compare<bool>(c, [](bool a, bool b) { return a != b; }); });
  set("Not", [](KernelContext& c) { unary<bool>(c, [](bool a) { return !a; }); });
  set("Where", where);
  set("BitShift", bit_shift);
  set("BitwiseAnd", [](KernelContext& c) {
    binary<LATHE_SIGNED, LATHE_UNSIGNED>(c, [](auto a, auto b) { return a & b; });
  });
  set("BitwiseOr", [](KernelContext& c) {
    binary<LATHE_SIGNED, LATHE_UNSIGNED>(c, [](auto a, auto b) { return a | b; });
  });
  set("BitwiseXor", [](KernelContext& c) {
    binary<LATHE_SIGNED, LATHE_UNSIGNED>(c, [](auto a, auto b) { return a ^ b; });
  });
  set("BitwiseNot",
      [](KernelContext& c) { unary<LATHE_SIGNED, LATHE_UNSIGNED>(c, [](auto a) { return ~a; }); });
}

}  // namespace

void register_elementwise_kernels(OpRegistry& r) {
  register_unary_math(r);
  register_activations(r);
  register_binary(r);
}

}  // namespace lathe::reference
