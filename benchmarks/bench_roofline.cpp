// The roofline of this machine and of a handful of kernels: the measured
// bandwidth of each cache level and DRAM beside the FMA peak, then for each
// kernel (TOPI computes under their default schedules) its measured time,
// GFLOPS, DRAM GB/s, arithmetic intensity per level, the roof, % of roof and
// the bound, as the model over the loop IR (tir/analysis/memory_traffic)
// estimates them for a warm cache (each timed run follows another). Last, the Spearman rank
// correlation between the model's estimated time and the measured one over these kernels.
//
// With --models DIR, the kernels are instead those of every model in DIR (the
// zoo: tools/models/export_models.py DIR --set all), compiled with their
// default schedules and profiled inside their models' graph executor, the
// estimate being the cold one `lathe run --profile` shows
// (driver/kernel_roofline); the correlation is then over every kernel run of
// every model, and per model (each kernel's time the median of five
// profiles of N runs). --marks lists, for each model's slowest
// kernels, the loops the Schedule tab marks (driver/loop_costs) and why;
// --classes sums the kernels by operator class (operator_class.h): their
// time, its share, and their % of roof weighted by time, with the worst.
//   bench_roofline [--repeat N] [--models DIR [--only NAME] [--marks] [--classes]]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <thread>

#include "codegen/codegen.h"
#include "driver/compiled_module.h"
#include "driver/kernel_roofline.h"
#include "driver/loop_costs.h"
#include "driver/model_loader.h"
#include "ir/tensor.h"
#include "operator_class.h"
#include "schedule/schedule.h"
#include "support/machine_peak.h"
#include "support/memory_bandwidth.h"
#include "support/roofline.h"
#include "support/timer.h"
#include "tir/analysis/flop_count.h"
#include "tir/analysis/memory_traffic.h"
#include "tir/lower.h"
#include "topi/default_schedule.h"
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"

using namespace lathe;

namespace {

const te::DataType kF32 = te::DataType::Float(32);

struct Kernel {
  std::string name;
  std::vector<te::Tensor> args;  // inputs, then the output
  std::function<void(schedule::Schedule&)> schedule;
};

Kernel elementwise_add(int64_t n, const VectorUnit& vu) {
  te::Tensor a = te::placeholder({n}, kF32, "A"), b = te::placeholder({n}, kF32, "B");
  te::Tensor c = te::compute(
      {n}, [&](const std::vector<te::Var>& i) { return a(i[0]) + b(i[0]); }, "C");
  int64_t bytes = n * 4;
  std::string size = bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MB"
                                        : std::to_string(bytes >> 10) + " KB";
  return {"add " + size + " per tensor", {a, b, c}, [vu](schedule::Schedule& s) {
            topi::apply_default_schedule(s, vu);
          }};
}

Kernel matmul(int64_t n, const VectorUnit& vu) {
  te::Tensor a = te::placeholder({n, n}, kF32, "A"), b = te::placeholder({n, n}, kF32, "B");
  te::Tensor c = topi::matmul(a, b);
  return {"matmul " + std::to_string(n) + "^3", {a, b, c}, [c, vu](schedule::Schedule& s) {
            topi::SearchSpace space = topi::matmul_template(c, {c}, vu);
            space.apply(s, space.default_config);
          }};
}

// NCHW[lanes]c conv on a size x size image, channels in and out, as the
// layout pass would give it; depthwise when `depthwise`.
Kernel conv(const std::string& name, int64_t channels, int64_t size, int64_t k, bool depthwise,
            const VectorUnit& vu) {
  const int64_t lanes = vu.lanes();
  te::Tensor data = te::placeholder({1, channels / lanes, size, size, lanes}, kF32, "data");
  te::Tensor kernel =
      depthwise ? te::placeholder({channels / lanes, 1, k, k, 1, lanes}, kF32, "kernel")
                : te::placeholder({channels / lanes, channels / lanes, k, k, lanes, lanes}, kF32,
                                  "kernel");
  topi::Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k / 2;
  if (depthwise) p.groups = channels;
  te::Tensor out = topi::conv2d_nchwc(data, kernel, p, "conv");
  return {name, {data, kernel, out}, [out, vu](schedule::Schedule& s) {
            topi::SearchSpace space = topi::conv2d_nchwc_template(out, {out}, vu);
            space.apply(s, space.default_config);
          }};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Ranks from 1, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (i + j) / 2.0 + 1;
    i = j + 1;
  }
  return r;
}

// Spearman's rho: Pearson's correlation of the ranks.
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> rx = ranks(x), ry = ranks(y);
  double n = static_cast<double>(x.size());
  double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

// Each kernel's time as the median of kProfileRounds profiles of `repeat`
// runs each: on a shared machine one round can catch another process on a
// core, and a mean over one round swung classes by 2x between runs.
constexpr int kProfileRounds = 5;

std::vector<runtime::KernelProfile> median_profile(runtime::GraphExecutor& exec, int repeat) {
  std::vector<std::vector<runtime::KernelProfile>> rounds;
  for (int r = 0; r < kProfileRounds; ++r) rounds.push_back(exec.profile(repeat));
  std::vector<runtime::KernelProfile> out = rounds.front();
  for (size_t k = 0; k < out.size(); ++k) {
    std::vector<double> times;
    for (const auto& round : rounds) times.push_back(round[k].time_us);
    out[k].time_us = median(times);
  }
  return out;
}

// The zoo's kernels: each model's default compile, profiled in its executor.
// One operator class over the zoo: its kernel runs' time and roof.
struct ClassTotals {
  int runs = 0;
  double time_us = 0, roof_weighted = 0;  // sum of time x % of roof
  double worst_percent = 1e30;
  std::string worst;  // "model: kernel"
};

void print_classes(const std::map<std::string, ClassTotals>& classes) {
  double total = 0;
  for (const auto& [_, c] : classes) total += c.time_us;
  std::vector<std::pair<std::string, ClassTotals>> rows(classes.begin(), classes.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.time_us > b.second.time_us; });
  std::printf("\n%-26s %6s %10s %7s %10s  %s\n", "operator class", "runs", "time ms", "share",
              "% of roof", "worst (% of roof)");
  for (const auto& [name, c] : rows)
    std::printf("%-26s %6d %10.2f %6.1f%% %9.1f%%  %.1f%% %s\n", name.c_str(), c.runs,
                c.time_us * 1e-3, 100 * c.time_us / total, c.roof_weighted / c.time_us,
                c.worst_percent, c.worst.c_str());
}

int zoo_correlation(const std::string& dir, const std::string& only, bool marks, bool classes,
                    int repeat) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) {
    std::fprintf(stderr,
                 "bench_roofline: no folder %s; export the zoo with "
                 "'/usr/bin/python3 tools/models/export_models.py %s --set all'\n",
                 dir.c_str(), dir.c_str());
    return 2;
  }
  std::vector<fs::path> models;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".onnx" &&
        (only.empty() || entry.path().stem().string().find(only) != std::string::npos))
      models.push_back(entry.path());
  std::sort(models.begin(), models.end());

  const codegen::Target target = codegen::Target::host();
  // Measured in this run, as the kernels are: the ratios compare like with like.
  const driver::MachineRoof machine = driver::measure_machine_roof(driver::this_machine());
  const driver::LoopCostMachine loop_machine =
      driver::loop_cost_machine(machine, target.vector_unit());
  std::printf("peak %.1f GFLOPS on %d threads; GB/s read", machine.peak_gflops,
              machine.bandwidth.threads);
  for (const BandwidthLevel& l : machine.bandwidth.levels)
    std::printf(" %s %.1f", l.name.c_str(), l.read_gbps);
  std::printf("\n\n%-24s %8s %10s %10s %8s\n", "model", "kernels", "measured", "model", "rho");

  std::vector<double> measured, estimated;
  std::map<std::string, ClassTotals> by_class;
  for (const fs::path& path : models) {
    const Graph graph = driver::load_model(path.string());
    const driver::CompiledGraph compiled = driver::compile_graph(graph);
    driver::JitGraphModule module(compiled, target);
    runtime::GraphExecutor& exec = module.executor();
    exec.run();  // warm-up
    const std::vector<driver::KernelRoofline> rows =
        driver::kernel_rooflines(compiled, median_profile(exec, repeat), machine);
    std::vector<double> model_measured, model_estimated;
    for (const driver::KernelRoofline& r : rows) {
      if (r.roof.bound.empty() || r.profile.time_us <= 0) continue;
      model_measured.push_back(r.profile.time_us * 1e-6);
      model_estimated.push_back(r.roof.estimated_seconds);
    }
    for (const driver::KernelRoofline& r : rows) {
      if (!classes || r.roof.bound.empty() || r.profile.time_us <= 0) continue;
      for (const driver::KernelTask& task : compiled.tasks) {
        if (task.func_name != r.profile.func_name || task.groups.empty()) continue;
        const passes::OptimizedGraph& opt = compiled.optimized;
        ClassTotals& c = by_class[bench::operator_class(
            opt.graph, opt.groups[static_cast<size_t>(task.groups.front())])];
        ++c.runs;
        c.time_us += r.profile.time_us;
        c.roof_weighted += r.profile.time_us * r.percent_of_roof;
        if (r.percent_of_roof < c.worst_percent) {
          c.worst_percent = r.percent_of_roof;
          c.worst = path.stem().string() + ": " + r.profile.func_name;
        }
        break;
      }
    }
    const double sum_measured = std::accumulate(model_measured.begin(), model_measured.end(), 0.0);
    const double sum_estimated =
        std::accumulate(model_estimated.begin(), model_estimated.end(), 0.0);
    std::printf("%-24s %8zu %8.2f ms %8.2f ms %8.3f\n", path.stem().string().c_str(),
                model_measured.size(), sum_measured * 1e3, sum_estimated * 1e3,
                spearman(model_estimated, model_measured));
    measured.insert(measured.end(), model_measured.begin(), model_measured.end());
    estimated.insert(estimated.end(), model_estimated.begin(), model_estimated.end());

    if (marks) {
      // The slowest kernels, each once, with the loops the Schedule tab marks.
      std::vector<driver::KernelRoofline> slowest = rows;
      std::stable_sort(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) {
        return a.profile.time_us > b.profile.time_us;
      });
      std::vector<std::string> shown;
      for (const driver::KernelRoofline& r : slowest) {
        if (shown.size() == 5) break;
        if (std::find(shown.begin(), shown.end(), r.profile.func_name) != shown.end()) continue;
        shown.push_back(r.profile.func_name);
        for (size_t i = 0; i < compiled.tasks.size(); ++i) {
          if (compiled.tasks[i].func_name != r.profile.func_name) continue;
          std::printf("    %-40s %9.1f us  %5.1f%% of roof  %s-bound\n",
                      r.profile.func_name.c_str(), r.profile.time_us, r.percent_of_roof,
                      r.roof.bound.c_str());
          for (const driver::LoopNote& loop :
               driver::annotated_loop_ir(compiled.funcs[i], loop_machine).loops)
            if (!loop.spill_reason.empty())
              std::printf("      line %d, for %s (%s): %s\n", loop.line + 1,
                          loop.cost.loop_var.c_str(), loop.note.c_str(), loop.spill_reason.c_str());
        }
      }
    }
    std::fflush(stdout);
  }
  std::printf(
      "\nSpearman rank correlation, model's estimated time vs measured (%zu kernel runs of %zu "
      "models): %.3f\n",
      measured.size(), models.size(), spearman(estimated, measured));
  if (classes) print_classes(by_class);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 20;
  std::string models, only;
  bool marks = false, classes = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--models") && i + 1 < argc) {
      models = argv[++i];
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--marks")) {
      marks = true;
    } else if (!std::strcmp(argv[i], "--classes")) {
      classes = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_roofline [--repeat N] [--models DIR [--only NAME] [--marks] "
                   "[--classes]]\n");
      return 2;
    }
  }
  try {
    if (!models.empty()) return zoo_correlation(models, only, marks, classes, repeat);
    int threads = static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("LATHE_NUM_THREADS")) threads = std::atoi(env);
    codegen::Target target = codegen::Target::host();
    VectorUnit vu = target.vector_unit();

    PeakFlops peak = measure_peak_flops(threads);
    Timer bw_timer;
    MemoryBandwidth mb = measure_memory_bandwidth(threads);
    std::printf("peak fp32 FMA (%d-bit vectors): %.1f GFLOPS on %d threads\n", peak.vector_bits,
                peak.gflops_all_cores, threads);
    std::printf("memory bandwidth (%d threads, %d-bit vectors, measured in %.2f s):\n", mb.threads,
                mb.vector_bits, bw_timer.seconds());
    std::printf("  %-5s %12s %8s %12s %10s %12s\n", "level", "capacity", "shared", "working set",
                "read GB/s", "read+write");
    // The register file is the innermost "cache": what misses it, L1 serves.
    std::vector<int64_t> capacities = {vu.bits / 8 * vu.registers};
    for (const BandwidthLevel& l : mb.levels) {
      std::printf("  %-5s %10lld K %8d %10lld K %10.1f %12.1f\n", l.name.c_str(),
                  static_cast<long long>(l.capacity_bytes >> 10), l.shared_by_cpus,
                  static_cast<long long>(l.working_set_bytes >> 10), l.read_gbps,
                  l.read_write_gbps);
      if (l.name != "DRAM") capacities.push_back(l.capacity_bytes);
    }

    std::vector<Kernel> kernels = {
        elementwise_add(16 << 20, vu),
        elementwise_add(64 << 10, vu),
        matmul(512, vu),
        matmul(1024, vu),
        conv("conv3x3 64ch 56x56", 64, 56, 3, false, vu),
        conv("conv1x1 256ch 28x28", 256, 28, 1, false, vu),
        conv("dwconv3x3 256ch 28x28", 256, 28, 3, true, vu),
        conv("dwconv3x3 32ch 112x112", 32, 112, 3, true, vu),
    };
    std::printf("\n%-24s %9s %9s %8s %29s %9s %7s %-8s %9s\n", "kernel", "time ms", "GFLOPS",
                "DRAM GB/s", "intensity L1/L2/L3/DRAM", "roof", "% roof", "bound", "model ms");
    std::vector<double> measured, estimated;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (Kernel& k : kernels) {
      schedule::Schedule sch({k.args.back().op()});
      k.schedule(sch);
      tir::PrimFunc func = tir::lower(sch, k.args, "kernel", {.record_ir = false}).func;
      codegen::CompiledKernel compiled = codegen::jit_compile(func, target);

      std::vector<lathe::Tensor> storage;
      std::vector<void*> buffers;
      for (const te::Tensor& t : k.args) {
        lathe::Tensor& s = storage.emplace_back(DType::Float32, t.shape());
        for (int64_t i = 0; i < s.numel(); ++i) s.data<float>()[i] = dist(rng);
        buffers.push_back(s.raw());
      }
      compiled.run(buffers);  // warm-up
      std::vector<double> times;
      for (int r = 0; r < repeat; ++r) {
        Timer t;
        compiled.run(buffers);
        times.push_back(t.seconds());
      }
      double secs = median(times);

      double flops = tir::count_flops(func);
      // Warm: each timed run follows another run of the same kernel.
      std::vector<LevelTraffic> traffic = tir::memory_traffic(func, capacities, {.warm = true});
      Roofline roof = classify_roofline(flops, traffic, peak.gflops_all_cores, mb);
      double gflops = flops / secs / 1e9;
      char intensity[64];
      std::snprintf(intensity, sizeof intensity, "%.2g/%.2g/%.2g/%.2g",
                    roof.levels.size() > 0 ? roof.levels[0].intensity : 0,
                    roof.levels.size() > 1 ? roof.levels[1].intensity : 0,
                    roof.levels.size() > 2 ? roof.levels[2].intensity : 0,
                    roof.levels.back().intensity);
      std::printf("%-24s %9.3f %9.1f %8.1f %29s %9.1f %6.1f%% %-8s %9.3f\n", k.name.c_str(),
                  secs * 1e3, gflops, traffic.back().bytes() / secs / 1e9, intensity,
                  roof.roof_gflops, 100 * gflops / roof.roof_gflops, roof.bound.c_str(),
                  roof.estimated_seconds * 1e3);
      measured.push_back(secs);
      estimated.push_back(roof.estimated_seconds);
    }
    std::printf(
        "\nSpearman rank correlation, model's estimated time vs measured (%zu kernels): "
        "%.3f\n",
        measured.size(), spearman(estimated, measured));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_roofline: %s\n", e.what());
    return 1;
  }
  return 0;
}
