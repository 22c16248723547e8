// Benchmark of the int8 stem conv (StemConvInteger, topi/int8_stem.h)
// beside the packed conv it replaces (ConvIntegerNCHWc on the input padded
// to 4 channels, NCHW4c), each the conv group as a quantized model runs it:
// the product with its activation zero point's correction and the
// requantize epilogue (bias, scale, round, zero point, saturate to uint8), scheduled by
// the op's template at its default config. % of the machine's int8 peak
// counts the real channels (3 for RGB), as the model's work. The stem's
// product is checked against a scalar reference on a sample of outputs.
//   bench_int8_stem [--repeat N] [--sweep] [--asm]
//   --sweep: every config of the stem template's space, timed
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "runtime/thread_pool.h"
#include "schedule/schedule_text.h"
#include "support/machine_peak.h"
#include "support/timer.h"
#include "tir/lower.h"
#include "topi/int8.h"
#include "topi/int8_stem.h"
#include "topi/op_compute.h"

using namespace lathe;

namespace {

struct Layer {
  const char* name;
  int64_t c, oc, hw, k, stride;
};

// Stems of int8 CNNs (batch 1, pad k/2): ResNet's and GoogLeNet's 7x7/2,
// MobileNetV2's and RegNet's 3x3/2 (32 filters; the layout pass keeps it
// NCHW4c, which takes as many lanes: passes/int8_stem_layout.h), a
// grayscale 5x5/2.
const Layer kLayers[] = {
    {"7x7/2 C3 64", 3, 64, 224, 7, 2},
    {"3x3/2 C3 32", 3, 32, 224, 3, 2},
    {"5x5/2 C1 32", 1, 32, 224, 5, 2},
};

const te::DataType u8 = te::DataType::UInt(8), s8 = te::DataType::Int(8),
                   i32 = te::DataType::Int(32), f32 = te::DataType::Float(32);

struct Buffers {
  std::vector<std::unique_ptr<uint8_t, decltype(&std::free)>> owned;
  std::vector<void*> pointers;
  void* add(const te::Tensor& t, std::mt19937& rng) {
    size_t bytes = static_cast<size_t>(t.dtype().bytes());
    for (int64_t d : t.shape()) bytes *= static_cast<size_t>(d);
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    auto* b = static_cast<uint8_t*>(p);
    for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(rng());
    if (t.dtype() == f32)
      for (size_t i = 0; i < bytes / 4; ++i) static_cast<float*>(p)[i] = 0.001f;
    owned.emplace_back(b, &std::free);
    pointers.push_back(p);
    return p;
  }
};

// The fastest of `repeat` runs after two warm-up runs: on a shared machine
// the other loads only ever slow a run down, so the minimum is what the
// kernel itself takes (the median moves with the load).
double time_kernel(const codegen::CompiledKernel& k, const std::vector<void*>& buffers,
                   int repeat) {
  for (int i = 0; i < 2; ++i) k.run(buffers);
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    Timer timer;
    k.run(buffers);
    t.push_back(timer.seconds());
  }
  return *std::min_element(t.begin(), t.end());
}

// The requantize epilogue of a [N, OC/16, OH, OW, 16] int32 anchor.
te::Tensor requantize(const te::Tensor& anchor, const te::Tensor& bias, const te::Tensor& scale) {
  return te::compute(
      anchor.shape(),
      [&](const std::vector<te::Var>& i) {
        // As QuantizeLinear computes a requantization (a bounded input):
        // rounded, the zero point added, clamped in integers.
        te::Expr v = te::cast(f32, anchor(i[0], i[1], i[2], i[3], i[4]) + bias(i[1], i[4]));
        te::Expr q = te::cast(i32, te::round(v * scale(i[1], i[4]))) + te::make_const(i32, 3);
        return te::cast(u8, te::max(te::min(q, te::make_const(i32, 255)), te::make_const(i32, 0)));
      },
      "requantize");
}

struct Group {
  std::vector<te::Tensor> args;
  topi::SearchSpace space;
  te::Tensor output;
};

Group make_group(const char* op, const te::Tensor& anchor, std::vector<te::Tensor> inputs,
                 int64_t ocb) {
  const te::Tensor bias = te::placeholder({ocb, 16}, i32, "bias");
  const te::Tensor scale = te::placeholder({ocb, 16}, f32, "scale");
  Group g;
  g.output = requantize(anchor, bias, scale);
  inputs.insert(inputs.end(), {bias, scale, g.output});
  g.args = std::move(inputs);
  g.space = topi::OpStrategyRegistry::global().find(op)->template_for("llvm")(
      anchor, {g.output}, codegen::Target::host().vector_unit());
  return g;
}

struct Run {
  double seconds = 0;
  std::string assembly;
};

Run run_group(const Group& g, const topi::Config& config, Buffers& buffers, int repeat,
              bool want_asm) {
  schedule::Schedule s({g.output.op()});
  g.space.apply(s, config);
  tir::LoweredFunc f = tir::lower(s, g.args, "kernel", {.record_ir = false});
  Run r;
  if (want_asm) r.assembly = codegen::emit_assembly({f.func}, codegen::Target::host());
  codegen::CompiledKernel kernel = codegen::jit_compile(f.func, codegen::Target::host());
  r.seconds = time_kernel(kernel, buffers.pointers, repeat);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 30;
  bool sweep = false, want_asm = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--sweep")) {
      sweep = true;
    } else if (!std::strcmp(argv[i], "--asm")) {
      want_asm = true;
    } else {
      std::fprintf(stderr, "usage: bench_int8_stem [--repeat N] [--sweep] [--asm]\n");
      return 2;
    }
  }
  const int threads = runtime::default_num_threads();
  const PeakInt8 int8 = measure_peak_int8(threads);
  std::printf("threads %d; peak int8 %.1f GOPS (%s)\n", threads, int8.gops_all_cores, int8.isa);
  std::printf("%-13s %10s %8s %10s %8s %8s  %s\n", "layer", "NCHW4c ms", "%int8pk", "stem ms",
              "%int8pk", "speedup", "stem config");
  std::mt19937 rng(1);
  bool wrong = false;
  for (const Layer& l : kLayers) {
    const int64_t pad = l.k / 2, ocb = l.oc / 16;
    const int64_t out = (l.hw + 2 * pad - l.k) / l.stride + 1;
    const double ops = 2.0 * static_cast<double>(l.c * l.oc * l.k * l.k * out * out);
    topi::Conv2dParams p;
    p.stride_h = p.stride_w = l.stride;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
    const te::Tensor xz = te::placeholder({1}, u8, "x_zero_point");
    const te::Tensor w_sum = te::placeholder({ocb, 16}, i32, "w_sum");

    // Today's: NCHW4c, the 4th channel the zero point.
    const te::Tensor data = te::placeholder({1, 1, l.hw, l.hw, 4}, u8, "data");
    const te::Tensor weights = te::placeholder({ocb, 1, l.k, l.k, 1, 16, 4}, s8, "weights");
    const te::Tensor packed_anchor =
        topi::conv2d_integer_packed({data, xz}, {weights, {}}, w_sum, p, "conv").output;
    Group packed = make_group("ConvIntegerNCHWc", packed_anchor, {data, weights, w_sum, xz}, ocb);
    Buffers bp;
    for (const te::Tensor& t : packed.args) bp.add(t, rng);
    const double tp = run_group(packed, packed.space.default_config, bp, repeat, false).seconds;

    // The stem: NCHW data, copied into padded NHWC rows by the kernel.
    StemConvGeometry g;
    g.channels = l.c;
    g.height = g.width = l.hw;
    g.kernel_h = g.kernel_w = l.k;
    g.stride_h = g.stride_w = l.stride;
    g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = pad;
    const te::Tensor x_nchw = te::placeholder({1, l.c, l.hw, l.hw}, u8, "x");
    const te::Tensor w_stem = te::placeholder({ocb, l.k, g.quads(), 16, 4}, s8, "weights");
    const topi::Int8Kernel stem = topi::stem_conv2d_integer({x_nchw, xz}, {w_stem, {}}, w_sum, g);
    Group sg = make_group("StemConvInteger", stem.output, {x_nchw, w_stem, w_sum, xz}, ocb);
    Buffers bs;
    for (const te::Tensor& t : sg.args) bs.add(t, rng);
    const Run rs = run_group(sg, sg.space.default_config, bs, repeat, want_asm);

    // Spot check: the stem's anchor (the product corrected, before the
    // requantization) at `config`, tiled as the group, against scalar sums.
    auto check = [&](const topi::Config& config) {
      schedule::Schedule s({stem.output.op()});
      topi::SearchSpace space = topi::stem_conv2d_int8_template(stem);
      space.apply(s, config);
      const std::vector<te::Tensor> args = {x_nchw, w_stem, w_sum, xz, stem.output};
      tir::LoweredFunc f = tir::lower(s, args, "kernel", {.record_ir = false});
      codegen::CompiledKernel kernel = codegen::jit_compile(f.func, codegen::Target::host());
      Buffers b;
      for (const te::Tensor& t : args) b.add(t, rng);
      kernel.run(b.pointers);
      const auto* d = static_cast<const uint8_t*>(b.pointers[0]);
      const auto* w = static_cast<const int8_t*>(b.pointers[1]);
      const auto* ws = static_cast<const int32_t*>(b.pointers[2]);
      const int32_t z = *static_cast<const uint8_t*>(b.pointers[3]);
      const auto* o = static_cast<const int32_t*>(b.pointers[4]);
      for (int trial = 0; trial < 64; ++trial) {
        const int64_t oc = static_cast<int64_t>(rng() % static_cast<unsigned>(l.oc));
        const int64_t y = static_cast<int64_t>(rng() % static_cast<unsigned>(out));
        const int64_t x = static_cast<int64_t>(rng() % static_cast<unsigned>(out));
        int32_t acc = 0;
        for (int64_t ky = 0; ky < l.k; ++ky)
          for (int64_t j = 0; j < 4 * g.quads(); ++j) {
            // Byte j of the window's padded NHWC row, past KW·C too (the
            // random weights there are not zero): the zero point outside x.
            const int64_t iy = y * l.stride + ky - pad, ix = x * l.stride + j / l.c - pad;
            const int32_t v = iy < 0 || iy >= l.hw || ix < 0 || ix >= l.hw
                                  ? z
                                  : d[((j % l.c) * l.hw + iy) * l.hw + ix];
            acc += v * w[(((oc / 16 * l.k + ky) * g.quads() + j / 4) * 16 + oc % 16) * 4 + j % 4];
          }
        acc -= z * ws[oc];
        const int32_t got = o[(((oc / 16) * out + y) * out + x) * 16 + oc % 16];
        if (got != acc) {
          std::printf("%s: WRONG at oc %lld y %lld x %lld: %d, expected %d (%s)\n", l.name,
                      static_cast<long long>(oc), static_cast<long long>(y),
                      static_cast<long long>(x), got, acc, space.describe(config).c_str());
          wrong = true;
          return;
        }
      }
    };
    check(sg.space.default_config);
    const double peak = int8.gops_all_cores;
    std::printf("%-13s %10.3f %7.1f%% %10.3f %7.1f%% %7.2fx  %s\n", l.name, tp * 1e3,
                100 * ops / tp / 1e9 / peak, rs.seconds * 1e3, 100 * ops / rs.seconds / 1e9 / peak,
                tp / rs.seconds, sg.space.describe(sg.space.default_config).c_str());
    if (want_asm) std::printf("%s\n", rs.assembly.c_str());
    if (sweep) {
      // Every point of the stem's space (a mixed-radix count over the knobs).
      topi::Config c(sg.space.knobs.size(), 0);
      for (;;) {
        if (sg.space.valid(c)) {
          check(c);
          const double t = run_group(sg, c, bs, repeat, false).seconds;
          std::printf("    %-50s %8.3f ms %6.1f%%\n", sg.space.describe(c).c_str(), t * 1e3,
                      100 * ops / t / 1e9 / peak);
        }
        size_t i = 0;
        while (i < c.size() && ++c[i] == static_cast<int>(sg.space.knobs[i].options.size()))
          c[i++] = 0;
        if (i == c.size()) break;
      }
    }
  }
  std::printf(
      "NCHW4c: ConvIntegerNCHWc on the input padded to 4 channels; stem: StemConvInteger (its copy "
      "into padded NHWC rows included); both with the activation zero point's correction and the "
      "requantize "
      "epilogue; %% of the int8 peak counts the real channels\n");
  return wrong ? 1 : 0;
}
