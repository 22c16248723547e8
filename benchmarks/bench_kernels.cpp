// Kernel-compiler benchmark: the machine's peak FP32 FMA throughput, then a
// 1024^3 float32 matmul under the hand-written schedule in
// benchmarks/schedules/matmul_1024.py (GFLOPS and fraction of peak, all cores),
// and the lowering and LLVM compile times of a conv2d schedule. Ratios come
// from one run, since these machines are shared and noisy.
//   bench_kernels [--schedules DIR] [--matmul-schedule FILE] [--repeat N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "codegen/codegen.h"
#include "ir/normalized_error.h"
#include "ir/tensor.h"
#include "schedule/schedule_text.h"
#include "support/machine_peak.h"
#include "support/timer.h"
#include "tir/lower.h"
#include "topi/nn.h"

using namespace lathe;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = LATHE_SCHEDULES_DIR;
  std::string matmul_schedule;
  int repeat = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--schedules") && i + 1 < argc)
      dir = argv[++i];
    else if (!std::strcmp(argv[i], "--matmul-schedule") && i + 1 < argc)
      matmul_schedule = argv[++i];
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else {
      std::fprintf(
          stderr, "usage: bench_kernels [--schedules DIR] [--matmul-schedule FILE] [--repeat N]\n");
      return 2;
    }
  }
  try {
    int threads = static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("LATHE_NUM_THREADS")) threads = std::atoi(env);
    PeakFlops peak = measure_peak_flops(threads);
    std::printf("peak fp32 FMA (%d-bit vectors): %.1f GFLOPS per core, %.1f GFLOPS on %d threads\n",
                peak.vector_bits, peak.gflops_per_core, peak.gflops_all_cores, threads);

    // --- matmul 1024^3 under the checked-in schedule ---------------------------
    const int64_t n = 1024;
    te::Tensor a = te::placeholder({n, n}, te::DataType::Float(32), "A");
    te::Tensor b = te::placeholder({n, n}, te::DataType::Float(32), "B");
    te::Tensor c = topi::matmul(a, b);
    if (matmul_schedule.empty()) matmul_schedule = dir + "/matmul_1024.py";
    std::printf("matmul schedule: %s\n", matmul_schedule.c_str());
    auto sch = schedule::parse_schedule(read_text(matmul_schedule), {{"A", a}, {"B", b}, {"C", c}});
    Timer t;
    tir::LoweredFunc lowered = tir::lower(*sch, {a, b, c}, "matmul", {.record_ir = false});
    double lower_ms = t.milliseconds();
    t.restart();
    codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, codegen::Target::host());
    double compile_ms = t.milliseconds();

    Tensor ta(DType::Float32, {n, n}), tb(DType::Float32, {n, n}), tc(DType::Float32, {n, n});
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (int64_t i = 0; i < n * n; ++i) {
      ta.data<float>()[i] = dist(rng);
      tb.data<float>()[i] = dist(rng);
    }
    std::vector<void*> buffers = {ta.raw(), tb.raw(), tc.raw()};
    kernel.run(buffers);  // warm-up
    // Each run is paired with a peak measurement taken just before it, so that
    // a slow phase of the shared machine shows in both and the ratio stays fair.
    std::vector<double> times, fractions;
    for (int r = 0; r < repeat; ++r) {
      double round_peak = measure_peak_flops(threads, 1).gflops_all_cores;
      Timer run;
      kernel.run(buffers);
      times.push_back(run.seconds());
      fractions.push_back(2.0 * n * n * n / times.back() / 1e9 / round_peak);
    }
    // Spot-check a few entries against a double-precision dot product.
    constexpr int kProbes = 16;
    Tensor probed(DType::Float32, {kProbes}), want(DType::Float32, {kProbes});
    for (int probe = 0; probe < kProbes; ++probe) {
      int64_t i = rng() % n, j = rng() % n;
      double ref = 0;
      for (int64_t k = 0; k < n; ++k)
        ref += double(ta.data<float>()[i * n + k]) * tb.data<float>()[k * n + j];
      probed.data<float>()[probe] = tc.data<float>()[i * n + j];
      want.data<float>()[probe] = static_cast<float>(ref);
    }
    // A wrong product fails the benchmark, as a wrong model fails bench_models.
    const double error = normalized_error(probed, want);
    if (!(error <= 1e-4)) {
      std::fprintf(stderr,
                   "bench_kernels: matmul is wrong: normalized error %.2e over %d probed entries "
                   "(above 1e-4)\n",
                   error, kProbes);
      return 1;
    }
    double secs = median(times);
    double best = *std::min_element(times.begin(), times.end());
    double gflops = 2.0 * n * n * n / secs / 1e9;
    double best_gflops = 2.0 * n * n * n / best / 1e9;
    std::printf(
        "matmul 1024x1024x1024: median %.2f ms, %.1f GFLOPS, %.1f%% of peak (%d threads); "
        "best %.1f GFLOPS; normalized error %.2e\n",
        secs * 1e3, gflops, 100.0 * gflops / peak.gflops_all_cores, threads, best_gflops, error);
    std::printf("matmul fraction of the peak measured just before each run: median %.1f%%\n",
                100.0 * median(fractions));
    std::printf("matmul lowering %.1f ms, LLVM compile %.1f ms\n", lower_ms, compile_ms);

    // --- conv2d lowering and compile time ----------------------------------------
    te::Tensor x = te::placeholder({1, 64, 56, 56}, te::DataType::Float(32), "X");
    te::Tensor w = te::placeholder({64, 64, 3, 3}, te::DataType::Float(32), "W");
    topi::Conv2dParams p;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    te::Tensor conv = topi::conv2d_nchw(x, w, p);
    std::string conv_text = read_text(dir + "/conv2d_3x3.py");
    std::map<std::string, te::Tensor> env = {{"X", x}, {"W", w}, {"conv", conv}};
    for (const te::Tensor& in : conv.op().input_tensors()) env[in.name()] = in;
    std::vector<double> lower_times, compile_times;
    for (int r = 0; r < std::max(3, repeat / 2); ++r) {
      auto cs = schedule::parse_schedule(conv_text, env);
      Timer lt;
      tir::LoweredFunc cf = tir::lower(*cs, {x, w, conv}, "conv2d", {.record_ir = false});
      lower_times.push_back(lt.milliseconds());
      Timer ct;
      codegen::CompiledKernel ck = codegen::jit_compile(cf.func, codegen::Target::host());
      compile_times.push_back(ct.milliseconds());
    }
    std::printf(
        "conv2d 3x3 56x56x64: lowering %.2f ms (target <= 20), LLVM compile %.1f ms "
        "(target <= 300)\n",
        median(lower_times), median(compile_times));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_kernels: error: %s\n", e.what());
    return 1;
  }
}
