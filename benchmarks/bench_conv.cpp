// Benchmark of the nn ops' x86 default schedules (core/topi/nn_schedule_x86.cpp)
// on ResNet-18's convolutions in the NCHWc layout (with bias, as the fused
// group compiles them), a MobileNetV2 depthwise layer and the transformer
// block's matrix products: GFLOPS and the fraction of the machine's peak FMA
// throughput measured just before each layer, on LATHE_NUM_THREADS threads.
// The timings are warm-cache: each layer runs back to back on the same
// buffers, so weights and activations that fit stay in cache (tuning and
// `lathe schedule --measure --cache-flush` time them cold). Each layer's
// output is checked against the reference executor's kernel for the same node
// and inputs: a layer off by more than 1e-5 (normalized) is marked WRONG in
// its row and fails the run once every layer is printed.
//   bench_conv [--repeat N] [--print-schedule] [--print-ir LAYER]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "codegen/codegen.h"
#include "ir/graph.h"
#include "ir/normalized_error.h"
#include "reference/executor.h"
#include "schedule/schedule_text.h"
#include "support/machine_peak.h"
#include "support/timer.h"
#include "tir/lower.h"
#include "topi/nn.h"
#include "topi/op_compute.h"

using namespace lathe;

namespace {

// The kernels' tolerance, as in the topi tests.
constexpr double kTolerance = 1e-5;

struct Layer {
  std::string name;
  std::string op;  // Conv2dNCHWc or MatMul
  Attributes attrs;
  std::vector<Shape> inputs;
  Shape output;
  double flops = 0;
};

Layer conv_layer(const std::string& name, int64_t c, int64_t oc, int64_t hw, int64_t k,
                 int64_t stride, int64_t group = 1) {
  const int64_t pad = k / 2;
  const int64_t cg = c / group;
  const int64_t xb = topi::largest_divisor(c, 16), ob = topi::largest_divisor(oc, 16);
  const int64_t ib = topi::largest_divisor(cg, 16);
  const int64_t out = (hw + 2 * pad - k) / stride + 1;
  Layer l;
  l.name = name;
  l.op = "Conv2dNCHWc";
  l.attrs.set("group", group);
  l.attrs.set("strides", std::vector<int64_t>{stride, stride});
  l.attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  l.attrs.set("dilations", std::vector<int64_t>{1, 1});
  l.inputs = {{1, c / xb, hw, hw, xb}, {oc / ob, cg / ib, k, k, ib, ob}, {oc / ob, ob}};
  l.output = {1, oc / ob, out, out, ob};
  l.flops = 2.0 * double(oc) * out * out * cg * k * k;
  return l;
}

Layer matmul_layer(const std::string& name, Shape a, Shape b) {
  Layer l;
  l.name = name;
  l.op = "MatMul";
  l.inputs = {a, b};
  Shape out = a;
  out.back() = b.back();
  l.output = out;
  double batch = 1;
  for (size_t d = 0; d + 2 < a.size(); ++d) batch *= double(a[d]);
  l.flops = 2.0 * batch * double(a[a.size() - 2]) * double(a.back()) * double(b.back());
  return l;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 20;
  bool print_schedule = false;
  std::string print_ir;  // layers whose name contains this print their final loop IR
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--print-schedule")) {
      print_schedule = true;
    } else if (!std::strcmp(argv[i], "--print-ir") && i + 1 < argc) {
      print_ir = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: bench_conv [--repeat N] [--print-schedule] [--print-ir LAYER]\n");
      return 2;
    }
  }
  try {
    int threads = static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("LATHE_NUM_THREADS")) threads = std::atoi(env);
    PeakFlops peak = measure_peak_flops(threads);
    std::printf("peak fp32 FMA (%d-bit vectors): %.1f GFLOPS per core, %.1f GFLOPS on %d threads\n",
                peak.vector_bits, peak.gflops_per_core, peak.gflops_all_cores, threads);

    std::vector<Layer> layers = {
        conv_layer("resnet18 conv1 7x7/2 3->64 224", 3, 64, 224, 7, 2),
        conv_layer("resnet18 3x3 64->64 56", 64, 64, 56, 3, 1),
        conv_layer("resnet18 3x3 128->128 28", 128, 128, 28, 3, 1),
        conv_layer("resnet18 3x3 256->256 14", 256, 256, 14, 3, 1),
        conv_layer("resnet18 3x3 512->512 7", 512, 512, 7, 3, 1),
        conv_layer("resnet18 1x1/2 64->128 56", 64, 128, 56, 1, 2),
        conv_layer("resnet18 1x1/2 256->512 14", 256, 512, 14, 1, 2),
        conv_layer("mobilenetv2 dw 3x3 144 56", 144, 144, 56, 3, 1, 144),
        conv_layer("mobilenetv2 dw 3x3/2 144 56", 144, 144, 56, 3, 2, 144),
        matmul_layer("transformer [64,256]x[256,768]", {64, 256}, {256, 768}),
        matmul_layer("transformer [4,64,64]x[4,64,64]", {4, 64, 64}, {4, 64, 64}),
    };
    std::printf("warm cache: each layer runs back to back on the same buffers\n");
    std::printf("\n%-34s %10s %10s %9s %11s %9s\n", "layer", "ms", "GFLOPS", "% peak", "compile ms",
                "error");
    int wrong = 0;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (const Layer& layer : layers) {
      Node node{"layer", layer.op, {}, {100}, layer.attrs};
      std::vector<te::Tensor> placeholders;
      std::vector<TensorType> types;
      for (size_t i = 0; i < layer.inputs.size(); ++i) {
        node.inputs.push_back(static_cast<ValueId>(i));
        placeholders.push_back(
            te::placeholder(layer.inputs[i], te::DataType::Float(32), "in" + std::to_string(i)));
        types.push_back({DType::Float32, layer.inputs[i]});
      }
      const topi::OpStrategy* strategy = topi::OpStrategyRegistry::global().find(layer.op);
      LATHE_CHECK(strategy && strategy->tuning_template, "no tuning template for ", layer.op);
      topi::ComputeContext ctx(node, placeholders, {}, types, {{DType::Float32, layer.output}},
                               "layer");
      std::vector<te::Tensor> outs = strategy->compute(ctx);
      schedule::Schedule sch({outs[0].op()});
      // The op's untuned schedule: its template's default config.
      const topi::SearchSpace space =
          strategy->tuning_template(outs[0], outs, codegen::Target::host().vector_unit());
      space.apply(sch, space.default_config);
      if (print_schedule)
        std::printf("# %s\n%s\n", layer.name.c_str(), schedule::print_schedule(sch).c_str());
      std::vector<te::Tensor> args = placeholders;
      args.push_back(outs[0]);
      Timer compile;
      const bool want_ir = !print_ir.empty() && layer.name.find(print_ir) != std::string::npos;
      tir::LoweredFunc lowered = tir::lower(sch, args, "layer", {.record_ir = want_ir});
      if (want_ir && !lowered.passes.empty())
        std::printf("# %s\n%s\n", layer.name.c_str(), lowered.passes.back().ir.c_str());
      codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, codegen::Target::host());
      const double compile_ms = compile.milliseconds();

      std::vector<Tensor> buffers;
      for (const Shape& s : layer.inputs) {
        buffers.emplace_back(DType::Float32, s);
        for (int64_t i = 0; i < buffers.back().numel(); ++i)
          buffers.back().data<float>()[i] = dist(rng);
      }
      buffers.emplace_back(DType::Float32, layer.output);
      std::vector<void*> pointers;
      for (Tensor& b : buffers) pointers.push_back(b.raw());
      kernel.run(pointers);  // warm-up, and the output checked
      const OpDef* reference_kernel = reference::kernel_registry().find(layer.op);
      LATHE_CHECK(reference_kernel, "no reference kernel for ", layer.op);
      std::vector<const Tensor*> inputs;
      for (size_t i = 0; i < layer.inputs.size(); ++i) inputs.push_back(&buffers[i]);
      const Tensor want =
          reference::run_node(*reference_kernel, node, inputs, {{DType::Float32, layer.output}})[0];
      const double error = normalized_error(buffers.back(), want);
      const bool off = !(error <= kTolerance);
      wrong += off;
      // Each round: the peak just before, then as many runs as fill ~20 ms.
      std::vector<double> times, fractions;
      for (int r = 0; r < repeat; ++r) {
        const double round_peak = measure_peak_flops(threads, 1).gflops_all_cores;
        int runs = 0;
        Timer t;
        do {
          kernel.run(pointers);
          ++runs;
        } while (t.seconds() < 0.02);
        times.push_back(t.seconds() / runs);
        fractions.push_back(layer.flops / times.back() / 1e9 / round_peak);
      }
      const double secs = median(times);
      std::printf("%-34s %10.3f %10.1f %8.1f%% %11.0f %9.1e%s\n", layer.name.c_str(), secs * 1e3,
                  layer.flops / secs / 1e9, 100.0 * median(fractions), compile_ms, error,
                  off ? "  WRONG" : "");
    }
    if (wrong) {
      std::fprintf(stderr,
                   "bench_conv: %d layer(s) WRONG: normalized error against the reference "
                   "above %.0e\n",
                   wrong, kTolerance);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_conv: error: %s\n", e.what());
    return 1;
  }
}
