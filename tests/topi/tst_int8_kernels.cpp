// The integer kernels (topi/int8.h) on the tensorized dot product, against
// scalar references of ONNX's ConvInteger and MatMulInteger: exact int32
// equality, for uint8 and int8 activations and weights, with and without
// zero points (per tensor and per channel), channel counts that leave a
// block partly padding, on each implementation of the intrinsic this CPU can
// run: the host's, AVX-VNNI's and AVX2's (forced through a target without
// VNNI). A target the CPU cannot run is skipped, saying why.
#include <QtTest>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include "codegen/codegen.h"
#include "runtime/cpu_features.h"
#include "te/tensor_intrinsic.h"
#include "tir/lower.h"
#include "topi/int8.h"
#include "topi/op_compute.h"

using namespace lathe;
using te::DataType;
using topi::QuantOperand;

namespace {

struct Array {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<int32_t> values;  // as int32, stored as dtype when run
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b;
    for (int32_t v : values) b.push_back(static_cast<uint8_t>(v));
    return b;
  }
};

Array random_array(DataType dtype, std::vector<int64_t> shape, std::mt19937& rng) {
  Array a{dtype, shape, {}};
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::uniform_int_distribution<int> dist(dtype.is_int() ? -128 : 0, dtype.is_int() ? 127 : 255);
  for (int64_t i = 0; i < n; ++i) a.values.push_back(dist(rng));
  return a;
}

// ConvInteger as ONNX defines it: (x - xz) * (w - wz), the padding holding xz.
std::vector<int32_t> reference_conv(const Array& x, const Array& w, const Array* xz,
                                    const Array* wz, const topi::Conv2dParams& p) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t oc = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (wd + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  std::vector<int32_t> out;
  const int32_t x_zero = xz ? xz->values[0] : 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o) {
      const int32_t w_zero = wz ? wz->values[wz->values.size() == 1 ? 0 : o] : 0;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          int32_t acc = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = y * p.stride_h + ky * p.dilation_h - p.pad_top;
                const int64_t ix = xx * p.stride_w + kx * p.dilation_w - p.pad_left;
                const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < wd;
                const int32_t xv = inside ? x.values[((b * c + ch) * h + iy) * wd + ix] : x_zero;
                const int32_t wv = w.values[((o * c + ch) * kh + ky) * kw + kx];
                acc += (xv - x_zero) * (wv - w_zero);
              }
          out.push_back(acc);
        }
    }
  return out;
}

std::vector<int32_t> reference_matmul(const Array& a, const Array& b, const Array* az,
                                      const Array* bz) {
  const int64_t k = a.shape.back(), m = a.shape[a.shape.size() - 2], n = b.shape[1];
  const int64_t rows = static_cast<int64_t>(a.values.size()) / k;
  std::vector<int32_t> out;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t a_zero = az ? az->values[az->values.size() == 1 ? 0 : r % m] : 0;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t b_zero = bz ? bz->values[bz->values.size() == 1 ? 0 : j] : 0;
      int32_t acc = 0;
      for (int64_t i = 0; i < k; ++i)
        acc += (a.values[r * k + i] - a_zero) * (b.values[i * n + j] - b_zero);
      out.push_back(acc);
    }
  }
  return out;
}

// Empty when this CPU can run code for `target` and the target has an int8
// dot product, else why not.
QString unrunnable(const codegen::Target& target) {
  try {
    codegen::check_jit_target(target, runtime::host_cpu_features());
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  const te::TensorIntrinsic& dot = *te::find_tensor_intrinsic("dot_16x4_u8s8");
  if (!te::select_implementation(dot, target.isa_features(), target.vector_unit().bits))
    return "target '" + QString::fromStdString(target.to_string()) +
           "' has no int8 dot product (needs AVX2 or VNNI)";
  return {};
}

// Lowers and runs `output` computed from `inputs`, its stages scheduled by
// `apply`; returns the int32 output.
std::vector<int32_t> run(const codegen::Target& target, const std::vector<te::Tensor>& inputs,
                         const std::vector<Array>& arrays, const te::Tensor& output,
                         const std::function<void(schedule::Schedule&)>& apply,
                         std::string* assembly = nullptr) {
  schedule::Schedule s({output.op()});
  apply(s);
  std::vector<te::Tensor> args = inputs;
  args.push_back(output);
  tir::LoweredFunc lowered = tir::lower(s, args, "int8_kernel", {.record_ir = false});
  if (assembly) *assembly = codegen::emit_assembly({lowered.func}, target);
  codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, target);
  // Kernels take 64-byte-aligned buffers, as the graph executor allocates them.
  std::vector<std::unique_ptr<uint8_t, decltype(&std::free)>> storage;
  std::vector<void*> buffers;
  auto allocate = [&](size_t bytes) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    storage.emplace_back(static_cast<uint8_t*>(p), &std::free);
    buffers.push_back(p);
    return p;
  };
  for (const Array& a : arrays) {
    const std::vector<uint8_t> b = a.bytes();
    std::memcpy(allocate(b.size()), b.data(), b.size());
  }
  int64_t count = 1;
  for (int64_t d : output.shape()) count *= d;
  auto* result = static_cast<int32_t*>(allocate(static_cast<size_t>(count) * 4));
  kernel.run(buffers);
  return std::vector<int32_t>(result, result + count);
}

const char* kTargets[] = {"llvm", "llvm -mcpu=alderlake", "llvm -mcpu=haswell"};

void compare(const std::vector<int32_t>& got, const std::vector<int32_t>& want) {
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      QFAIL(qPrintable(QString("element %1: %2, expected %3").arg(i).arg(got[i]).arg(want[i])));
}

}  // namespace

class TestInt8Kernels : public QObject {
  Q_OBJECT

 private slots:
  void conv_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("x_type");
    QTest::addColumn<QString>("w_type");
    QTest::addColumn<int>("zero_points");   // 0 none, 1 per tensor, 2 per output channel weights
    QTest::addColumn<QList<int>>("shape");  // n, c, h, w, oc, k, stride, pad
    for (const char* t : kTargets) {
      auto row = [&](const char* name, const char* xt, const char* wt, int zp, QList<int> shape) {
        QTest::newRow(qPrintable(QString("%1 %2").arg(t, name)))
            << QString(t) << QString(xt) << QString(wt) << zp << shape;
      };
      row("u8s8 3x3", "uint8", "int8", 0, {1, 16, 9, 9, 32, 3, 1, 1});
      row("s8s8 zero points", "int8", "int8", 1, {1, 8, 7, 7, 16, 3, 1, 1});
      row("u8u8 per-channel", "uint8", "uint8", 2, {1, 12, 6, 6, 20, 1, 1, 0});
      row("odd channels stride 2", "int8", "int8", 2, {2, 3, 11, 11, 18, 3, 2, 1});
      row("u8s8 odd zero points", "uint8", "int8", 1, {1, 5, 8, 8, 17, 3, 1, 1});
    }
  }

  void conv() {
    QFETCH(QString, target);
    QFETCH(QString, x_type);
    QFETCH(QString, w_type);
    QFETCH(int, zero_points);
    QFETCH(QList<int>, shape);
    const codegen::Target tgt = codegen::Target::parse(target.toStdString());
    if (QString why = unrunnable(tgt); !why.isEmpty()) QSKIP(qPrintable(why));
    std::mt19937 rng(static_cast<unsigned>(shape[1] * 131 + shape[4]));
    const DataType xt = DataType::parse(x_type.toStdString());
    const DataType wt = DataType::parse(w_type.toStdString());
    const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3], oc = shape[4],
                  k = shape[5];
    topi::Conv2dParams p;
    p.stride_h = p.stride_w = shape[6];
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = shape[7];
    Array x = random_array(xt, {n, c, h, w}, rng), wa = random_array(wt, {oc, c, k, k}, rng);
    Array xz = random_array(xt, {1}, rng);
    Array wz = random_array(wt, {zero_points == 2 ? oc : 1}, rng);
    QuantOperand qx{te::placeholder(x.shape, xt, "x"), {}};
    QuantOperand qw{te::placeholder(wa.shape, wt, "w"), {}};
    std::vector<te::Tensor> inputs = {qx.value, qw.value};
    std::vector<Array> arrays = {x, wa};
    if (zero_points) {
      qx.zero_point = te::placeholder(xz.shape, xt, "x_zero_point");
      qw.zero_point = te::placeholder(wz.shape, wt, "w_zero_point");
      inputs.insert(inputs.end(), {qx.zero_point, qw.zero_point});
      arrays.insert(arrays.end(), {xz, wz});
    }
    topi::Int8Kernel kernel = topi::conv2d_integer_nchwc(qx, qw, p, 8);
    topi::SearchSpace space = topi::conv2d_int8_template(kernel);
    std::string assembly;
    std::vector<int32_t> got = run(
        tgt, inputs, arrays, kernel.output,
        [&](schedule::Schedule& s) { space.apply(s, space.default_config); }, &assembly);
    compare(got,
            reference_conv(x, wa, zero_points ? &xz : nullptr, zero_points ? &wz : nullptr, p));
    // The implementation the target has, and no other.
    const bool avx2 = target.contains("haswell");
    QVERIFY2(assembly.find(avx2 ? "vpmaddubsw" : "vpdpbusd") != std::string::npos,
             "the tensorized loop's instruction is missing from the assembly");
    if (avx2) QVERIFY(assembly.find("vpdpbusd") == std::string::npos);
  }

  void matmul_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("a_type");
    QTest::addColumn<QString>("b_type");
    QTest::addColumn<int>("zero_points");
    QTest::addColumn<QList<int>>("a_shape");
    QTest::addColumn<int>("n");
    for (const char* t : kTargets) {
      auto row = [&](const char* name, const char* at, const char* bt, int zp, QList<int> a,
                     int n) {
        QTest::newRow(qPrintable(QString("%1 %2").arg(t, name)))
            << QString(t) << QString(at) << QString(bt) << zp << a << n;
      };
      row("u8s8", "uint8", "int8", 0, {16, 64}, 32);
      row("u8u8 per-column zero points", "uint8", "uint8", 2, {7, 30}, 20);
      row("s8s8 batched, odd", "int8", "int8", 1, {2, 3, 13}, 17);
    }
  }

  void matmul() {
    QFETCH(QString, target);
    QFETCH(QString, a_type);
    QFETCH(QString, b_type);
    QFETCH(int, zero_points);
    QFETCH(QList<int>, a_shape);
    QFETCH(int, n);
    const codegen::Target tgt = codegen::Target::parse(target.toStdString());
    if (QString why = unrunnable(tgt); !why.isEmpty()) QSKIP(qPrintable(why));
    std::mt19937 rng(static_cast<unsigned>(n * 7 + a_shape.back()));
    const DataType at = DataType::parse(a_type.toStdString());
    const DataType bt = DataType::parse(b_type.toStdString());
    std::vector<int64_t> as(a_shape.begin(), a_shape.end());
    Array a = random_array(at, as, rng), b = random_array(bt, {as.back(), n}, rng);
    Array az = random_array(at, {1}, rng), bz = random_array(bt, {zero_points == 2 ? n : 1}, rng);
    QuantOperand qa{te::placeholder(a.shape, at, "a"), {}};
    QuantOperand qb{te::placeholder(b.shape, bt, "b"), {}};
    std::vector<te::Tensor> inputs = {qa.value, qb.value};
    std::vector<Array> arrays = {a, b};
    if (zero_points) {
      qa.zero_point = te::placeholder(az.shape, at, "a_zero_point");
      qb.zero_point = te::placeholder(bz.shape, bt, "b_zero_point");
      inputs.insert(inputs.end(), {qa.zero_point, qb.zero_point});
      arrays.insert(arrays.end(), {az, bz});
    }
    topi::Int8Kernel kernel = topi::matmul_integer(qa, qb);
    topi::SearchSpace space = topi::matmul_int8_template(kernel);
    std::vector<int32_t> got = run(tgt, inputs, arrays, kernel.output, [&](schedule::Schedule& s) {
      space.apply(s, space.default_config);
    });
    compare(got, reference_matmul(a, b, zero_points ? &az : nullptr, zero_points ? &bz : nullptr));
  }

  // The graph compiler's path: the op's registered compute and the template
  // of the group it anchors, with an elementwise epilogue (here + 3) that
  // the template inlines into the group's output.
  void graphStrategy_data() {
    QTest::addColumn<QString>("op");
    QTest::newRow("ConvInteger") << "ConvInteger";
    QTest::newRow("depthwise ConvInteger") << "depthwise";
    QTest::newRow("MatMulInteger") << "MatMulInteger";
  }

  void graphStrategy() {
    QFETCH(QString, op);
    const bool depthwise = op == "depthwise", matmul = op == "MatMulInteger";
    std::mt19937 rng(9);
    const DataType u8 = DataType::UInt(8), s8 = DataType::Int(8);
    Node node;
    node.name = "q";
    node.op = matmul ? "MatMulInteger" : "ConvInteger";
    topi::Conv2dParams p;
    std::vector<int64_t> xs, ws, ys;
    if (matmul) {
      xs = {2, 5, 24};
      ws = {24, 32};
      ys = {2, 5, 32};
    } else {
      p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
      p.groups = depthwise ? 8 : 1;
      xs = {1, 8, 10, 10};
      ws = {depthwise ? 8 : 32, depthwise ? 1 : 8, 3, 3};
      ys = {1, ws[0], 10, 10};
      node.attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
      node.attrs.set("group", p.groups);
    }
    Array x = random_array(u8, xs, rng), wa = random_array(s8, ws, rng);
    Array xz = random_array(u8, {1}, rng);
    std::vector<te::Tensor> inputs = {te::placeholder(xs, u8, "x"), te::placeholder(ws, s8, "w"),
                                      te::placeholder({1}, u8, "x_zero_point")};
    topi::ComputeContext ctx(node, inputs, {nullptr, nullptr, nullptr},
                             {{DType::UInt8, xs}, {DType::Int8, ws}, {DType::UInt8, {1}}},
                             {{DType::Int32, ys}}, "q");
    const topi::OpStrategy* strategy = topi::OpStrategyRegistry::global().find(node.op);
    QVERIFY(strategy && strategy->compute && strategy->tuning_template);
    te::Tensor anchor = strategy->compute(ctx)[0];
    te::Tensor out = te::compute(
        anchor.shape(),
        [&](const std::vector<te::Var>& i) {
          return anchor(std::vector<te::Expr>(i.begin(), i.end())) + 3;
        },
        "q_epilogue", {}, "elemwise");
    topi::SearchSpace space =
        strategy->tuning_template(anchor, {out}, codegen::Target::host().vector_unit());
    const codegen::Target host = codegen::Target::host();
    if (QString why = unrunnable(host); !why.isEmpty() && !depthwise) QSKIP(qPrintable(why));
    std::vector<int32_t> got = run(host, inputs, {x, wa, xz}, out, [&](schedule::Schedule& s) {
      space.apply(s, space.default_config);
    });
    std::vector<int32_t> want;
    if (matmul) {
      want = reference_matmul(x, wa, &xz, nullptr);
    } else if (depthwise) {
      for (int64_t ch = 0; ch < 8; ++ch) {
        Array xc{u8, {1, 1, 10, 10}, {}}, wc{s8, {1, 1, 3, 3}, {}};
        xc.values.assign(x.values.begin() + ch * 100, x.values.begin() + (ch + 1) * 100);
        wc.values.assign(wa.values.begin() + ch * 9, wa.values.begin() + (ch + 1) * 9);
        topi::Conv2dParams pc = p;
        pc.groups = 1;
        for (int32_t v : reference_conv(xc, wc, &xz, nullptr, pc)) want.push_back(v);
      }
    } else {
      want = reference_conv(x, wa, &xz, nullptr, p);
    }
    for (int32_t& v : want) v += 3;
    compare(got, want);
  }

  void depthwise() {
    std::mt19937 rng(5);
    const int64_t c = 6, h = 20, w = 20;
    Array x = random_array(DataType::Int(8), {1, c, h, w}, rng);
    Array wa = random_array(DataType::Int(8), {c, 1, 3, 3}, rng);
    Array xz = random_array(DataType::Int(8), {1}, rng);
    Array wz = random_array(DataType::Int(8), {c}, rng);
    topi::Conv2dParams p;
    p.groups = c;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    QuantOperand qx{te::placeholder(x.shape, x.dtype, "x"),
                    te::placeholder(xz.shape, xz.dtype, "xz")};
    QuantOperand qw{te::placeholder(wa.shape, wa.dtype, "w"),
                    te::placeholder(wz.shape, wz.dtype, "wz")};
    te::Tensor out = topi::depthwise_conv2d_integer(qx, qw, p);
    std::vector<int32_t> got =
        run(codegen::Target::host(), {qx.value, qw.value, qx.zero_point, qw.zero_point},
            {x, wa, xz, wz}, out,
            [&](schedule::Schedule& s) { topi::schedule_depthwise_conv2d_integer_x86(s, out); });
    // Depthwise is the conv of each channel with its own filter.
    for (int64_t ch = 0; ch < c; ++ch) {
      Array xc{x.dtype, {1, 1, h, w}, {}}, wc{wa.dtype, {1, 1, 3, 3}, {}}, wzc{wz.dtype, {1}, {}};
      xc.values.assign(x.values.begin() + ch * h * w, x.values.begin() + (ch + 1) * h * w);
      wc.values.assign(wa.values.begin() + ch * 9, wa.values.begin() + (ch + 1) * 9);
      wzc.values = {wz.values[static_cast<size_t>(ch)]};
      topi::Conv2dParams pc = p;
      pc.groups = 1;
      const std::vector<int32_t> want = reference_conv(xc, wc, &xz, &wzc, pc);
      const std::vector<int32_t> slice(got.begin() + ch * static_cast<int64_t>(want.size()),
                                       got.begin() + (ch + 1) * static_cast<int64_t>(want.size()));
      compare(slice, want);
    }
  }
};

QTEST_GUILESS_MAIN(TestInt8Kernels)
#include "tst_int8_kernels.moc"
