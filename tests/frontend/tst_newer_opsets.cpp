// Models of opsets 18 to 23, as PyTorch's dynamo exporter and newer tools
// write them, written here node by node: the forms those opsets changed
// (Reduce* axes as an input, Split's num_outputs, Resize's axes), the ops they
// added that Lathe expands (Gelu, Mish, GroupNormalization in both meanings),
// each against its definition computed in the test; ops Lathe lacks refused
// by name and opset; nodes out of topological order sorted; and If whose
// condition folds replaced by its branch, a Loop of known length unrolled.
#include <onnx/onnx_pb.h>

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>

#include "../compiled_run.h"
#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "frontend/onnx/onnx_import.h"
#include "onnx_model_writer.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

using Inputs = std::map<std::string, Tensor>;

std::vector<Tensor> run_reference(const Graph& g, const Inputs& inputs) {
  return reference::Executor(g).run(inputs);
}

// Checks `got` against `want` element by element; NaN never passes.
void expect_close(const Tensor& got, const Tensor& want, double tolerance, const char* what) {
  QVERIFY2(got.shape() == want.shape(),
           qPrintable(QString("%1: shape %2, expected %3")
                          .arg(what, QString::fromStdString(shape_to_string(got.shape())),
                               QString::fromStdString(shape_to_string(want.shape())))));
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.data<float>()[i], w = want.data<float>()[i];
    QVERIFY2(
        std::abs(g - w) <= tolerance,
        qPrintable(QString("%1: element %2 is %3, expected %4").arg(what).arg(i).arg(g).arg(w)));
  }
}

std::string import_error(const std::string& bytes) {
  try {
    onnx_frontend::import_model_bytes(bytes, "m.onnx", ".");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestNewerOpsets : public QObject {
  Q_OBJECT

 private slots:
  void geluByBothFormulas() {
    for (const char* approximate : {"none", "tanh"}) {
      ModelWriter w(20);
      w.input("x", {2, 3, 5});
      w.output("y", 3);
      set_string(w.node("Gelu", {"x"}, {"y"}), "approximate", approximate);
      const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "gelu.onnx", ".");
      Tensor x = testing::random_tensor({2, 3, 5}, 7);
      for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] *= 4;
      Tensor want(DType::Float32, x.shape());
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = x.data<float>()[i];
        const double phi =
            std::string(approximate) == "none"
                ? 0.5 * (1 + std::erf(v / std::sqrt(2.0)))
                : 0.5 * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        want.data<float>()[i] = static_cast<float>(v * phi);
      }
      expect_close(run_reference(g, {{"x", x}})[0], want, 1e-5, "reference");
      expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-5, "compiled");
    }
  }

  void mishByItsDefinition() {
    ModelWriter w(18);
    w.input("x", {4, 6});
    w.output("y", 2);
    w.node("Mish", {"x"}, {"y"});
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "mish.onnx", ".");
    Tensor x = testing::random_tensor({4, 6}, 3);
    Tensor want(DType::Float32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double v = 3.0 * x.data<float>()[i];
      x.data<float>()[i] = static_cast<float>(v);
      want.data<float>()[i] = static_cast<float>(v * std::tanh(std::log1p(std::exp(v))));
    }
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-5, "reference");
  }

  // ReduceMean and ReduceMax with axes as input 1 (opset 18), keepdims 0,
  // and noop_with_empty_axes with no axes: the identity.
  void reductionsTakeAxesAsAnInput() {
    ModelWriter w(18);
    w.input("x", {2, 3, 4});
    w.ints("axes", {1});
    w.output("mean", 2);
    w.output("max", 3);
    w.output("same", 3);
    set_int(w.node("ReduceMean", {"x", "axes"}, {"mean"}), "keepdims", 0);
    w.node("ReduceMax", {"x", "axes"}, {"max"});
    set_int(w.node("ReduceMin", {"x"}, {"same"}), "noop_with_empty_axes", 1);
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "reduce.onnx", ".");
    const Tensor x = testing::random_tensor({2, 3, 4}, 11);
    Tensor mean(DType::Float32, {2, 4}), max(DType::Float32, {2, 1, 4});
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t c = 0; c < 4; ++c) {
        double sum = 0;
        float m = -1e30f;
        for (int64_t b = 0; b < 3; ++b) {
          const float v = x.data<float>()[(a * 3 + b) * 4 + c];
          sum += v;
          m = std::max(m, v);
        }
        mean.data<float>()[a * 4 + c] = static_cast<float>(sum / 3);
        max.data<float>()[a * 4 + c] = m;
      }
    for (const auto& outs : {run_reference(g, {{"x", x}}), run_compiled(g, {{"x", x}})}) {
      expect_close(outs[0], mean, 1e-6, "ReduceMean");
      expect_close(outs[1], max, 0, "ReduceMax");
      expect_close(outs[2], x, 0, "ReduceMin without axes");
    }
  }

  // Split into num_outputs parts (opset 18): the last one smaller.
  void splitsIntoNumOutputs() {
    ModelWriter w(18);
    w.input("x", {2, 7});
    for (const char* y : {"a", "b", "c"}) w.output(y, 2);
    auto* split = w.node("Split", {"x"}, {"a", "b", "c"});
    set_int(split, "axis", 1);
    set_int(split, "num_outputs", 3);
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "split.onnx", ".");
    const Tensor x = testing::random_tensor({2, 7}, 5);
    const std::vector<Tensor> outs = run_reference(g, {{"x", x}});
    const int64_t widths[] = {3, 3, 1};
    int64_t begin = 0;
    for (int k = 0; k < 3; ++k) {
      Tensor want(DType::Float32, {2, widths[k]});
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < widths[k]; ++c)
          want.data<float>()[r * widths[k] + c] = x.data<float>()[r * 7 + begin + c];
      expect_close(outs[static_cast<size_t>(k)], want, 0, "Split part");
      begin += widths[k];
    }
  }

  // GroupNormalization: opset 18 scales per group, opset 21 per channel.
  void groupNormalizationInBothMeanings_data() {
    QTest::addColumn<int>("opset");
    QTest::newRow("opset 18: per group") << 18;
    QTest::newRow("opset 21: per channel") << 21;
  }
  void groupNormalizationInBothMeanings() {
    QFETCH(int, opset);
    const int64_t n = 2, c = 6, groups = 3, hw = 5;
    const int64_t params = opset >= 21 ? c : groups;
    ModelWriter w(opset);
    w.input("x", {n, c, hw});
    std::vector<float> scale, bias;
    for (int64_t k = 0; k < params; ++k) {
      scale.push_back(0.5f + 0.25f * static_cast<float>(k));
      bias.push_back(-0.1f * static_cast<float>(k));
    }
    w.floats("scale", scale);
    w.floats("bias", bias);
    w.output("y", 3);
    auto* gn = w.node("GroupNormalization", {"x", "scale", "bias"}, {"y"});
    set_int(gn, "num_groups", groups);
    set_float(gn, "epsilon", 1e-3f);
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "gn.onnx", ".");
    const Tensor x = testing::random_tensor({n, c, hw}, 9);
    Tensor want(DType::Float32, x.shape());
    const int64_t per_group = c / groups * hw;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t grp = 0; grp < groups; ++grp) {
        const float* xs = x.data<float>() + (b * groups + grp) * per_group;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < per_group; ++i) mean += xs[i];
        mean /= static_cast<double>(per_group);
        for (int64_t i = 0; i < per_group; ++i) var += (xs[i] - mean) * (xs[i] - mean);
        var /= static_cast<double>(per_group);
        for (int64_t i = 0; i < per_group; ++i) {
          const int64_t channel = grp * (c / groups) + i / hw;
          const size_t p = static_cast<size_t>(opset >= 21 ? channel : grp);
          want.data<float>()[(b * groups + grp) * per_group + i] =
              static_cast<float>((xs[i] - mean) / std::sqrt(var + 1e-3) * scale[p] + bias[p]);
        }
      }
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-5, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-5, "compiled");
  }

  // RMSNormalization (opset 23) over the last two axes, scale per element.
  void rmsNormalizationByItsDefinition() {
    ModelWriter w(23);
    w.input("x", {2, 3, 4});
    std::vector<float> scale;
    for (int k = 0; k < 12; ++k) scale.push_back(0.5f + 0.1f * static_cast<float>(k));
    w.floats("scale", scale, {3, 4});
    w.output("y", 3);
    auto* rms = w.node("RMSNormalization", {"x", "scale"}, {"y"});
    set_int(rms, "axis", 1);
    set_float(rms, "epsilon", 1e-2f);
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "rms.onnx", ".");
    const Tensor x = testing::random_tensor({2, 3, 4}, 13);
    Tensor want(DType::Float32, x.shape());
    for (int64_t b = 0; b < 2; ++b) {
      const float* row = x.data<float>() + b * 12;
      double sum = 0;
      for (int k = 0; k < 12; ++k) sum += double{row[k]} * row[k];
      const double rms_value = std::sqrt(sum / 12 + 1e-2);
      for (int k = 0; k < 12; ++k)
        want.data<float>()[b * 12 + k] = static_cast<float>(row[k] / rms_value * scale[k]);
    }
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-6, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-6, "compiled");
  }

  // Resize's axes (opset 18): scales for the listed axes only.
  void resizeScalesTheAxesItLists() {
    ModelWriter w(19);
    w.input("x", {1, 2, 3, 3});
    w.floats("scales", {2.f, 3.f});
    w.output("y", 4);
    auto* r = w.node("Resize", {"x", "", "scales"}, {"y"});
    set_ints(r, "axes", {2, 3});
    set_string(r, "mode", "nearest");
    set_string(r, "coordinate_transformation_mode", "asymmetric");
    set_string(r, "nearest_mode", "floor");
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "resize.onnx", ".");
    const Tensor x = testing::random_tensor({1, 2, 3, 3}, 2);
    Tensor want(DType::Float32, {1, 2, 6, 9});
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 9; ++j)
          want.data<float>()[(c * 6 + i) * 9 + j] = x.data<float>()[(c * 3 + i / 2) * 3 + j / 3];
    expect_close(run_reference(g, {{"x", x}})[0], want, 0, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 0, "compiled");
  }

  // antialias (opset 18): downscaling 4 -> 2 (scale 0.6) widens the linear
  // filter to 1 / 0.6 input elements. Worked by hand from the definition:
  // output 0 sits at 1/3 with taps -1..2 at offsets (-4/3, -1/3, 2/3, 5/3) *
  // 0.6, weights 1 - |t| clipped, normalised: (1/8, 1/2, 3/8, 0), edges
  // repeated, so position 3/8 of the way along; output 1 at 2.0 with taps
  // 0..3 weighted (0, 2, 5, 2) / 9: position 2. On x[i][j] = 4i + j + 1 the
  // output is 4 * row + col + 1 (ONNX's node test
  // resize_downsample_scales_linear_antialias has the same values).
  void resizeAntialiasWidensTheFilter() {
    ModelWriter w(18);
    w.input("x", {1, 1, 4, 4});
    w.floats("scales", {1.f, 1.f, 0.6f, 0.6f});
    w.output("y", 4);
    auto* r = w.node("Resize", {"x", "", "scales"}, {"y"});
    set_string(r, "mode", "linear");
    set_int(r, "antialias", 1);
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "resize.onnx", ".");
    Tensor x(DType::Float32, {1, 1, 4, 4});
    for (int64_t i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
    Tensor want(DType::Float32, {1, 1, 2, 2});
    const float at[2] = {0.375f, 2.f};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) want.data<float>()[i * 2 + j] = 4 * at[i] + at[j] + 1;
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-6, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-6, "compiled");

    // Upscaling keeps the plain filter: antialias changes nothing there.
    ModelWriter up(18);
    up.input("x", {1, 1, 3, 5});
    up.floats("scales", {1.f, 1.f, 2.f, 1.5f});
    up.output("y0", 4);
    for (int64_t antialias : {0, 1}) {
      auto* n = up.node("Resize", {"x", "", "scales"}, {"y" + std::to_string(antialias)});
      set_string(n, "mode", "cubic");
      set_int(n, "antialias", antialias);
    }
    up.output("y1", 4);
    const Graph gu = onnx_frontend::import_model_bytes(up.bytes(), "resize.onnx", ".");
    const Tensor xu = testing::random_tensor({1, 1, 3, 5}, 21);
    const std::vector<Tensor> both = run_reference(gu, {{"x", xu}});
    expect_close(both[1], both[0], 1e-6, "cubic upscaling with and without antialias");
  }

  // keep_aspect_ratio_policy (opset 18) with sizes: one factor for both axes.
  // [2, 4] towards sizes [1, 3]: not_larger takes min(1/2, 3/4) = 1/2, so the
  // output is [1, 2] and nearest (half_pixel, round_prefer_floor) picks input
  // rows {0} and columns {0, 2}; not_smaller takes 3/4: [round(1.5),
  // round(3)] = [2, 3], and coordinates (x + 0.5) * 4/3 - 0.5 pick rows
  // {0, 1} and columns {0, 1, 3}.
  void resizeKeepsTheAspectRatio() {
    for (const char* policy : {"not_larger", "not_smaller"}) {
      ModelWriter w(19);
      w.input("x", {1, 1, 2, 4});
      w.ints("sizes", {1, 3});
      w.output("y", 4);
      auto* r = w.node("Resize", {"x", "", "", "sizes"}, {"y"});
      set_ints(r, "axes", {2, 3});
      set_string(r, "keep_aspect_ratio_policy", policy);
      const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "resize.onnx", ".");
      Tensor x(DType::Float32, {1, 1, 2, 4});
      for (int64_t i = 0; i < 8; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
      const bool larger = std::string(policy) == "not_smaller";
      const std::vector<int64_t> rows =
          larger ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0};
      const std::vector<int64_t> cols =
          larger ? std::vector<int64_t>{0, 1, 3} : std::vector<int64_t>{0, 2};
      Tensor want(DType::Float32,
                  {1, 1, static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols.size())});
      for (size_t i = 0; i < rows.size(); ++i)
        for (size_t j = 0; j < cols.size(); ++j)
          want.data<float>()[i * cols.size() + j] = x.data<float>()[rows[i] * 4 + cols[j]];
      expect_close(run_reference(g, {{"x", x}})[0], want, 0, policy);
      expect_close(run_compiled(g, {{"x", x}})[0], want, 0, policy);
    }
  }

  // half_pixel_symmetric (opset 19) centres the input on an output whose real
  // length (5 * 0.7 = 3.5) was rounded down.
  void resizeHalfPixelSymmetric() {
    ModelWriter w(19);
    w.input("x", {1, 1, 1, 5});
    w.floats("scales", {1.f, 1.f, 1.f, 0.7f});
    w.output("y", 4);
    auto* r = w.node("Resize", {"x", "", "scales"}, {"y"});
    set_string(r, "mode", "linear");
    set_string(r, "coordinate_transformation_mode", "half_pixel_symmetric");
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "resize.onnx", ".");
    const Tensor x = testing::random_tensor({1, 1, 1, 5}, 12);
    Tensor want(DType::Float32, {1, 1, 1, 3});
    const double scale = 0.7f, offset = 2.5 * (1 - 3 / (5 * scale));
    for (int64_t j = 0; j < 3; ++j) {
      const double c = offset + (static_cast<double>(j) + 0.5) / scale - 0.5;
      const auto i0 = static_cast<int64_t>(std::floor(c));
      const double t = c - static_cast<double>(i0);
      auto at = [&](int64_t i) { return x.data<float>()[std::clamp<int64_t>(i, 0, 4)]; };
      want.data<float>()[j] = static_cast<float>((1 - t) * at(i0) + t * at(i0 + 1));
    }
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-6, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-6, "compiled");
  }

  // Col2Im (opset 18), torch.nn.Fold's export: every column element added
  // into the image at block position * stride + offset * dilation - pad,
  // computed here as that scatter; the compiled kernel gathers instead.
  void col2imAddsColumnsIntoTheImage() {
    const int64_t n = 2, c = 2, kh = 2, kw = 3, bh = 3, bw = 3, h = 5, w = 6;
    ModelWriter m(18);
    m.input("x", {n, c * kh * kw, bh * bw});
    m.ints("image_shape", {h, w});
    m.ints("block_shape", {kh, kw});
    m.output("y", 4);
    auto* node = m.node("Col2Im", {"x", "image_shape", "block_shape"}, {"y"});
    set_ints(node, "dilations", {1, 2});
    set_ints(node, "strides", {2, 1});
    set_ints(node, "pads", {1, 0, 0, 1});
    const Graph g = onnx_frontend::import_model_bytes(m.bytes(), "col2im.onnx", ".");
    const Tensor x = testing::random_tensor({n, c * kh * kw, bh * bw}, 31);
    Tensor want(DType::Float32, {n, c, h, w});
    std::vector<double> sum(static_cast<size_t>(want.numel()), 0.0);
    for (int64_t p = 0; p < n * c; ++p)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t a = 0; a < bh; ++a)
            for (int64_t b = 0; b < bw; ++b) {
              const int64_t y = a * 2 + i * 1 - 1, z = b * 1 + j * 2 - 0;
              if (y < 0 || y >= h || z < 0 || z >= w) continue;
              sum[static_cast<size_t>((p * h + y) * w + z)] +=
                  x.data<float>()[((p * kh + i) * kw + j) * bh * bw + a * bw + b];
            }
    for (size_t i = 0; i < sum.size(); ++i) want.data<float>()[i] = static_cast<float>(sum[i]);
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-6, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-6, "compiled");

    // Nine block positions are what the geometry gives; eight are refused.
    ModelWriter bad(18);
    bad.input("x", {n, c * kh * kw, 8});
    bad.ints("image_shape", {h, w});
    bad.ints("block_shape", {kh, kw});
    bad.output("y", 4);
    auto* b = bad.node("Col2Im", {"x", "image_shape", "block_shape"}, {"y"});
    set_ints(b, "dilations", {1, 2});
    set_ints(b, "strides", {2, 1});
    set_ints(b, "pads", {1, 0, 0, 1});
    const std::string error = import_error(bad.bytes());
    QVERIFY2(error.find("has 8 block positions") != std::string::npos, error.c_str());
  }

  // DFT by its definition, summed here in double: opset 17 (axis attribute,
  // a real signal zero-padded to dft_length, one-sided) and opset 20 (axis
  // as an input, a complex signal truncated to dft_length, inverse).
  void dftByItsDefinition_data() {
    QTest::addColumn<int>("opset");
    QTest::addColumn<QList<qint64>>("shape");
    QTest::addColumn<qint64>("axis");
    QTest::addColumn<qint64>("length");
    QTest::addColumn<bool>("inverse");
    QTest::addColumn<bool>("onesided");
    QTest::newRow("opset 17: real, padded, one-sided")
        << 17 << QList<qint64>{2, 10, 1} << qint64{1} << qint64{12} << false << true;
    QTest::newRow("opset 17: complex, middle axis")
        << 17 << QList<qint64>{2, 5, 3, 2} << qint64{1} << qint64{5} << false << false;
    QTest::newRow("opset 20: complex, truncated, inverse")
        << 20 << QList<qint64>{2, 3, 6, 2} << qint64{-2} << qint64{4} << true << false;
  }
  void dftByItsDefinition() {
    QFETCH(int, opset);
    QFETCH(QList<qint64>, shape);
    QFETCH(qint64, axis);
    QFETCH(qint64, length);
    QFETCH(bool, inverse);
    QFETCH(bool, onesided);
    const Shape xs(shape.begin(), shape.end());
    const auto rank = static_cast<int64_t>(xs.size());
    ModelWriter m(opset);
    m.input("x", xs);
    m.ints("length", {length});
    m.output("y", xs.size());
    std::vector<std::string> inputs = {"x", "length"};
    if (opset >= 20) {
      m.ints("axis", {axis});
      inputs.push_back("axis");
    }
    auto* node = m.node("DFT", inputs, {"y"});
    if (opset < 20) set_int(node, "axis", axis);
    set_int(node, "inverse", inverse);
    set_int(node, "onesided", onesided);
    // dft_length is a 1-element initializer; the spec's scalar is a 0-d one.
    m.graph()->mutable_initializer(0)->clear_dims();
    if (opset >= 20) m.graph()->mutable_initializer(1)->clear_dims();
    const Graph g = onnx_frontend::import_model_bytes(m.bytes(), "dft.onnx", ".");

    const Tensor x = testing::random_tensor(xs, 41);
    const int64_t a = axis < 0 ? axis + rank : axis, parts = xs.back();
    const int64_t n = xs[static_cast<size_t>(a)], kept = onesided ? length / 2 + 1 : length;
    Shape ys = xs;
    ys[static_cast<size_t>(a)] = kept;
    ys.back() = 2;
    Tensor want(DType::Float32, ys);
    int64_t outer = 1, inner = 1;  // the axes before and between the signal axis and the last
    for (int64_t d = 0; d < a; ++d) outer *= xs[static_cast<size_t>(d)];
    for (int64_t d = a + 1; d < rank - 1; ++d) inner *= xs[static_cast<size_t>(d)];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        for (int64_t k = 0; k < kept; ++k) {
          double re = 0, im = 0;
          for (int64_t t = 0; t < std::min<int64_t>(n, length); ++t) {
            const double angle = (inverse ? 2 : -2) * M_PI * static_cast<double>(k * t) /
                                 static_cast<double>(length);
            const int64_t at = ((o * n + t) * inner + i) * parts;
            const double xr = x.data<float>()[at], xi = parts == 2 ? x.data<float>()[at + 1] : 0;
            re += xr * std::cos(angle) - xi * std::sin(angle);
            im += xr * std::sin(angle) + xi * std::cos(angle);
          }
          if (inverse) re /= static_cast<double>(length), im /= static_cast<double>(length);
          const int64_t out = ((o * kept + k) * inner + i) * 2;
          want.data<float>()[out] = static_cast<float>(re);
          want.data<float>()[out + 1] = static_cast<float>(im);
        }
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-5, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-5, "compiled");
  }

  // GridSample at opset 20 (mode "cubic", formerly "bicubic"): a point at
  // x = 2.8 in a row [a, b, c] (align_corners 0: grid 1.2) takes taps 1..4
  // weighted Keys(1.8), Keys(0.8), Keys(0.2), Keys(1.2); border padding
  // clamps the taps past the end to c, as ONNX Runtime and PyTorch do, so
  // the value is Keys(1.8) * b + (1 - Keys(1.8)) * c = -0.024 b + 1.024 c.
  // The grid point at -0.2 (x = 0.7) reads across the left edge.
  void gridSampleCubicClampsItsTaps() {
    ModelWriter m(20);
    m.input("x", {1, 1, 1, 3});
    m.input("grid", {1, 1, 2, 2});
    m.output("y", 4);
    auto* node = m.node("GridSample", {"x", "grid"}, {"y"});
    set_string(node, "mode", "cubic");
    set_string(node, "padding_mode", "border");
    const Graph g = onnx_frontend::import_model_bytes(m.bytes(), "grid.onnx", ".");
    Tensor x(DType::Float32, {1, 1, 1, 3});
    const float a = 0.5f, b = -1.25f, c = 2.0f;
    x.data<float>()[0] = a, x.data<float>()[1] = b, x.data<float>()[2] = c;
    Tensor grid(DType::Float32, {1, 1, 2, 2});
    const float points[4] = {1.2f, 0.f, -0.2f, 0.f};  // (x, y) pairs
    std::copy(points, points + 4, grid.data<float>());
    auto keys = [](double u) {
      const double k = -0.75;
      u = std::abs(u);
      return u <= 1 ? ((k + 2) * u - (k + 3)) * u * u + 1
                    : ((k * u - 5 * k) * u + 8 * k) * u - 4 * k;
    };
    // Point 2: x = ((-0.2 + 1) * 3 - 1) / 2 = 0.7, taps -1..2 clamped to 0..2.
    const double t = 0.7;
    const double second = keys(1 + t) * a + keys(t) * a + keys(1 - t) * b + keys(2 - t) * c;
    Tensor want(DType::Float32, {1, 1, 1, 2});
    want.data<float>()[0] = static_cast<float>(-0.024 * b + 1.024 * c);
    want.data<float>()[1] = static_cast<float>(second);
    const Inputs inputs = {{"x", x}, {"grid", grid}};
    expect_close(run_reference(g, inputs)[0], want, 1e-5, "reference");
    expect_close(run_compiled(g, inputs)[0], want, 1e-5, "compiled");
  }

  // LpPool (opset 18: ceil_mode, dilations) by its definition: the window's
  // sum of |x|^3, its cube root; the last window in ceil mode runs past the
  // input and sums what it covers.
  void lpPoolByItsDefinition() {
    ModelWriter m(18);
    m.input("x", {1, 2, 7, 6});
    m.output("y", 4);
    auto* node = m.node("LpPool", {"x"}, {"y"});
    set_ints(node, "kernel_shape", {3, 2});
    set_ints(node, "strides", {2, 2});
    set_ints(node, "dilations", {1, 2});
    set_int(node, "ceil_mode", 1);
    set_int(node, "p", 3);
    const Graph g = onnx_frontend::import_model_bytes(m.bytes(), "lp.onnx", ".");
    const Tensor x = testing::random_tensor({1, 2, 7, 6}, 51);
    // Rows: ceil((7 - 3) / 2) + 1 = 3; columns: ceil((6 - 3) / 2) + 1 = 3.
    Tensor want(DType::Float32, {1, 2, 3, 3});
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          double sum = 0;
          for (int64_t a = 0; a < 3; ++a)
            for (int64_t b = 0; b < 2; ++b) {
              const int64_t r = 2 * i + a, q = 2 * j + 2 * b;
              if (r < 7 && q < 6)
                sum += std::pow(std::abs(x.data<float>()[(c * 7 + r) * 6 + q]), 3);
            }
          want.data<float>()[(c * 3 + i) * 3 + j] = static_cast<float>(std::cbrt(sum));
        }
    expect_close(run_reference(g, {{"x", x}})[0], want, 1e-5, "reference");
    expect_close(run_compiled(g, {{"x", x}})[0], want, 1e-5, "compiled");
  }

  // AffineGrid (opset 20): theta applied to each output cell's centre in
  // normalised coordinates, x first; CenterCropPad (18): rows cropped to the
  // centred 2 of 5 (from 1), columns padded from 3 to 6 (1 before, 2 after).
  void affineGridAndCenterCropPad() {
    ModelWriter m(20);
    m.input("theta", {1, 2, 3});
    m.ints("size", {1, 1, 2, 3});
    m.output("y", 4);
    m.node("AffineGrid", {"theta", "size"}, {"y"});
    const Graph g = onnx_frontend::import_model_bytes(m.bytes(), "affine.onnx", ".");
    const Tensor theta = testing::random_tensor({1, 2, 3}, 52);
    const float* t = theta.data<float>();
    Tensor want(DType::Float32, {1, 2, 3, 2});
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t w = 0; w < 3; ++w) {
        const double x = (2.0 * static_cast<double>(w) + 1) / 3 - 1;
        const double y = (2.0 * static_cast<double>(h) + 1) / 2 - 1;
        for (int64_t r = 0; r < 2; ++r)
          want.data<float>()[(h * 3 + w) * 2 + r] =
              static_cast<float>(t[r * 3] * x + t[r * 3 + 1] * y + t[r * 3 + 2]);
      }
    expect_close(run_reference(g, {{"theta", theta}})[0], want, 1e-6, "AffineGrid reference");
    expect_close(run_compiled(g, {{"theta", theta}})[0], want, 1e-6, "AffineGrid compiled");

    ModelWriter c(18);
    c.input("x", {1, 5, 3});
    c.ints("shape", {2, 6});
    c.output("y", 3);
    auto* node = c.node("CenterCropPad", {"x", "shape"}, {"y"});
    set_ints(node, "axes", {1, 2});
    const Graph gc = onnx_frontend::import_model_bytes(c.bytes(), "crop.onnx", ".");
    const Tensor x = testing::random_tensor({1, 5, 3}, 53);
    Tensor cropped(DType::Float32, {1, 2, 6});
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 6; ++j)
        cropped.data<float>()[i * 6 + j] =
            j >= 1 && j < 4 ? x.data<float>()[(i + 1) * 3 + (j - 1)] : 0.f;
    expect_close(run_reference(gc, {{"x", x}})[0], cropped, 0, "CenterCropPad reference");
    expect_close(run_compiled(gc, {{"x", x}})[0], cropped, 0, "CenterCropPad compiled");
  }

  // Opset 18's bitwise ops import and run on both executors; the expected
  // values are C++'s operators on the same integers.
  void bitwiseOpsOfOpset18() {
    ModelWriter w(18);
    w.input("a", {2, 3}, onnx::TensorProto::INT32);
    w.input("b", {3}, onnx::TensorProto::INT32);
    w.output("y", 2, onnx::TensorProto::INT32);
    w.node("BitwiseAnd", {"a", "b"}, {"and"});
    w.node("BitwiseXor", {"and", "a"}, {"xor"});
    w.node("BitwiseNot", {"b"}, {"not"});
    w.node("BitwiseOr", {"xor", "not"}, {"y"});
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "bitwise.onnx", ".");
    const std::vector<int32_t> a = {-7, 12, 0x7f00ff, 1 << 30, -1, 5}, b = {3, -16, 0x0ff0f0};
    std::vector<int32_t> want(6);
    for (size_t i = 0; i < 6; ++i) want[i] = ((a[i] & b[i % 3]) ^ a[i]) | ~b[i % 3];
    const Inputs inputs = {{"a", Tensor::from_vector<int32_t>(a, {2, 3})},
                           {"b", Tensor::from_vector<int32_t>(b, {3})}};
    for (const auto& [what, y] : {std::pair{"reference", run_reference(g, inputs)[0]},
                                  std::pair{"compiled", run_compiled(g, inputs)[0]}})
      for (size_t i = 0; i < 6; ++i)
        QVERIFY2(y.data<int32_t>()[i] == want[i],
                 qPrintable(QString("%1: element %2 is %3, expected %4")
                                .arg(what)
                                .arg(i)
                                .arg(y.data<int32_t>()[i])
                                .arg(want[i])));
  }

  // An op that a newer opset added and Lathe lacks is named with its opset,
  // and a model newer than Lathe's newest opset names what it uses from it.
  void newerOpsAreRefusedByNameAndOpset() {
    ModelWriter w(20);
    w.input("bytes", {100}, onnx::TensorProto::UINT8);
    w.output("image", 3, onnx::TensorProto::UINT8);
    w.node("ImageDecoder", {"bytes"}, {"image"});
    std::string error = import_error(w.bytes());
    QVERIFY2(error.find("ImageDecoder (opset 20) is not supported") != std::string::npos,
             error.c_str());

    ModelWriter v(24);
    v.input("x", {2, 4});
    v.output("y", 2);
    v.node("Swish", {"x"}, {"y"});
    error = import_error(v.bytes());
    QVERIFY2(error.find("opset 24 is newer than the 23 Lathe supports") != std::string::npos,
             error.c_str());
    QVERIFY2(error.find("Swish from opset 24") != std::string::npos, error.c_str());
  }

  // QuantizeLinear and DequantizeLinear of opsets 19 and 21 in their int8
  // forms (21's output_dtype picks the type when no zero point is given);
  // blocked quantization (21's block_size) is refused by name.
  void quantizeLinearOfOpsets19And21() {
    for (int opset : {19, 21}) {
      ModelWriter w(opset);
      w.input("x", {4});
      w.output("y", 1);
      w.floats("s", {0.5f}, {1});
      onnx::NodeProto* q = w.node("QuantizeLinear", {"x", "s"}, {"q"});
      if (opset == 21) set_int(q, "output_dtype", onnx::TensorProto::INT8);
      w.node("DequantizeLinear", {"q", "s"}, {"y"});
      const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "m.onnx", ".");
      QCOMPARE(g.value(g.nodes[0].outputs[0]).type.dtype, opset == 21 ? DType::Int8 : DType::UInt8);
      // x / 0.5 = [0.5, 1.5, -3, 300]: [0, 2, -3 or 0 (uint8), 127 or 255], times 0.5.
      const Tensor x = Tensor::from_vector<float>({0.25f, 0.75f, -1.5f, 150.0f}, {4});
      const std::vector<float> want = opset == 21 ? std::vector<float>{0.0f, 1.0f, -1.5f, 63.5f}
                                                  : std::vector<float>{0.0f, 1.0f, 0.0f, 127.5f};
      const Tensor expected = Tensor::from_vector<float>(want, {4});
      expect_close(run_reference(g, {{"x", x}})[0], expected, 0.0, "reference");
      expect_close(run_compiled(g, {{"x", x}})[0], expected, 0.0, "compiled");
    }
    ModelWriter b(21);
    b.input("x", {4, 4});
    b.output("y", 2);
    b.floats("s", {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, {4, 2});
    set_int(b.node("QuantizeLinear", {"x", "s"}, {"y"}), "block_size", 2);
    const std::string error = import_error(b.bytes());
    QVERIFY2(error.find("blocked quantization (block_size, opset 21) is not supported") !=
                 std::string::npos,
             error.c_str());
  }

  // A QDQ model's small weights (a 1x1 filter, 4x4x1x1 int8 here) stay
  // behind their DequantizeLinear at import, below the folding limit too, so
  // the compiled Conv is integer: ConvInteger, no float Conv. The filters are
  // the identity at scale 0.5 on an input quantized at 0.25: x = 0.25 i is
  // i quantized, y = x / 2 = 0.125 i requantized at 0.125 is i again.
  void smallQuantizedWeightsStayQuantized() {
    ModelWriter w(17);
    w.input("x", {1, 4, 2, 2});
    w.output("y", 4, onnx::TensorProto::UINT8);
    w.floats("xs", {0.25f}, {});
    w.floats("ws", {0.5f, 0.5f, 0.5f, 0.5f}, {4});
    w.floats("ys", {0.125f}, {});
    auto int8s = [&](const std::string& name, const std::vector<int8_t>& v, Shape shape, int elem) {
      auto* t = w.graph()->add_initializer();
      t->set_name(name);
      t->set_data_type(elem);
      for (int64_t d : shape) t->add_dims(d);
      t->set_raw_data(std::string(v.begin(), v.end()));
    };
    int8s("xzp", {0}, {}, onnx::TensorProto::UINT8);
    int8s("yzp", {0}, {}, onnx::TensorProto::UINT8);
    int8s("wzp", {0, 0, 0, 0}, {4}, onnx::TensorProto::INT8);
    std::vector<int8_t> filters(16, 0);
    for (int c = 0; c < 4; ++c) filters[static_cast<size_t>(c * 4 + c)] = 1;  // the identity
    int8s("wq", filters, {4, 4, 1, 1}, onnx::TensorProto::INT8);
    w.node("QuantizeLinear", {"x", "xs", "xzp"}, {"xq"});
    w.node("DequantizeLinear", {"xq", "xs", "xzp"}, {"xd"});
    set_int(w.node("DequantizeLinear", {"wq", "ws", "wzp"}, {"wd"}), "axis", 0);
    w.node("Conv", {"xd", "wd"}, {"c"});
    w.node("QuantizeLinear", {"c", "ys", "yzp"}, {"y"});
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "m.onnx", ".");
    const driver::CompiledGraph compiled = driver::compile_graph(g);
    auto has = [&](const std::string& op) {
      return std::ranges::any_of(compiled.optimized.graph.nodes,
                                 [&](const Node& n) { return n.op == op; });
    };
    QVERIFY(has("ConvInteger"));
    QVERIFY(!has("Conv") && !has("Conv2dNCHWc"));
    std::vector<float> x(16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i);
    const Tensor y = run_compiled(g, {{"x", Tensor::from_vector<float>(x, {1, 4, 2, 2})}})[0];
    for (size_t i = 0; i < 16; ++i) QCOMPARE(int{y.data<uint8_t>()[i]}, static_cast<int>(i));
  }

  // ONNX Runtime's contrib ops of the QOperator form import under their
  // domain; the ones Lathe lacks are refused by name and domain.
  void contribQuantizedOpsByDomain() {
    ModelWriter w(17);
    w.input("a", {2}, onnx::TensorProto::UINT8);
    w.output("y", 1, onnx::TensorProto::UINT8);
    w.floats("s", {0.5f}, {});
    onnx::NodeProto* add = w.node("QLinearAdd", {"a", "s", "", "a", "s", "", "s"}, {"y"});
    add->set_domain("com.microsoft");
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "m.onnx", ".");
    QCOMPARE(g.nodes[0].op, std::string("com.microsoft.QLinearAdd"));
    // (a + a) * 0.5 / 0.5: [3, 200] -> [6, 255 (saturated)].
    const Tensor a = Tensor::from_vector<uint8_t>({3, 200}, {2});
    const Tensor y = run_reference(g, {{"a", a}})[0];
    QCOMPARE(std::vector<uint8_t>(y.data<uint8_t>(), y.data<uint8_t>() + 2),
             (std::vector<uint8_t>{6, 255}));

    ModelWriter v(17);
    v.input("a", {2}, onnx::TensorProto::UINT8);
    v.output("y", 1, onnx::TensorProto::UINT8);
    v.floats("s", {0.5f}, {});
    v.node("QLinearSigmoid", {"a", "s", "", "s"}, {"y"})->set_domain("com.microsoft");
    const std::string error = import_error(v.bytes());
    QVERIFY2(error.find("unsupported op com.microsoft.QLinearSigmoid") != std::string::npos,
             error.c_str());
  }

  // Nodes whose meaning did not change since opset 17 are still checked by
  // libonnx's schema in a newer model.
  void unchangedNodesAreStillChecked() {
    ModelWriter w(20);
    w.input("x", {2, 4});
    w.output("y", 2);
    w.node("Relu", {"x", "x"}, {"y"});
    const std::string error = import_error(w.bytes());
    QVERIFY2(error.find("node y_node (Relu)") != std::string::npos, error.c_str());
    QVERIFY2(error.find("ONNX checker (opset 17 schema)") != std::string::npos, error.c_str());
  }

  // ONNX Runtime's float16 converter appends the Casts it inserts at the end
  // of the node list; ONNX Runtime runs such models, and so does Lathe.
  void nodesOutOfOrderAreSorted() {
    for (int opset : {17, 20}) {
      ModelWriter w(opset, 8);
      w.input("x", {3, 4});
      w.output("y", 2);
      w.node("Relu", {"t"}, {"y"});
      w.node("Neg", {"u"}, {"t"});
      w.node("Exp", {"x"}, {"u"});
      const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "order.onnx", ".");
      QCOMPARE(g.nodes.size(), size_t{3});
      QCOMPARE(g.nodes[0].op, std::string("Exp"));
      QCOMPARE(g.nodes[2].op, std::string("Relu"));
      const Tensor x = testing::random_tensor({3, 4}, 4);
      const Tensor y = run_reference(g, {{"x", x}})[0];
      for (int64_t i = 0; i < y.numel(); ++i) QCOMPARE(y.data<float>()[i], 0.f);
    }
  }

  // If: a condition that folds (here from a shape) picks its branch at
  // import; one on an input's value stays an If, run at run time, and the
  // input stays an input even when a value is given (tst_control_flow).
  void ifWithAFoldingConditionIsItsBranch() {
    ModelWriter w(19);
    w.input("x", {2, 3});
    w.input("flag", {}, onnx::TensorProto::BOOL);
    w.ints("two", {2});
    w.output("y", 2);
    w.output("z", 2);
    w.node("Shape", {"x"}, {"shape"});
    w.ints("zero", {0});
    w.node("Gather", {"shape", "zero"}, {"rows"});
    w.node("Equal", {"rows", "two"}, {"has_two_rows"});
    w.node("Squeeze", {"has_two_rows"}, {"cond"});
    auto branch = [&](onnx::NodeProto* node, const char* name, const char* op, const char* out) {
      onnx::GraphProto* body = add_graph(node, name);
      w.node(op, {"x"}, {out}, body);
      body->add_output()->set_name(out);
    };
    auto* by_shape = w.node("If", {"cond"}, {"y"});
    branch(by_shape, "then_branch", "Neg", "neg");
    branch(by_shape, "else_branch", "Exp", "exp");
    auto* by_value = w.node("If", {"flag"}, {"z"});
    branch(by_value, "then_branch", "Abs", "abs");
    branch(by_value, "else_branch", "Sigmoid", "sig");

    onnx_frontend::ImportOptions options;
    Tensor flag(DType::Bool, {});
    flag.data<bool>()[0] = false;
    options.shape_input_values["flag"] = flag;
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "if.onnx", ".", options);
    QCOMPARE(g.inputs.size(), size_t{2});
    int ifs = 0;
    for (const Node& node : g.nodes) ifs += node.op == "If";
    QCOMPARE(ifs, 1);
    const Tensor x = testing::random_tensor({2, 3}, 6);
    Tensor neg(DType::Float32, x.shape()), sig(DType::Float32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      neg.data<float>()[i] = -x.data<float>()[i];
      sig.data<float>()[i] = 1.f / (1.f + std::exp(-x.data<float>()[i]));
    }
    const Inputs inputs = {{"x", x}, {"flag", flag}};
    for (const auto& outs : {run_reference(g, inputs), run_compiled(g, inputs)}) {
      expect_close(outs[0], neg, 0, "If on a shape");
      expect_close(outs[1], sig, 1e-6, "If on an input");
    }
  }

  // A Loop with a constant trip count is unrolled: the loop-carried value
  // threads through, and the scan output stacks one slice per iteration.
  void loopWithAConstantTripCountIsUnrolled() {
    ModelWriter w(17, 8);
    w.input("x", {2});
    w.ints("trips", {3});
    w.output("acc", 1);
    w.output("scan", 2);
    auto* initial = w.node("Constant", {}, {"go"});
    auto* value = initial->add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    value->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
    value->mutable_t()->add_int32_data(1);
    w.node("Squeeze", {"trips"}, {"m"});
    auto* loop = w.node("Loop", {"m", "go", "x"}, {"acc", "scan"});
    onnx::GraphProto* body = add_graph(loop, "body");
    ModelWriter::describe(body->add_input(), "i", {}, onnx::TensorProto::INT64);
    ModelWriter::describe(body->add_input(), "c", {}, onnx::TensorProto::BOOL);
    ModelWriter::describe(body->add_input(), "a", {2}, onnx::TensorProto::FLOAT);
    set_int(w.node("Cast", {"i"}, {"fi"}, body), "to", onnx::TensorProto::FLOAT);
    w.node("Add", {"a", "fi"}, {"a2"}, body);
    w.node("Identity", {"c"}, {"c2"}, body);
    w.node("Add", {"a2", "a2"}, {"twice"}, body);
    ModelWriter::describe(body->add_output(), "c2", {}, onnx::TensorProto::BOOL);
    ModelWriter::describe(body->add_output(), "a2", {2}, onnx::TensorProto::FLOAT);
    ModelWriter::describe(body->add_output(), "twice", {2}, onnx::TensorProto::FLOAT);
    const Graph g = onnx_frontend::import_model_bytes(w.bytes(), "loop.onnx", ".");
    const Tensor x = testing::random_tensor({2}, 8);
    Tensor acc(DType::Float32, {2}), scan(DType::Float32, {3, 2});
    for (int64_t j = 0; j < 2; ++j) {
      float a = x.data<float>()[j];
      for (int64_t i = 0; i < 3; ++i) {
        a += static_cast<float>(i);
        scan.data<float>()[i * 2 + j] = 2 * a;
      }
      acc.data<float>()[j] = a;
    }
    for (const auto& outs : {run_reference(g, {{"x", x}}), run_compiled(g, {{"x", x}})}) {
      expect_close(outs[0], acc, 1e-6, "loop-carried value");
      expect_close(outs[1], scan, 1e-6, "scan output");
    }

    // A trip count that only the input knows keeps the Loop, run at run time.
    ModelWriter v(17, 8);
    v.input("n", {}, onnx::TensorProto::INT64);
    v.input("x", {2});
    v.output("acc", 1);
    auto* open_loop = v.node("Loop", {"n", "", "x"}, {"acc"});
    onnx::GraphProto* open_body = add_graph(open_loop, "body");
    ModelWriter::describe(open_body->add_input(), "i", {}, onnx::TensorProto::INT64);
    ModelWriter::describe(open_body->add_input(), "c", {}, onnx::TensorProto::BOOL);
    ModelWriter::describe(open_body->add_input(), "a", {2}, onnx::TensorProto::FLOAT);
    v.node("Identity", {"c"}, {"c2"}, open_body);
    v.node("Neg", {"a"}, {"a2"}, open_body);
    ModelWriter::describe(open_body->add_output(), "c2", {}, onnx::TensorProto::BOOL);
    ModelWriter::describe(open_body->add_output(), "a2", {2}, onnx::TensorProto::FLOAT);
    const Graph open = onnx_frontend::import_model_bytes(v.bytes(), "open.onnx", ".");
    QCOMPARE(open.inputs.size(), size_t{2});
    for (int64_t n : {2, 3}) {
      Tensor negated = x.clone();
      if (n % 2)
        for (int64_t j = 0; j < 2; ++j) negated.data<float>()[j] = -x.data<float>()[j];
      const Inputs inputs = {{"n", Tensor::scalar(n)}, {"x", x}};
      for (const auto& outs : {run_reference(open, inputs), run_compiled(open, inputs)})
        expect_close(outs[0], negated, 0, "a Loop of run-time length");
    }
  }
};

QTEST_GUILESS_MAIN(TestNewerOpsets)
#include "tst_newer_opsets.moc"
