// Numeric tests of TOPI's compute definitions for the ops of
// core/topi/extra_compute.cpp (the losses, TopK) and of the 1-D and 3-D
// convolutions and pools, MaxPool's Indices and the 1-D and 3-D ConvTranspose
// of core/topi/nn_compute.cpp: each case builds one
// node's compute from placeholders through OpStrategyRegistry, schedules it
// with the group's schedule (the op's own where it has one, else the generic
// default), lowers and JIT-compiles it (all cases of a test in one module),
// runs it on random or fixed inputs and compares with the reference kernel:
// exactly for integers, within 1e-5 normalized error for floats.
#include <QtTest>

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

const DType kF32 = DType::Float32, kF64 = DType::Float64, kI32 = DType::Int32, kI64 = DType::Int64,
            kU8 = DType::UInt8;

Attributes none() {
  return {};
}

std::vector<Case> loss_cases() {
  std::vector<Case> cases;
  for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    for (const char* reduction : {"none", "sum", "mean"}) {
      const std::string r = reduction;
      cases.push_back({op,
                       attrs({{"reduction", r}}),
                       {f32({4, 5}, -3, 1), in(kI64, {4}, 0, 4)},
                       1,
                       r + " 2-D"});
      cases.push_back({op,
                       attrs({{"reduction", r}}),
                       {f32({2, 3, 4, 5}, -3, 1), in(kI32, {2, 4, 5}, 0, 2), f32({3}, 0.1, 2)},
                       1,
                       r + " 4-D weighted"});
      cases.push_back({op,
                       attrs({{"reduction", r}, {"ignore_index", int64_t{1}}}),
                       {f32({3, 4, 6}, -3, 1), in(kI64, {3, 6}, 0, 3), f32({4}, 0.1, 2)},
                       1,
                       r + " ignore 1 weighted"});
    }
    cases.push_back({op,
                     attrs({{"ignore_index", int64_t{2}}}),
                     {f32({5, 3}), in(kI64, {5}, 0, 2), omitted()},
                     1,
                     "weight omitted"});
    // Default reduction (mean), f64, a 5-D input.
    cases.push_back({op, none(), {in(kF64, {2, 3, 2, 2, 3}, -2, 2), in(kI64, {2, 2, 2, 3}, 0, 2)}});
    // Every target ignored: mean is 0 / 0 = NaN.
    cases.push_back({op,
                     attrs({{"ignore_index", int64_t{-1}}}),
                     {f32({2, 3}), constant(Tensor::from_vector<int64_t>({-1, -1}, {2}))},
                     1,
                     "all ignored"});
    // An ignored target outside [0, C) (C + 7).
    cases.push_back({op,
                     attrs({{"reduction", std::string("sum")}, {"ignore_index", int64_t{10}}}),
                     {f32({4, 3}), constant(Tensor::from_vector<int64_t>({0, 10, 2, 1}, {4}))},
                     1,
                     "ignored out of range"});
  }
  // SoftmaxCrossEntropyLoss's log_prob output, with large scores.
  cases.push_back({"SoftmaxCrossEntropyLoss",
                   none(),
                   {f32({3, 5, 4}, 40, 90), in(kI64, {3, 4}, 0, 4)},
                   2,
                   "log_prob"});
  cases.push_back({"SoftmaxCrossEntropyLoss",
                   attrs({{"reduction", std::string("none")}, {"ignore_index", int64_t{0}}}),
                   {f32({2, 4, 3}), in(kI64, {2, 3}, 0, 3), f32({4}, 0.5, 1.5)},
                   2,
                   "log_prob ignore weighted"});
  return cases;
}

Input k_of(int64_t k) {
  return ints({k});
}

std::vector<Case> top_k_cases() {
  std::vector<Case> cases;
  for (int64_t largest : {1, 0}) {
    const std::string l = largest ? "largest" : "smallest";
    cases.push_back({"TopK", attrs({{"largest", largest}}), {f32({3, 11}), k_of(4)}, 2, l});
    cases.push_back({"TopK",
                     attrs({{"largest", largest}, {"axis", int64_t{1}}}),
                     {f32({2, 9, 3}), k_of(9)},
                     2,
                     l + " axis 1, K = n"});
    cases.push_back({"TopK",
                     attrs({{"largest", largest}, {"axis", int64_t{0}}, {"sorted", int64_t{0}}}),
                     {in(kI32, {20, 3}, -3, 3), k_of(16)},
                     2,
                     l + " ties i32 K = 16 unsorted"});
    cases.push_back({"TopK",
                     attrs({{"largest", largest}}),
                     {in(kU8, {4, 7}, 0, 2), k_of(5)},
                     2,
                     l + " u8 ties"});
    cases.push_back({"TopK",
                     attrs({{"largest", largest}}),
                     {in(kF64, {6}, -5, 5), k_of(1)},
                     2,
                     l + " f64 K=1"});
    cases.push_back({"TopK",
                     attrs({{"largest", largest}, {"axis", int64_t{-2}}}),
                     {in(kI64, {5, 4}, -100, 100), k_of(3)},
                     1,
                     l + " values only"});
    // NaN, infinities and ties: NaN ranks above +inf, equal values keep index order.
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
    cases.push_back({"TopK",
                     attrs({{"largest", largest}}),
                     {constant(Tensor::from_vector<float>(
                          {1, inf, nan, -inf, 1, nan, inf, 0, -inf, 2, 1, nan}, {2, 6})),
                      k_of(6)},
                     2,
                     l + " nan inf ties"});
  }
  return cases;
}

std::vector<Case> window_cases() {
  std::vector<Case> cases;
  const Attributes conv1d = attrs({{"kernel_shape", std::vector<int64_t>{3}}});
  cases.push_back({"Conv", conv1d, {f32({2, 3, 10}), f32({4, 3, 3})}, 1, "1-D"});
  cases.push_back({"Conv",
                   attrs({{"strides", std::vector<int64_t>{2}},
                          {"pads", std::vector<int64_t>{1, 2}},
                          {"dilations", std::vector<int64_t>{2}},
                          {"group", int64_t{2}}}),
                   {f32({1, 4, 13}), f32({6, 2, 3}), f32({6})},
                   1,
                   "1-D strided padded dilated grouped bias"});
  cases.push_back({"Conv",
                   attrs({{"auto_pad", std::string("SAME_UPPER")}}),
                   {f32({1, 2, 7}), f32({2, 2, 4})},
                   1,
                   "1-D SAME_UPPER"});
  cases.push_back(
      {"Conv",
       attrs({{"auto_pad", std::string("SAME_LOWER")}, {"strides", std::vector<int64_t>{2, 1, 2}}}),
       {f32({1, 2, 5, 4, 6}), f32({3, 2, 2, 3, 3}), f32({3})},
       1,
       "3-D SAME_LOWER strided bias"});
  cases.push_back({"Conv",
                   attrs({{"pads", std::vector<int64_t>{1, 0, 1, 0, 1, 1}}}),
                   {f32({2, 3, 4, 5, 3}), f32({2, 3, 3, 2, 2})},
                   1,
                   "3-D padded"});
  cases.push_back({"Conv",
                   attrs({{"group", int64_t{3}}}),
                   {in(kF64, {1, 3, 4, 4, 4}, -1, 1), in(kF64, {3, 1, 2, 2, 2}, -1, 1)},
                   1,
                   "3-D depthwise f64"});
  for (const char* op : {"MaxPool", "AveragePool"}) {
    const std::string o = op;
    cases.push_back(
        {op, attrs({{"kernel_shape", std::vector<int64_t>{3}}}), {f32({2, 3, 9})}, 1, "1-D"});
    cases.push_back({op,
                     attrs({{"kernel_shape", std::vector<int64_t>{3}},
                            {"strides", std::vector<int64_t>{2}},
                            {"pads", std::vector<int64_t>{1, 1}},
                            {"ceil_mode", int64_t{1}}}),
                     {f32({1, 2, 10})},
                     1,
                     "1-D padded ceil"});
    cases.push_back({op,
                     attrs({{"kernel_shape", std::vector<int64_t>{2}},
                            {"pads", std::vector<int64_t>{1, 1}},
                            {"count_include_pad", int64_t{1}}}),
                     {f32({1, 2, 6})},
                     1,
                     "1-D count_include_pad"});
    cases.push_back({op,
                     attrs({{"kernel_shape", std::vector<int64_t>{2, 2, 2}}}),
                     {f32({1, 2, 4, 5, 6})},
                     1,
                     "3-D"});
    cases.push_back({op,
                     attrs({{"kernel_shape", std::vector<int64_t>{3, 3, 2}},
                            {"strides", std::vector<int64_t>{2, 2, 1}},
                            {"auto_pad", std::string("SAME_UPPER")}}),
                     {f32({1, 1, 5, 6, 4})},
                     1,
                     "3-D SAME_UPPER strided"});
    cases.push_back({op,
                     attrs({{"kernel_shape", std::vector<int64_t>{2, 3, 2}},
                            {"pads", std::vector<int64_t>{1, 1, 0, 0, 1, 1}},
                            {"count_include_pad", int64_t{1}}}),
                     {in(kF64, {2, 1, 4, 5, 3}, -1, 1)},
                     1,
                     "3-D padded count_include_pad f64"});
  }
  cases.push_back({"MaxPool",
                   attrs({{"kernel_shape", std::vector<int64_t>{2, 2, 2}},
                          {"dilations", std::vector<int64_t>{2, 1, 2}}}),
                   {f32({1, 2, 6, 5, 6})},
                   1,
                   "3-D dilated"});
  return cases;
}

// MaxPool with its Indices (ties resolved to the first tap, storage_order 0
// and 1) and ConvTranspose over 1 and 3 spatial dimensions (2 as a check).
std::vector<Case> indices_transpose_cases() {
  using V = std::vector<int64_t>;
  std::vector<Case> cases;
  for (int64_t order : {0, 1}) {
    const std::string o = order ? " col-major" : "";
    cases.push_back({"MaxPool",
                     attrs({{"kernel_shape", V{2, 2}}, {"storage_order", order}}),
                     {f32({2, 3, 5, 6})},
                     2,
                     "2-D indices" + o});
    cases.push_back({"MaxPool",
                     attrs({{"kernel_shape", V{3, 3}},
                            {"strides", V{2, 2}},
                            {"pads", V{1, 1, 1, 1}},
                            {"storage_order", order}}),
                     {f32({1, 2, 7, 6})},
                     2,
                     "2-D indices padded strided" + o});
    cases.push_back({"MaxPool",
                     attrs({{"kernel_shape", V{3, 2}},
                            {"strides", V{2, 1}},
                            {"ceil_mode", int64_t{1}},
                            {"dilations", V{1, 2}},
                            {"storage_order", order}}),
                     {in(kU8, {2, 2, 8, 7}, 0, 2)},
                     2,
                     "2-D indices ceil dilated u8 ties" + o});
    cases.push_back({"MaxPool",
                     attrs({{"kernel_shape", V{3}},
                            {"strides", V{2}},
                            {"pads", V{1, 1}},
                            {"storage_order", order}}),
                     {in(DType::Int8, {2, 3, 11}, -2, 2)},
                     2,
                     "1-D indices i8 ties" + o});
    cases.push_back({"MaxPool",
                     attrs({{"kernel_shape", V{2, 3, 2}},
                            {"strides", V{2, 2, 1}},
                            {"auto_pad", std::string("SAME_UPPER")},
                            {"storage_order", order}}),
                     {f32({1, 2, 5, 6, 4})},
                     2,
                     "3-D indices SAME_UPPER" + o});
    cases.push_back({"MaxPool",
                     attrs({{"kernel_shape", V{2, 2, 2}},
                            {"pads", V{1, 0, 1, 0, 1, 1}},
                            {"storage_order", order}}),
                     {in(kF64, {1, 2, 4, 3, 5}, -1, 1)},
                     2,
                     "3-D indices padded f64" + o});
  }
  cases.push_back({"MaxPool",
                   attrs({{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}}),
                   {in(DType::Int8, {1, 2, 5, 4}, -3, -1)},
                   2,
                   "2-D indices padded negative i8"});
  cases.push_back({"MaxPool",
                   attrs({{"kernel_shape", V{2, 2}}, {"pads", V{1, 1, 1, 1}}}),
                   {constant(Tensor::from_vector<float>(
                       {-INFINITY, -INFINITY, -INFINITY, -INFINITY, 3, -INFINITY}, {1, 1, 2, 3}))},
                   2,
                   "2-D indices all -inf windows"});
  cases.push_back({"ConvTranspose", none(), {f32({2, 3, 5}), f32({3, 2, 3})}, 1, "1-D"});
  cases.push_back({"ConvTranspose",
                   attrs({{"strides", V{3}},
                          {"pads", V{1, 2}},
                          {"dilations", V{2}},
                          {"output_padding", V{1}},
                          {"group", int64_t{2}}}),
                   {f32({1, 4, 6}), f32({4, 3, 3}), f32({6})},
                   1,
                   "1-D strided padded dilated grouped output_padding bias"});
  cases.push_back({"ConvTranspose",
                   attrs({{"strides", V{2}}, {"output_shape", V{12}}}),
                   {f32({1, 2, 5}), f32({2, 2, 3})},
                   1,
                   "1-D output_shape"});
  cases.push_back({"ConvTranspose",
                   attrs({{"strides", V{2}}, {"auto_pad", std::string("SAME_UPPER")}}),
                   {f32({1, 2, 5}), f32({2, 1, 4})},
                   1,
                   "1-D SAME_UPPER"});
  cases.push_back(
      {"ConvTranspose", none(), {f32({1, 2, 3, 4, 3}), f32({2, 3, 2, 3, 2})}, 1, "3-D"});
  cases.push_back({"ConvTranspose",
                   attrs({{"strides", V{2, 1, 3}},
                          {"pads", V{1, 0, 1, 0, 1, 2}},
                          {"dilations", V{1, 2, 1}},
                          {"output_padding", V{1, 0, 2}}}),
                   {f32({2, 2, 3, 3, 4}), f32({2, 3, 3, 2, 3}), f32({3})},
                   1,
                   "3-D strided padded dilated output_padding bias"});
  cases.push_back({"ConvTranspose",
                   attrs({{"strides", V{2, 2, 2}},
                          {"auto_pad", std::string("SAME_LOWER")},
                          {"group", int64_t{2}}}),
                   {in(kF64, {1, 4, 3, 2, 3}, -1, 1), in(kF64, {4, 1, 2, 3, 3}, -1, 1)},
                   1,
                   "3-D SAME_LOWER grouped f64"});
  cases.push_back({"ConvTranspose",
                   attrs({{"strides", V{2, 2}}, {"pads", V{1, 0, 0, 1}}}),
                   {f32({1, 3, 4, 5}), f32({3, 2, 3, 3}), f32({2})},
                   1,
                   "2-D strided padded bias"});
  return cases;
}

}  // namespace

class TestTopiExtra : public QObject {
  Q_OBJECT

 private slots:
  void losses() {
    QStringList failures = run_cases(loss_cases(), 11);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  void topK() {
    QStringList failures = run_cases(top_k_cases(), 12);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  void windows1d3d() {
    QStringList failures = run_cases(window_cases(), 13);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  void maxPoolIndicesConvTranspose() {
    QStringList failures = run_cases(indices_transpose_cases(), 14);
    QVERIFY2(failures.empty(), qPrintable(failures.join("\n")));
  }

  // K beyond the compiled stages is refused with UnsupportedError.
  void topKLargeKUnsupported() {
    Tensor k = Tensor::from_vector<int64_t>({17}, {1});
    Node node{"t", "TopK", {0, 1}, {2, 3}, {}};
    te::Tensor x = te::placeholder({2, 40}, te::DataType::Float(32), "x");
    topi::ComputeContext ctx(node, {x, te::Tensor()}, {nullptr, &k}, {{kF32, {2, 40}}, k.type()},
                             {{kF32, {2, 17}}, {kI64, {2, 17}}}, "t");
    QVERIFY_THROWS_EXCEPTION(UnsupportedError,
                             topi::OpStrategyRegistry::global().find("TopK")->compute(ctx));
  }
};

QTEST_GUILESS_MAIN(TestTopiExtra)
#include "tst_topi_extra.moc"
