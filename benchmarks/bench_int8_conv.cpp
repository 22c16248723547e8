// Benchmark of the int8 conv kernels (core/topi/int8.h) on ResNet-18's
// convolutions and ResNet-50's 1x1 ones, beside the float32 conv of the same shape (the graph
// compiler's NCHWc default schedule): the tensorized kernel alone on packed
// operands (GOPS and % of the machine's int8 peak, vpdpbusd measured in the
// same run), the conv group as a quantized model runs it (ConvIntegerNCHWc
// and its requantize epilogue, % of the int8 peak), the whole ConvInteger
// as ONNX Runtime's U8S8 form gives it
// (uint8 activations with a zero point, int8 weights: packing, the
// product and the zero point's correction), and float32 (GFLOPS, % of the
// FMA peak). Warm cache, median of the repeats, LATHE_NUM_THREADS threads.
// Each int8 layer's result is checked against a scalar reference on a
// sample of outputs.
//   bench_int8_conv [--repeat N] [--print-schedule] [--asm LAYER] [--only TEXT]
//                   [--configs] [--sweep]
// --only: the layers whose name contains TEXT; --configs: the group's
// template and default config; --sweep: the group's time at every point of
// its template's space (the fastest run; slow: one compile per point).
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
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"
#include "topi/op_compute.h"

using namespace lathe;

namespace {

struct Layer {
  const char* name;
  int64_t c, oc, hw, k, stride;
};

// ResNet-18's convolutions (batch 1).
const Layer kLayers[] = {
    {"conv1 7x7/2", 3, 64, 224, 7, 2},
    {"layer1 3x3", 64, 64, 56, 3, 1},
    {"layer2.0 3x3/2", 64, 128, 56, 3, 2},
    {"layer2 3x3", 128, 128, 28, 3, 1},
    {"layer2.ds 1x1/2", 64, 128, 56, 1, 2},
    {"layer3.0 3x3/2", 128, 256, 28, 3, 2},
    {"layer3 3x3", 256, 256, 14, 3, 1},
    {"layer4.0 3x3/2", 256, 512, 14, 3, 2},
    {"layer4 3x3", 512, 512, 7, 3, 1},
    // ResNet-50's distinct 1x1 convolutions (torchvision: the stride on the
    // 3x3 conv, the downsample 1x1/2 beside it).
    {"r50 l1 64-64", 64, 64, 56, 1, 1},
    {"r50 l1 64-256", 64, 256, 56, 1, 1},
    {"r50 l1 256-64", 256, 64, 56, 1, 1},
    {"r50 l2.0 256-128", 256, 128, 56, 1, 1},
    {"r50 l2.ds 1x1/2", 256, 512, 56, 1, 2},
    {"r50 l2 128-512", 128, 512, 28, 1, 1},
    {"r50 l2 512-128", 512, 128, 28, 1, 1},
    {"r50 l3.0 512-256", 512, 256, 28, 1, 1},
    {"r50 l3.ds 1x1/2", 512, 1024, 28, 1, 2},
    {"r50 l3 256-1024", 256, 1024, 14, 1, 1},
    {"r50 l3 1024-256", 1024, 256, 14, 1, 1},
    {"r50 l4.0 1024-512", 1024, 512, 14, 1, 1},
    {"r50 l4.ds 1x1/2", 1024, 2048, 14, 1, 2},
    {"r50 l4 512-2048", 512, 2048, 7, 1, 1},
    {"r50 l4 2048-512", 2048, 512, 7, 1, 1},
};

struct Buffers {
  std::vector<std::unique_ptr<uint8_t, decltype(&std::free)>> owned;
  std::vector<void*> pointers;
  void* add(size_t bytes, std::mt19937& rng) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    auto* b = static_cast<uint8_t*>(p);
    for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(rng());
    owned.emplace_back(b, &std::free);
    pointers.push_back(p);
    return p;
  }
};

size_t bytes_of(const te::Tensor& t) {
  size_t n = static_cast<size_t>(t.dtype().bytes());
  for (int64_t d : t.shape()) n *= static_cast<size_t>(d);
  return n;
}

struct Built {
  codegen::CompiledKernel kernel;
  std::string schedule, assembly;
};

Built build(schedule::Schedule& s, const std::vector<te::Tensor>& args, bool want_asm) {
  tir::LoweredFunc f = tir::lower(s, args, "kernel", {.record_ir = false});
  Built b;
  b.schedule = schedule::print_schedule(s);
  if (want_asm) b.assembly = codegen::emit_assembly({f.func}, codegen::Target::host());
  b.kernel = codegen::jit_compile(f.func, codegen::Target::host());
  return b;
}

// Median seconds of `repeat` runs after two warm-up runs (`fastest`: the
// least, less disturbed by other processes on a shared machine).
double time_kernel(const codegen::CompiledKernel& k, const std::vector<void*>& buffers, int repeat,
                   bool fastest = false) {
  for (int i = 0; i < 2; ++i) k.run(buffers);
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    Timer timer;
    k.run(buffers);
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return fastest ? t.front() : t[t.size() / 2];
}

// The conv group as a quantized model runs it: ConvIntegerNCHWc on uint8
// NCHWc data (unpadded) and packed weights, then the requantization (bias,
// scale, saturate, round, zero point), scheduled by the op's template.
struct Group {
  std::vector<te::Tensor> args;
  te::Tensor output;
  topi::SearchSpace space;
};

Group conv_group(const te::Tensor& data, const te::Tensor& weights, const topi::Conv2dParams& p) {
  const te::DataType u8 = te::DataType::UInt(8), i32 = te::DataType::Int(32),
                     f32 = te::DataType::Float(32);
  const int64_t ocb = weights.shape()[0];
  const te::Tensor anchor =
      topi::conv2d_integer_packed({data, {}}, {weights, {}}, te::Tensor(), p, "conv").output;
  const te::Tensor bias = te::placeholder({1, ocb, 1, 1, 16}, i32, "bias");
  const te::Tensor scale = te::placeholder({1, ocb, 1, 1, 16}, f32, "scale");
  Group g;
  g.output = te::compute(
      anchor.shape(),
      [&](const std::vector<te::Var>& i) {
        te::Expr v = te::cast(f32, anchor(i[0], i[1], i[2], i[3], i[4]) +
                                       bias(i[0], i[1], te::make_int(0), te::make_int(0), i[4]));
        // As QuantizeLinear computes a requantization (saturate_round of a
        // bounded input): rounded, the zero point added, clamped.
        v = v * scale(i[0], i[1], te::make_int(0), te::make_int(0), i[4]);
        te::Expr q = te::cast(i32, te::round(v)) + te::make_const(i32, 3);
        return te::cast(u8, te::max(te::min(q, te::make_const(i32, 255)), te::make_const(i32, 0)));
      },
      "requantize");
  g.args = {data, weights, bias, scale, g.output};
  g.space = topi::OpStrategyRegistry::global()
                .find("ConvIntegerNCHWc")
                ->template_for("llvm")(anchor, {g.output}, codegen::Target::host().vector_unit());
  return g;
}

// The group's time (the fastest of the repeats) at every point of its
// space, in the order of the space's enumeration (the default config marked).
void sweep_group(const Group& group, const char* layer, double ops, double peak_gops,
                 const std::vector<void*>& buffers, int repeat) {
  const topi::SearchSpace& space = group.space;
  std::vector<size_t> index(space.knobs.size(), 0);
  for (;;) {
    topi::Config config;
    for (size_t i = 0; i < index.size(); ++i) config.push_back(static_cast<int>(index[i]));
    if (space.valid(config)) {
      schedule::Schedule s({group.output.op()});
      space.apply(s, config);
      const double t = time_kernel(build(s, group.args, false).kernel, buffers, repeat, true);
      std::printf("  sweep %s: %-60s %8.3f ms %6.1f%%%s\n", layer, space.describe(config).c_str(),
                  t * 1e3, 100 * ops / t / 1e9 / peak_gops,
                  config == space.default_config ? "  (default)" : "");
    }
    size_t k = 0;
    while (k < index.size() && ++index[k] == space.knobs[k].options.size()) index[k++] = 0;
    if (k == index.size()) break;
  }
}

int64_t input_block(int64_t c) {
  const int64_t d = topi::largest_divisor(c, 16);
  return d % 4 == 0 ? d : 4;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 20;
  bool print_schedule = false;
  std::string asm_layer, only;
  bool print_configs = false, sweep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--print-schedule")) {
      print_schedule = true;
    } else if (!std::strcmp(argv[i], "--asm") && i + 1 < argc) {
      asm_layer = argv[++i];
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--configs")) {
      print_configs = true;
    } else if (!std::strcmp(argv[i], "--sweep")) {
      sweep = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_int8_conv [--repeat N] [--print-schedule] [--asm LAYER] "
                   "[--only TEXT] [--configs] [--sweep]\n");
      return 2;
    }
  }
  const int threads = runtime::default_num_threads();
  const PeakFlops fp32 = measure_peak_flops(threads);
  const PeakInt8 int8 = measure_peak_int8(threads);
  std::printf("threads %d; peak fp32 %.1f GFLOPS (%d-bit FMA), int8 %.1f GOPS (%s)\n", threads,
              fp32.gflops_all_cores, fp32.vector_bits, int8.gops_all_cores, int8.isa);
  std::printf("%-17s %9s %7s %9s %8s %9s %7s %9s %7s %9s %8s %8s\n", "layer", "int8 ms", "GOPS",
              "%int8pk", "group ms", "%int8pk", "conv ms", "fp32 ms", "GFLOPS", "%fp32pk",
              "x kernel", "x group");
  std::mt19937 rng(1);
  const te::DataType u8 = te::DataType::UInt(8), s8 = te::DataType::Int(8),
                     f32 = te::DataType::Float(32);
  bool wrong = false;
  for (const Layer& l : kLayers) {
    if (!only.empty() && std::string(l.name).find(only) == std::string::npos) continue;
    const int64_t pad = l.k / 2;
    const int64_t out = (l.hw + 2 * pad - l.k) / l.stride + 1;
    const double ops = 2.0 * static_cast<double>(l.c * l.oc * l.k * l.k * out * out);
    topi::Conv2dParams p;
    p.stride_h = p.stride_w = l.stride;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;

    // The tensorized kernel on packed operands.
    const int64_t ib = input_block(l.c), cb = (l.c + ib - 1) / ib;
    te::Tensor data = te::placeholder({1, cb, l.hw + 2 * pad, l.hw + 2 * pad, ib}, u8, "data");
    te::Tensor weights = te::placeholder({l.oc / 16, cb, l.k, l.k, ib / 4, 16, 4}, s8, "weights");
    topi::Int8Kernel packed;
    packed.data = data;
    packed.weights = weights;
    packed.product = packed.output = topi::conv2d_nchwc_int8(data, weights, p, "conv_int8");
    topi::SearchSpace space = topi::conv2d_int8_template(packed);
    schedule::Schedule s8k({packed.output.op()});
    space.apply(s8k, space.default_config);
    Built int8_kernel = build(s8k, {data, weights, packed.output}, asm_layer == l.name);
    Buffers b8;
    for (const te::Tensor& t : {data, weights, packed.output}) b8.add(bytes_of(t), rng);
    const double t8 = time_kernel(int8_kernel.kernel, b8.pointers, repeat);
    // Spot check against the scalar sum.
    {
      const auto* d = static_cast<const uint8_t*>(b8.pointers[0]);
      const auto* w = static_cast<const int8_t*>(b8.pointers[1]);
      const auto* o = static_cast<const int32_t*>(b8.pointers[2]);
      const int64_t hp = l.hw + 2 * pad;
      for (int trial = 0; trial < 64; ++trial) {
        const int64_t oc = static_cast<int64_t>(rng() % static_cast<unsigned>(l.oc));
        const int64_t y = static_cast<int64_t>(rng() % static_cast<unsigned>(out));
        const int64_t x = static_cast<int64_t>(rng() % static_cast<unsigned>(out));
        int32_t acc = 0;
        for (int64_t c = 0; c < cb * ib; ++c)
          for (int64_t ky = 0; ky < l.k; ++ky)
            for (int64_t kx = 0; kx < l.k; ++kx) {
              const int64_t di =
                  (((c / ib) * hp + y * l.stride + ky) * hp + x * l.stride + kx) * ib + c % ib;
              const int64_t wi =
                  (((((oc / 16) * cb + c / ib) * l.k + ky) * l.k + kx) * (ib / 4) + (c % ib) / 4) *
                      64 +
                  (oc % 16) * 4 + c % 4;
              acc += static_cast<int32_t>(d[di]) * static_cast<int32_t>(w[wi]);
            }
        const int32_t got = o[(((oc / 16) * out + y) * out + x) * 16 + oc % 16];
        if (got != acc) {
          std::printf("%s: WRONG at oc %lld y %lld x %lld: %d, expected %d\n", l.name,
                      static_cast<long long>(oc), static_cast<long long>(y),
                      static_cast<long long>(x), got, acc);
          wrong = true;
          break;
        }
      }
    }

    // The conv group as the model runs it (product and requantize epilogue).
    te::Tensor group_data = te::placeholder({1, cb, l.hw, l.hw, ib}, u8, "data");
    Group group = conv_group(group_data, weights, p);
    schedule::Schedule sg({group.output.op()});
    group.space.apply(sg, group.space.default_config);
    Built group_kernel = build(sg, group.args, asm_layer == l.name);
    Buffers bg;
    for (const te::Tensor& t : group.args) {
      void* v = bg.add(bytes_of(t), rng);
      if (t.dtype() == f32)
        for (size_t i = 0; i < bytes_of(t) / 4; ++i) static_cast<float*>(v)[i] = 0.001f;
    }
    const double tg = time_kernel(group_kernel.kernel, bg.pointers, repeat);
    if (print_configs)
      std::printf("%s: group %s %s\n", l.name, group.space.name.c_str(),
                  group.space.describe(group.space.default_config).c_str());
    if (sweep) sweep_group(group, l.name, ops, int8.gops_all_cores, bg.pointers, repeat);

    // The whole ConvInteger, U8S8 with an activation zero point.
    topi::QuantOperand qx{te::placeholder({1, l.c, l.hw, l.hw}, u8, "x"),
                          te::placeholder({1}, u8, "x_zero_point")};
    topi::QuantOperand qw{te::placeholder({l.oc, l.c, l.k, l.k}, s8, "w"), {}};
    topi::Int8Kernel whole = topi::conv2d_integer_nchwc(qx, qw, p, ib);
    topi::SearchSpace whole_space = topi::conv2d_int8_template(whole);
    schedule::Schedule sw({whole.output.op()});
    whole_space.apply(sw, whole_space.default_config);
    Built conv = build(sw, {qx.value, qx.zero_point, qw.value, whole.output}, false);
    Buffers bw;
    for (const te::Tensor& t : {qx.value, qx.zero_point, qw.value, whole.output})
      bw.add(bytes_of(t), rng);
    const double tw = time_kernel(conv.kernel, bw.pointers, repeat);

    // float32, NCHWc, the compiler's default schedule.
    const int64_t xb = topi::largest_divisor(l.c, 16), ob = topi::largest_divisor(l.oc, 16);
    te::Tensor fd = te::placeholder({1, l.c / xb, l.hw, l.hw, xb}, f32, "data");
    te::Tensor fk = te::placeholder({l.oc / ob, l.c / xb, l.k, l.k, xb, ob}, f32, "kernel");
    te::Tensor fo = topi::conv2d_nchwc(fd, fk, p, "conv");
    topi::SearchSpace fspace =
        topi::conv2d_nchwc_template(fo, {fo}, codegen::Target::host().vector_unit());
    schedule::Schedule sf({fo.op()});
    fspace.apply(sf, fspace.default_config);
    Built f = build(sf, {fd, fk, fo}, false);
    Buffers bf;
    for (const te::Tensor& t : {fd, fk, fo}) {
      auto* v = static_cast<float*>(bf.add(bytes_of(t), rng));
      for (size_t i = 0; i < bytes_of(t) / 4; ++i) v[i] = static_cast<float>(rng() % 17) / 16.0f;
    }
    const double tf = time_kernel(f.kernel, bf.pointers, repeat);

    std::printf("%-17s %9.3f %7.1f %8.1f%% %8.3f %8.1f%% %7.3f %9.3f %7.1f %8.1f%% %8.2f %8.2f\n",
                l.name, t8 * 1e3, ops / t8 / 1e9, 100 * ops / t8 / 1e9 / int8.gops_all_cores,
                tg * 1e3, 100 * ops / tg / 1e9 / int8.gops_all_cores, tw * 1e3, tf * 1e3,
                ops / tf / 1e9, 100 * ops / tf / 1e9 / fp32.gflops_all_cores, tf / t8, tf / tg);
    if (print_schedule)
      std::printf("%s\ngroup: %s\n", int8_kernel.schedule.c_str(),
                  group.space.describe(group.space.default_config).c_str());
    if (asm_layer == l.name)
      std::printf("%s\n; the group (%s):\n%s\n", int8_kernel.assembly.c_str(),
                  group.space.name.c_str(), group_kernel.assembly.c_str());
  }
  std::printf(
      "int8 ms: the tensorized kernel on packed operands; group ms: ConvIntegerNCHWc with its "
      "requantize epilogue, as a quantized model runs it; conv ms: the whole NCHW ConvInteger "
      "(packing, product, zero-point correction); x kernel, x group: fp32 time over each\n");
  return wrong ? 1 : 0;
}
