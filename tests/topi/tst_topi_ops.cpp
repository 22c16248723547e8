// Numeric tests of TOPI's compute definitions for the elementwise, shape,
// reduce and indexing ops: each case builds one node's compute from
// placeholders through OpStrategyRegistry, schedules it with the generic
// default schedule, lowers and JIT-compiles it (all cases of a test in one
// module), runs it on random inputs and compares with the reference kernel:
// exactly for integers and bools, within 1e-5 normalized error for floats.
// A coverage test fails for any op of these families without a compute or a
// case here.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <set>

#include "codegen/codegen.h"
#include "kernel_harness.h"
#include "op_cases.h"
#include "reference/executor.h"
#include "support/error.h"
#include "tir/lower.h"
#include "topi/default_schedule.h"
#include "topi/op_compute.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

// ---- The cases ---------------------------------------------------------------

const DType kF32 = DType::Float32, kF64 = DType::Float64, kI8 = DType::Int8, kI32 = DType::Int32,
            kI64 = DType::Int64, kU8 = DType::UInt8, kU16 = DType::UInt16, kU32 = DType::UInt32,
            kBool = DType::Bool;

std::vector<Case> elementwise_cases() {
  std::vector<Case> cases;
  auto unary = [&](const char* op, double lo, double hi, Attributes a = {}) {
    cases.push_back({op, a, {f32({3, 37}, lo, hi)}, 1, "f32"});
    cases.push_back({op, a, {in(kF64, {2, 5}, lo, hi)}, 1, "f64"});
  };
  for (const char* op : {"Exp", "Erf", "Floor", "Ceil", "Tanh", "Sigmoid", "Sin", "Cos", "Atan",
                         "Sinh", "Cosh", "Asinh", "Softplus", "Softsign", "Reciprocal"})
    unary(op, -3, 3);
  unary("Round", -4, 4);
  unary("Tan", -1.5, 1.5);
  for (const char* op : {"Asin", "Acos", "Atanh"}) unary(op, -0.99, 0.99);
  unary("Acosh", 1, 5);
  for (const char* op : {"Sqrt", "Log"}) unary(op, 0.01, 5);
  for (const char* op : {"HardSwish", "Relu", "Abs", "Neg", "Sign", "Selu"}) unary(op, -5, 5);
  unary("Elu", -3, 3, attrs({{"alpha", 0.7f}}));
  unary("Celu", -3, 3, attrs({{"alpha", 1.3f}}));
  unary("LeakyRelu", -3, 3, attrs({{"alpha", 0.2f}}));
  unary("ThresholdedRelu", -3, 3, attrs({{"alpha", 0.5f}}));
  unary("HardSigmoid", -5, 5, attrs({{"alpha", 0.3f}, {"beta", 0.4f}}));
  unary("Shrink", -3, 3, attrs({{"bias", 0.25f}, {"lambd", 1.0f}}));
  for (const char* op : {"Relu", "Abs", "Neg", "Sign"}) {
    cases.push_back({op, {}, {in(kI32, {4, 9}, -50, 50)}, 1, "i32"});
    cases.push_back({op, {}, {in(kI8, {17}, -100, 100)}, 1, "i8"});
  }
  cases.push_back({"Relu", {}, {in(kU8, {5, 3}, 0, 255)}, 1, "u8"});
  cases.push_back({"Abs", {}, {in(kU16, {5, 3}, 0, 1000)}, 1, "u16"});
  cases.push_back({"Shrink", attrs({{"bias", 2.0f}, {"lambd", 3.0f}}), {in(kI32, {40}, -9, 9)}});
  cases.push_back({"Shrink", attrs({{"bias", 1.0f}}), {in(kU8, {40}, 0, 3)}, 1, "u8"});
  {
    Tensor x = Tensor::from_vector<float>({1.f, NAN, INFINITY, -INFINITY, 0.f, -2.f}, {6});
    cases.push_back({"IsNaN", {}, {constant(x)}});
    cases.push_back({"Relu", {}, {constant(x)}, 1, "NaN, Inf"});
    cases.push_back({"IsInf", {}, {constant(x)}});
    cases.push_back({"IsInf", attrs({{"detect_negative", int64_t{0}}}), {constant(x)}, 1, "pos"});
    cases.push_back({"IsInf", attrs({{"detect_positive", int64_t{0}}}), {constant(x)}, 1, "neg"});
  }
  // Broadcasting binary arithmetic over dtypes and shapes.
  for (const char* op : {"Add", "Sub", "Mul"}) {
    cases.push_back({op, {}, {f32({2, 3, 16}), f32({3, 1})}, 1, "bcast"});
    cases.push_back({op, {}, {f32({}), f32({4, 5})}, 1, "scalar"});
    cases.push_back({op, {}, {in(kI32, {5, 1}, -100, 100), in(kI32, {1, 7}, -100, 100)}});
    cases.push_back({op, {}, {in(kU8, {33}, 0, 15), in(kU8, {33}, 0, 15)}});
    cases.push_back({op, {}, {in(kF64, {2, 4}), in(kF64, {4})}});
  }
  cases.push_back({"Div", {}, {f32({4, 8}), nonzero(f32({8}, 0.5, 2))}, 1, "f32"});
  cases.push_back(
      {"Div", {}, {in(kI32, {6, 8}, -50, 50), nonzero(in(kI32, {8}, -7, 7))}, 1, "trunc"});
  cases.push_back({"Div", {}, {in(kU8, {20}, 0, 255), nonzero(in(kU8, {20}, 0, 9))}});
  cases.push_back({"Div", {}, {in(kI64, {3, 3}, -1e6, 1e6), nonzero(in(kI64, {3, 1}, -9, 9))}});
  for (int64_t fmod : {0, 1}) {
    Attributes a = attrs({{"fmod", fmod}});
    std::string l = fmod ? "fmod" : "floor";
    cases.push_back(
        {"Mod", a, {in(kI32, {6, 8}, -50, 50), nonzero(in(kI32, {8}, -7, 7))}, 1, l + " i32"});
    cases.push_back({"Mod", a, {f32({6, 8}, -5, 5), nonzero(f32({8}, -2, 2))}, 1, l + " f32"});
    cases.push_back({"Mod", a, {in(kU16, {9}, 0, 500), nonzero(in(kU16, {9}, 0, 9))}, 1, l});
  }
  cases.push_back({"Pow", {}, {f32({3, 8}, 0.1, 3), f32({8}, -2, 2)}, 1, "f32"});
  cases.push_back({"Pow", {}, {f32({3, 8}, -3, 3), in(kI64, {1}, 0, 4)}, 1, "int exponent"});
  cases.push_back({"Pow", {}, {in(kF64, {5}, 0.1, 3), in(kF64, {5}, -2, 2)}, 1, "f64"});
  cases.push_back({"Pow", {}, {in(kI32, {10}, -5, 5), in(kI32, {10}, 0, 5)}, 1, "i32"});
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    cases.push_back({op, {}, {f32({4, 5}, -2, 2), f32({5}, -2, 2)}});
    cases.push_back({op, {}, {in(kI32, {4, 5}, -3, 3), in(kI32, {4, 1}, -3, 3)}});
    cases.push_back({op, {}, {in(kU8, {12}, 0, 3), in(kU8, {12}, 0, 3)}});
  }
  cases.push_back({"Equal", {}, {in(kBool, {3, 4}), in(kBool, {4})}, 1, "bool"});
  for (const char* op : {"And", "Or", "Xor"})
    cases.push_back({op, {}, {in(kBool, {3, 4}), in(kBool, {3, 1})}});
  cases.push_back({"Not", {}, {in(kBool, {3, 7})}});
  cases.push_back({"Where", {}, {in(kBool, {3, 1}), f32({3, 4}), f32({4})}});
  cases.push_back(
      {"Where", {}, {in(kBool, {2, 5}), in(kI64, {5}, -9, 9), in(kI64, {2, 1}, -9, 9)}});
  for (const char* dir : {"LEFT", "RIGHT"}) {
    Attributes a = attrs({{"direction", std::string(dir)}});
    cases.push_back({"BitShift", a, {in(kU8, {4, 8}, 0, 255), in(kU8, {8}, 0, 9)}, 1, dir});
    cases.push_back({"BitShift", a, {in(kU32, {16}, 0, 1e9), in(kU32, {16}, 0, 33)}, 1, dir});
  }
  // Bitwise ops of opset 18, over signed and unsigned widths (negative values: two's complement).
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    cases.push_back({op, {}, {in(kU8, {4, 8}, 0, 255), in(kU8, {8}, 0, 255)}, 1, "u8"});
    cases.push_back({op, {}, {in(kI32, {3, 5}, -1e9, 1e9), in(kI32, {3, 1}, -1e9, 1e9)}, 1, "i32"});
    cases.push_back({op, {}, {in(kI64, {7}, -1e12, 1e12), in(kI64, {7}, -1e12, 1e12)}, 1, "i64"});
  }
  cases.push_back({"BitwiseNot", {}, {in(kI8, {4, 9}, -128, 127)}, 1, "i8"});
  cases.push_back({"BitwiseNot", {}, {in(kU16, {33}, 0, 65535)}, 1, "u16"});
  // Casts between every kind of type.
  auto cast = [&](Input x, DType to, const char* label) {
    cases.push_back({"Cast", attrs({{"to", int64_t(dtype_to_onnx(to))}}), {x}, 1, label});
  };
  cast(f32({4, 7}, -100, 100), kI32, "f32->i32");
  cast(f32({4, 7}, 0, 250), kU8, "f32->u8");
  cast(f32({4, 7}, -2, 2), kBool, "f32->bool");
  cast(f32({4, 7}), kF64, "f32->f64");
  cast(in(kF64, {9}, -1e3, 1e3), kF32, "f64->f32");
  cast(in(kI32, {9}, -300, 300), kI8, "i32->i8");
  cast(in(kI8, {9}, -100, 100), kI64, "i8->i64");
  cast(in(kU8, {9}, 0, 255), kF32, "u8->f32");
  cast(in(kBool, {9}), kF32, "bool->f32");
  cast(in(kBool, {9}), kI32, "bool->i32");
  cast(in(kI64, {9}, -3, 3), kBool, "i64->bool");
  cast(constant(Tensor::from_vector<float>({NAN, 1.5f}, {2})), kI32, "NaN->i32");
  cases.push_back({"CastLike", {}, {f32({3, 5}, -50, 50), in(DType::Int16, {1}, 0, 1)}});
  // Clip with both, one or no bounds, tensors and constants.
  cases.push_back({"Clip", {}, {f32({4, 16}, -3, 3), f32({}, -1, -0.5), f32({}, 0.5, 1)}});
  cases.push_back({"Clip",
                   {},
                   {f32({4, 16}, -3, 3), omitted(), constant(Tensor::scalar<float>(0.25f))},
                   1,
                   "max only"});
  cases.push_back({"Clip", {}, {f32({5}, -3, 3)}, 1, "no bounds"});
  cases.push_back({"Clip",
                   {},
                   {in(kI32, {20}, -50, 50), constant(Tensor::scalar<int32_t>(-10)),
                    constant(Tensor::scalar<int32_t>(20))},
                   1,
                   "i32"});
  // Variadic Sum/Mean/Max/Min with broadcasting, NaN for Max/Min.
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    cases.push_back({op, {}, {f32({2, 3, 4}), f32({3, 1}), f32({4})}, 1, "three"});
    cases.push_back({op, {}, {f32({6})}, 1, "one"});
    cases.push_back({op, {}, {in(kI32, {3, 4}, -20, 20), in(kI32, {4}, -20, 20)}, 1, "i32"});
  }
  for (const char* op : {"Max", "Min"})
    cases.push_back({op,
                     {},
                     {constant(Tensor::from_vector<float>({1.f, NAN, 3.f, -1.f}, {4})),
                      constant(Tensor::from_vector<float>({NAN, 2.f, 0.f, -2.f}, {4}))},
                     1,
                     "NaN"});
  return cases;
}

Tensor i64s(std::vector<int64_t> values, Shape shape) {
  return Tensor::from_vector(values, std::move(shape));
}

std::vector<Case> shape_cases() {
  std::vector<Case> cases;
  cases.push_back({"Identity", {}, {in(kI32, {3, 5}, -9, 9)}});
  cases.push_back({"Dropout", {}, {f32({4, 16})}, 2, "with mask"});
  cases.push_back(
      {"Dropout",
       {},
       {f32({4, 16}), constant(Tensor::scalar<float>(0.5f)), constant(Tensor::scalar<bool>(false))},
       1,
       "inference"});
  cases.push_back({"Reshape", {}, {f32({2, 3, 4}), ints({4, -1})}});
  cases.push_back({"Reshape", {}, {in(kBool, {2, 12}), ints({0, 2, 2, 1, 3})}, 1, "0 and 1s"});
  cases.push_back({"Flatten", attrs({{"axis", int64_t{2}}}), {f32({2, 3, 4, 5})}});
  cases.push_back({"Flatten", attrs({{"axis", int64_t{0}}}), {in(kU8, {2, 3}, 0, 9)}});
  cases.push_back({"Squeeze", {}, {f32({1, 3, 1, 4}), ints({0, 2})}});
  cases.push_back({"Squeeze", {}, {f32({1, 3, 1, 4})}, 1, "all"});
  cases.push_back({"Unsqueeze", {}, {f32({3, 4}), ints({0, -1})}});
  cases.push_back(
      {"Transpose", attrs({{"perm", std::vector<int64_t>{2, 0, 1}}}), {f32({3, 4, 33})}});
  cases.push_back({"Transpose", {}, {in(kI64, {3, 5}, -9, 9)}, 1, "reverse"});
  cases.push_back(
      {"Concat", attrs({{"axis", int64_t{1}}}), {f32({2, 3, 4}), f32({2, 5, 4}), f32({2, 1, 4})}});
  cases.push_back({"Concat",
                   attrs({{"axis", int64_t{-1}}}),
                   {in(kI8, {2, 3}, -9, 9), in(kI8, {2, 0}), in(kI8, {2, 17}, -9, 9)},
                   1,
                   "empty part"});
  {
    // Nine parts (one empty) of uneven sizes: the tree of comparisons that
    // picks each element's part is uneven too.
    std::vector<Input> parts;
    for (int64_t size : {3, 1, 4, 1, 0, 5, 9, 2, 6}) parts.push_back(f32({2, size, 3}));
    cases.push_back({"Concat", attrs({{"axis", int64_t{1}}}), parts, 1, "nine parts"});
  }
  cases.push_back({"Split", attrs({{"axis", int64_t{1}}}), {f32({2, 6, 16})}, 3, "equal"});
  cases.push_back({"Split", {}, {in(kI32, {7, 3}, -9, 9), ints({2, 4, 1})}, 3, "sizes"});
  cases.push_back({"Split",
                   attrs({{"num_outputs", int64_t{3}}, {"axis", int64_t{-1}}}),
                   {f32({2, 7})},
                   3,
                   "num_outputs"});
  cases.push_back({"Slice", {}, {f32({6, 10}), ints({1, -8}), ints({5, 100})}});
  cases.push_back({"Slice",
                   {},
                   {f32({6, 10}), ints({-1, 8}), ints({-100, 1}), ints({1, 0}), ints({-2, -3})},
                   1,
                   "negative steps"});
  cases.push_back({"Slice",
                   {},
                   {in(kU8, {4, 5, 6}, 0, 200), ints({1}), ints({5}), ints({2}), ints({2})},
                   1,
                   "axes and steps"});
  cases.push_back({"Gather",
                   attrs({{"axis", int64_t{1}}}),
                   {f32({3, 5, 4}), constant(i64s({4, -1, 0, 2, -5, 3}, {2, 3}))}});
  cases.push_back(
      {"Gather", {}, {in(kI32, {5, 3}, -9, 9), in(kI32, {4}, -5, 4)}, 1, "runtime indices"});
  cases.push_back(
      {"Gather", {}, {f32({5, 3}), constant(Tensor::scalar<int64_t>(-2))}, 1, "scalar index"});
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    Attributes a = attrs({{"mode", std::string(mode)}});
    cases.push_back({"Pad", a, {f32({3, 4, 5}), ints({0, 2, 3, 1, 3, 2})}, 1, mode});
  }
  cases.push_back(
      {"Pad",
       {},
       {in(kI32, {4, 5}, -9, 9), ints({1, -1, -2, 2}), constant(Tensor::scalar<int32_t>(7))},
       1,
       "crop and value"});
  cases.push_back({"Pad",
                   attrs({{"mode", std::string("reflect")}}),
                   {f32({2, 3}), ints({5, 7}), omitted(), ints({-1})},
                   1,
                   "wide reflect, axes"});
  cases.push_back({"Expand", {}, {f32({3, 1}), ints({2, 3, 16})}});
  cases.push_back({"Expand", {}, {in(kBool, {1, 4}), ints({3, 1})}, 1, "both ways"});
  cases.push_back({"Tile", {}, {f32({2, 3}), ints({3, 2})}});
  cases.push_back({"Tile", {}, {in(kI64, {2, 1, 3}, -9, 9), ints({1, 4, 1})}});
  for (const char* mode : {"DCR", "CRD"})
    cases.push_back({"DepthToSpace",
                     attrs({{"blocksize", int64_t{2}}, {"mode", std::string(mode)}}),
                     {f32({2, 12, 3, 4})},
                     1,
                     mode});
  cases.push_back({"SpaceToDepth", attrs({{"blocksize", int64_t{2}}}), {f32({2, 3, 4, 6})}});
  cases.push_back({"Shape", {}, {f32({2, 3, 4})}});
  cases.push_back({"Shape",
                   attrs({{"start", int64_t{1}}, {"end", int64_t{-1}}}),
                   {f32({2, 3, 4, 5})},
                   1,
                   "start end"});
  cases.push_back({"Size", {}, {f32({2, 3, 4})}});
  cases.push_back({"Constant",
                   attrs({{"value", Tensor::from_vector<float>(
                                        {1.5f, -2.f, 3.25f, 3.25f, 3.25f, 7.f}, {2, 3})}}),
                   {},
                   1,
                   "tensor"});
  cases.push_back(
      {"Constant", attrs({{"value_ints", std::vector<int64_t>{4, 5, 6, 7, 1}}}), {}, 1, "ints"});
  cases.push_back({"Constant", attrs({{"value_float", 2.5f}}), {}, 1, "float"});
  cases.push_back({"ConstantOfShape", {}, {ints({2, 3})}, 1, "default"});
  cases.push_back({"ConstantOfShape",
                   attrs({{"value", Tensor::from_vector<int32_t>({-7}, {1})}}),
                   {ints({4, 17})},
                   1,
                   "i32"});
  cases.push_back({"Range",
                   {},
                   {constant(Tensor::scalar<float>(1.5f)), constant(Tensor::scalar<float>(9.f)),
                    constant(Tensor::scalar<float>(0.75f))}});
  cases.push_back({"Range",
                   {},
                   {constant(Tensor::scalar<int32_t>(10)), constant(Tensor::scalar<int32_t>(-3)),
                    constant(Tensor::scalar<int32_t>(-4))},
                   1,
                   "i32 down"});
  // Resize: modes, coordinate transformations, nearest roundings, dtypes.
  auto scales = [](std::vector<float> v) {
    const int64_t n = static_cast<int64_t>(v.size());
    return constant(Tensor::from_vector(v, {n}));
  };
  for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
    cases.push_back(
        {"Resize",
         attrs({{"mode", std::string("nearest")}, {"nearest_mode", std::string(nearest)}}),
         {f32({1, 2, 4, 5}), omitted(), scales({1, 1, 2, 1.5f})},
         1,
         nearest});
  for (const char* t :
       {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"})
    cases.push_back({"Resize",
                     attrs({{"mode", std::string("linear")},
                            {"coordinate_transformation_mode", std::string(t)}}),
                     {f32({1, 2, 4, 5}), omitted(), omitted(), ints({1, 2, 7, 3})},
                     1,
                     std::string("linear ") + t});
  // Ratios with no short period (5 -> 23, 6 -> 37): the kernel computes the
  // source coordinate instead of looking up tables.
  for (const char* t : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"})
    cases.push_back({"Resize",
                     attrs({{"mode", std::string("linear")},
                            {"coordinate_transformation_mode", std::string(t)}}),
                     {f32({1, 2, 5, 6}), omitted(), omitted(), ints({1, 2, 23, 37})},
                     1,
                     std::string("linear computed coordinates ") + t});
  cases.push_back({"Resize",
                   attrs({{"mode", std::string("cubic")}}),
                   {f32({1, 1, 5, 6}), omitted(), scales({1, 1, 1.6f, 0.5f})},
                   1,
                   "cubic"});
  cases.push_back({"Resize",
                   attrs({{"mode", std::string("cubic")},
                          {"exclude_outside", int64_t{1}},
                          {"cubic_coeff_a", -0.5f}}),
                   {f32({1, 1, 5, 6}), omitted(), scales({1, 1, 2, 2})},
                   1,
                   "cubic exclude"});
  cases.push_back(
      {"Resize",
       attrs({{"mode", std::string("linear")},
              {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
              {"extrapolation_value", 3.5f}}),
       {f32({1, 1, 4, 4}),
        constant(Tensor::from_vector<float>({0, 0, -0.2f, 0.1f, 1, 1, 0.8f, 1.3f}, {8})), omitted(),
        ints({1, 1, 5, 6})},
       1,
       "crop"});
  cases.push_back({"Resize",
                   attrs({{"mode", std::string("linear")}}),
                   {in(kU8, {1, 1, 3, 4}, 0, 255), omitted(), scales({1, 1, 2, 2})},
                   1,
                   "linear u8"});
  cases.push_back(
      {"Resize", {}, {in(kBool, {2, 3}), omitted(), scales({2, 2})}, 1, "nearest bool"});
  // antialias (opset 18): the filter widened by 1 / scale when downscaling.
  for (const char* mode : {"linear", "cubic"})
    cases.push_back({"Resize",
                     attrs({{"mode", std::string(mode)}, {"antialias", int64_t{1}}}),
                     {f32({1, 2, 9, 11}), omitted(), scales({1, 1, 0.4f, 0.7f})},
                     1,
                     std::string(mode) + " antialias"});
  // GridSample: every mode and padding, grid points reaching past the edges.
  int corners = 0;
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      cases.push_back({"GridSample",
                       attrs({{"mode", std::string(mode)},
                              {"padding_mode", std::string(padding)},
                              {"align_corners", int64_t{corners++ % 2}}}),
                       {f32({2, 3, 5, 7}), f32({2, 4, 6, 2}, -1.4, 1.4)},
                       1,
                       std::string(mode) + " " + padding});
  return cases;
}

std::vector<Case> reduce_cases() {
  std::vector<Case> cases;
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    const bool positive = std::string(op) == "ReduceLogSum";
    const double lo = positive ? 0.1 : -1;
    cases.push_back({op, {}, {f32({3, 4, 5}, lo, 1), ints({1})}, 1, "axis 1 keepdims"});
    cases.push_back({op,
                     attrs({{"keepdims", int64_t{0}}}),
                     {f32({3, 4, 32}, lo, 1), ints({0, 2})},
                     1,
                     "two axes"});
    cases.push_back({op, attrs({{"keepdims", int64_t{0}}}), {f32({2, 3}, lo, 1)}, 1, "all, 0-d"});
    cases.push_back({op,
                     attrs({{"noop_with_empty_axes", int64_t{1}}}),
                     {f32({2, 3}, lo, 1), ints({})},
                     1,
                     "noop"});
    cases.push_back({op, {}, {in(kF64, {4, 6}, lo, 1), ints({-1})}, 1, "f64"});
    cases.push_back({op, {}, {in(kI32, {4, 6}, positive ? 1 : -9, 9), ints({1})}, 1, "i32"});
    cases.push_back({op, {}, {in(kU8, {4, 6}, 1, 9), ints({0})}, 1, "u8"});
  }
  cases.push_back({"ReduceMax",
                   attrs({{"axes", std::vector<int64_t>{1}}}),
                   {f32({3, 7})},
                   1,
                   "axes attribute"});
  cases.push_back({"ReduceLogSumExp", {}, {f32({3, 7}, 50, 90), ints({1})}, 1, "large"});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    cases.push_back({op, attrs({{"axis", int64_t{1}}}), {f32({3, 9, 4})}});
    cases.push_back({op,
                     attrs({{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}}),
                     {in(kI32, {5, 8}, -2, 2)},
                     1,
                     "ties first"});
    cases.push_back(
        {op, attrs({{"select_last_index", int64_t{1}}}), {in(kU8, {6, 5}, 0, 2)}, 1, "ties last"});
    cases.push_back({op, attrs({{"keepdims", int64_t{0}}}), {f32({7})}, 1, "0-d"});
  }
  return cases;
}

std::vector<Case> indexing_cases() {
  std::vector<Case> cases;
  cases.push_back(
      {"GatherElements", attrs({{"axis", int64_t{1}}}), {f32({3, 5}), in(kI64, {3, 4}, -5, 4)}});
  cases.push_back({"GatherElements", {}, {in(kI32, {4, 3}, -9, 9), in(kI32, {2, 3}, -4, 3)}});
  cases.push_back({"GatherND", {}, {f32({4, 5, 3}), in(kI64, {2, 2}, -4, 3)}});
  cases.push_back({"GatherND",
                   {},
                   {f32({4, 5, 3}), constant(i64s({1, 2, 0, -1, 3, 1}, {2, 3}))},
                   1,
                   "full tuples"});
  cases.push_back({"GatherND",
                   attrs({{"batch_dims", int64_t{1}}}),
                   {in(kI32, {2, 4, 3}, -9, 9), constant(i64s({1, 3, 0, 2}, {2, 2, 1}))},
                   1,
                   "batch"});
  Tensor elem_idx = i64s({1, 0, 2, -1, 0, 1}, {2, 3});
  cases.push_back({"ScatterElements", {}, {f32({3, 3}), constant(elem_idx), f32({2, 3})}});
  cases.push_back({"ScatterElements",
                   attrs({{"axis", int64_t{1}}, {"reduction", std::string("add")}}),
                   {f32({3, 4}), constant(i64s({1, 1, 3, 0, 2, 2}, {3, 2})), f32({3, 2})},
                   1,
                   "add duplicates"});
  cases.push_back({"ScatterElements",
                   attrs({{"reduction", std::string("max")}}),
                   {in(kI32, {3, 3}, -9, 9), constant(elem_idx), in(kI32, {2, 3}, -9, 9)},
                   1,
                   "max"});
  cases.push_back({"Scatter", {}, {f32({3, 3}), constant(elem_idx), f32({2, 3})}});
  cases.push_back({"ScatterND", {}, {f32({4, 5}), constant(i64s({2, 0}, {2, 1})), f32({2, 5})}});
  cases.push_back({"ScatterND",
                   attrs({{"reduction", std::string("mul")}}),
                   {f32({4, 5}), constant(i64s({1, 2, 1, 2, 3, -1}, {3, 2})), f32({3})},
                   1,
                   "mul elements"});
  // Runtime indices: each output position reduces over the index positions
  // that target it. Duplicates (the last wins without reduction), negative
  // indices, every reduction, indices smaller than data.
  const Tensor dup_idx = i64s({1, 0, 2, -2, 0, 1, -3, 2, -1, 1, 0, 0}, {4, 3});
  for (const char* r : {"none", "add", "mul", "max", "min"}) {
    const Attributes a = attrs({{"reduction", std::string(r)}});
    const std::string label = std::string("runtime ") + r;
    cases.push_back({"ScatterElements", a, {f32({3, 3}), runtime(dup_idx), f32({4, 3})}, 1, label});
    cases.push_back({"ScatterElements",
                     a,
                     {in(kI64, {3, 3}, -50, 50), runtime(dup_idx), in(kI64, {4, 3}, -50, 50)},
                     1,
                     label + " int64"});
    cases.push_back(
        {"ScatterND",
         a,
         {f32({4, 5, 2}), runtime(i64s({1, 2, -3, 2, 3, -1, 1, -3}, {2, 2, 2})), f32({2, 2, 2})},
         1,
         label + " q < rank"});
    cases.push_back({"ScatterND",
                     a,
                     {in(kI64, {4, 5}, -50, 50), runtime(i64s({2, -1, 2, 0}, {4, 1})),
                      in(kI64, {4, 5}, -50, 50)},
                     1,
                     label + " int64 rows"});
  }
  cases.push_back({"ScatterElements",
                   attrs({{"axis", int64_t{-1}}, {"reduction", std::string("add")}}),
                   {in(kI32, {4, 5}, -9, 9), in(kI64, {3, 6}, -5, 4), in(kI32, {3, 6}, -9, 9)},
                   1,
                   "runtime random, indices smaller"});
  cases.push_back({"ScatterElements",
                   attrs({{"axis", int64_t{1}}}),
                   {f32({2, 4}), runtime(i64s({3, -4, -1, 0, 0, -4}, {2, 3})), f32({2, 3})},
                   1,
                   "runtime last wins"});
  cases.push_back(
      {"Scatter", {}, {f32({3, 3}), in(kI32, {2, 3}, -3, 2), f32({2, 3})}, 1, "runtime random"});
  cases.push_back(
      {"ScatterND",
       attrs({{"reduction", std::string("mul")}}),
       {in(kF64, {3, 4}), runtime(i64s({1, 2, 1, -2, 2, 3, -2, 2}, {4, 2})), in(kF64, {4})},
       1,
       "runtime elements"});
  cases.push_back(
      {"ScatterND", {}, {f32({4, 3}), in(kI64, {5, 1}, -4, 3), f32({5, 3})}, 1, "runtime random"});
  cases.push_back({"OneHot", {}, {in(kI64, {2, 3}, -5, 5), ints({4}), f32({2})}});
  cases.push_back({"OneHot",
                   attrs({{"axis", int64_t{0}}}),
                   {f32({5}, -4, 4), ints({3}), in(kI32, {2}, -9, 9)},
                   1,
                   "float indices"});
  for (int64_t upper : {0, 1}) {
    Attributes a = attrs({{"upper", upper}});
    cases.push_back({"Trilu", a, {f32({2, 4, 5})}, 1, upper ? "upper" : "lower"});
    cases.push_back(
        {"Trilu", a, {in(kI32, {5, 3}, -9, 9), constant(Tensor::scalar<int64_t>(-1))}, 1, "k"});
    cases.push_back({"Trilu", a, {f32({4, 4}), in(kI64, {}, -2, 2)}, 1, "runtime k"});
  }
  cases.push_back({"EyeLike", {}, {f32({4, 6})}});
  cases.push_back(
      {"EyeLike", attrs({{"k", int64_t{-2}}, {"dtype", int64_t{7}}}), {f32({5, 3})}, 1, "k int64"});
  cases.push_back({"CumSum", {}, {f32({3, 6}), constant(Tensor::scalar<int64_t>(1))}});
  cases.push_back({"CumSum",
                   attrs({{"exclusive", int64_t{1}}, {"reverse", int64_t{1}}}),
                   {in(kI32, {5, 3}, -9, 9), constant(Tensor::scalar<int32_t>(0))},
                   1,
                   "exclusive reverse"});
  cases.push_back({"CumSum",
                   attrs({{"reverse", int64_t{1}}}),
                   {in(kF64, {7}), constant(Tensor::scalar<int64_t>(-1))},
                   1,
                   "reverse"});
  cases.push_back({"Hardmax", {}, {f32({3, 7})}});
  cases.push_back({"Hardmax",
                   attrs({{"axis", int64_t{0}}}),
                   {constant(Tensor::from_vector<double>({1, 2, 2, 1, 2, 0}, {3, 2}))},
                   1,
                   "ties"});
  cases.push_back({"MeanVarianceNormalization", {}, {f32({2, 3, 4, 5})}});
  cases.push_back({"MeanVarianceNormalization",
                   attrs({{"axes", std::vector<int64_t>{1}}}),
                   {in(kF64, {3, 6})},
                   1,
                   "axis 1"});
  return cases;
}

// Ops of these families that no compute can express, with why (none now).
const std::set<std::string> kNoCompute = {};

// Ops whose cases live in another test executable.
const std::set<std::string> kTestedElsewhere = {
    "TopK",           // tst_topi_extra, with the losses and the 1-D/3-D windows
    "ConvInteger",    // tst_int8_kernels, against exact references, on each ISA
    "MatMulInteger",  // tst_int8_kernels
};

}  // namespace

class TestTopiOps : public QObject {
  Q_OBJECT

 private slots:
  void elementwise() {
    QStringList failures = run_cases(elementwise_cases(), 1);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  void shape() {
    QStringList failures = run_cases(shape_cases(), 2);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  void reduce() {
    QStringList failures = run_cases(reduce_cases(), 3);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  void indexing() {
    QStringList failures = run_cases(indexing_cases(), 4);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  // Relu keeps NaN, as ONNX's reference (np.maximum(x, 0)) and PyTorch do;
  // the elementwise cases hold the compiled kernel to the same values.
  void reluKeepsNaN() {
    Node node;
    node.op = "Relu";
    node.name = "relu";
    const Tensor x = Tensor::from_vector<float>({NAN, -1.f, 2.f, -0.f}, {4});
    const std::vector<Tensor> y =
        reference::run_node(*reference::kernel_registry().find("Relu"), node, {&x}, {x.type()});
    QVERIFY(std::isnan(y[0].data<float>()[0]));
    QCOMPARE(y[0].data<float>()[1], 0.f);
    QCOMPARE(y[0].data<float>()[2], 2.f);
    QVERIFY(y[0].data<float>()[3] == 0.f);  // -0 or +0
  }

  // Every op of the four families has a compute and a case above, except
  // the ones kNoCompute names.
  void everyOpHasACompute() {
    OpRegistry families;
    register_elementwise_ops(families);
    register_shape_ops(families);
    register_reduce_ops(families);
    register_indexing_ops(families);
    std::set<std::string> tested;
    for (auto cases : {elementwise_cases(), shape_cases(), reduce_cases(), indexing_cases()})
      for (const Case& c : cases) tested.insert(c.op);
    QStringList missing;
    for (const std::string& op : families.names()) {
      const bool has = topi::OpStrategyRegistry::global().find(op) != nullptr;
      if (kNoCompute.count(op)) {
        if (has) missing << QString::fromStdString(op + " has a compute: drop it from kNoCompute");
        continue;
      }
      if (!has) missing << QString::fromStdString(op + " has no compute");
      if (!tested.count(op) && !kTestedElsewhere.count(op))
        missing << QString::fromStdString(op + " has no test case");
    }
    QVERIFY2(families.names().size() > 90, "the families registered too few ops");
    QVERIFY2(missing.empty(), qPrintable(missing.join("\n")));
  }
};

QTEST_GUILESS_MAIN(TestTopiOps)
#include "tst_topi_ops.moc"
