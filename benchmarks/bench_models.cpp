// Whole-model benchmark: for each shared model, compile time, the median
// latency of >= 50 runs of the compiled graph executor on all cores,
// effective GOPS and fraction of the machine's peak measured in the same run
// (the ops of integer products against the int8 dot product's peak, the
// others against the FP32 FMA peak), the executor's memory, and the speed-up
// over the reference executor; the compiled outputs are checked against the model's
// reference outputs first (NAME.io.npz), and a model off by more than 1e-4
// (1e-3 for one that stores float16 or bfloat16 values), or without its
// reference inputs or output, fails the run.
// With ONNX Runtime set up (benchmarks/ort/setup.sh) it is timed on the same
// model, input and thread count, alternating with Lathe in two rounds (the
// better median of each), and the table gives Lathe / ONNX Runtime per model
// and their geometric mean. With the dnnl plugin built (plugins/dnnl), each
// model is also compiled with oneDNN running the chains it claims, checked
// and timed the same way: the "should I offload this conv?" column; then
// both builds are profiled, in alternating rounds, and a per-kernel table
// gives, for each group oneDNN claims, Lathe's kernel time and oneDNN's call
// for the same graph nodes (driver/group_match.h). Ratios come from one run:
// the machine is shared. --plugin loads plugins first (dnnl is tried anyway).
// With --tuning-records DIR, a model NAME with records DIR/NAME.json is also
// compiled with them, checked, and timed in the same alternation: the tuned
// build beside the untuned one and ONNX Runtime, with both geometric means.
// A quantized model (qdq_X, qdq_s8s8_X, qop_X, qdyn_X) whose float model is
// in the folder too (X, legacy_X or dynamo_X) has that one compiled beside it
// and timed right after each of its own timings, the same way: the "fp32 /
// int8" table is the speed-up of quantizing, measured on the same machine.
//   bench_models [--models DIR] [--runs N] [--only NAME] [--ort DIR | --no-ort]
//                [--plugin NAME[,NAME]] [--no-dnnl] [--tuning-records DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "driver/compiled_module.h"
#include "driver/group_match.h"
#include "driver/model_loader.h"
#include "driver/onnx_runtime.h"
#include "driver/plugins.h"
#include "driver/tensor_files.h"
#include "driver/tuning_records.h"
#include "frontend/onnx/onnx_import.h"
#include "ir/normalized_error.h"
#include "passes/external_codegen.h"
#include "reference/executor.h"
#include "support/machine_peak.h"
#include "support/timer.h"

using namespace lathe;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One group oneDNN claims (a match of driver::match_groups holding a call):
// Lathe's groups and oneDNN's nodes for the same graph nodes, µs per run.
struct KernelRow {
  std::string model, lathe_groups, dnnl_patterns, shape;
  double lathe_us = 0, dnnl_us = 0;
};

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : "+") + part;
  return text;
}

// Profiles both executors in alternating rounds (so load on the shared
// machine hits both alike) and pairs their nodes by the graph nodes they
// compute; rows for the matches that hold an external call.
std::vector<KernelRow> compare_kernels(const std::string& model, const driver::CompiledGraph& lathe,
                                       runtime::GraphExecutor& lathe_exec,
                                       const driver::CompiledGraph& offloaded,
                                       runtime::GraphExecutor& dnnl_exec, int runs) {
  constexpr int kRounds = 4;
  std::map<std::string, double> lathe_us, dnnl_us;
  std::map<std::string, std::vector<int64_t>> shape;
  const int per_round = std::max(1, runs / kRounds);
  for (int round = 0; round < kRounds; ++round) {
    for (const runtime::KernelProfile& p : lathe_exec.profile(per_round))
      lathe_us[p.node_name] += p.time_us / kRounds;
    for (const runtime::KernelProfile& p : dnnl_exec.profile(per_round)) {
      dnnl_us[p.node_name] += p.time_us / kRounds;
      shape[p.node_name] = p.shape;
    }
  }
  // The pattern each call ran, by executor node (its group).
  std::map<std::string, std::string> pattern;
  for (const passes::FusedGroup& group : offloaded.optimized.groups) {
    const Node& node = offloaded.optimized.graph.nodes[static_cast<size_t>(group.nodes.front())];
    if (node.op == passes::kExternalCallOp)
      pattern[group.name] = node.attrs.get_string("pattern", "");
  }
  std::vector<KernelRow> rows;
  for (const driver::MatchedGroups& match : driver::match_groups(lathe, offloaded)) {
    std::vector<std::string> patterns;
    for (const std::string& node : match.second)
      if (auto it = pattern.find(node); it != pattern.end()) patterns.push_back(it->second);
    if (patterns.empty()) continue;
    KernelRow row;
    row.model = model;
    row.lathe_groups = joined(match.first);
    row.dnnl_patterns = joined(patterns);
    for (const std::string& node : match.first) row.lathe_us += lathe_us[node];
    for (const std::string& node : match.second) row.dnnl_us += dnnl_us[node];
    row.shape = runtime::shape_to_string(shape[match.second.back()]);
    rows.push_back(row);
  }
  return rows;
}

// The errors start infinite: a build whose output was never compared with
// the reference (`unchecked` says why) counts as wrong, never as exact.
struct Row {
  std::string model, unchecked;
  double compile_ms = 0, median_ms = 0, gflops = 0, peak_fraction = 0, reference_ms = 0;
  double activation_mib = 0, param_mib = 0, error = INFINITY;
  double ort_ms = 0, ort_error = INFINITY;      // 0 ms: ONNX Runtime not timed
  double dnnl_ms = 0, dnnl_error = INFINITY;    // 0 ms: the dnnl plugin not timed
  double tuned_ms = 0, tuned_error = INFINITY;  // 0 ms: no records for the model
  double tuned_compile_ms = 0;
  std::string float_model;  // a quantized model's float one, timed beside it
  double float_ms = 0;      // 0: none
  // A model that stores values in float16 or bfloat16 matches its reference
  // (ONNX Runtime's own 16-bit run) to 16-bit precision only.
  double tolerance = 1e-4;
  int kernels = 0, groups = 0;
};

// Whether a kernel's work is int8 products (its anchor an integer conv or
// matmul): its operations count against the int8 peak (vpdpbusd), not the
// float one.
bool is_int8_task(const driver::KernelTask& task) {
  static const std::set<std::string> integer_products = {
      "ConvInteger",         "ConvIntegerNCHWc", "StemConvInteger", "MatMulInteger",
      "MatMulIntegerPacked", "QLinearConv",      "QLinearMatMul",   "com.microsoft.QGemm"};
  return std::any_of(task.ops.begin(), task.ops.end(),
                     [](const std::string& op) { return integer_products.count(op) > 0; });
}

// The float model a quantized one was made from, in the same folder: for
// qdq_X, qdq_s8s8_X, qop_X and qdyn_X the first of X, legacy_X and dynamo_X
// there (the names of the shared models and of tools/models' exports).
std::optional<fs::path> float_model_of(const fs::path& model) {
  const std::string name = model.stem().string();
  for (const std::string prefix : {"qdq_s8s8_", "qdq_", "qop_", "qdyn_"}) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string base = name.substr(prefix.size());
    for (const std::string exporter : {"", "legacy_", "dynamo_"}) {
      const fs::path candidate = model.parent_path() / (exporter + base + ".onnx");
      if (fs::exists(candidate)) return candidate;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// A model with the arrays of its NAME.io.npz (see the models' README),
// whose inputs give the dimensions the model leaves symbolic.
struct BenchModel {
  Graph graph;
  std::map<std::string, Tensor> io;
  fs::path npz;
};

BenchModel load_bench_model(const fs::path& model) {
  BenchModel m;
  m.npz = model.parent_path() / (model.stem().string() + ".io.npz");
  if (fs::exists(m.npz))
    for (auto& [name, t] : driver::read_npz_tensors(m.npz.string())) m.io[name] = t;
  driver::LoadOptions load;
  for (const auto& [name, t] : m.io) {
    load.input_arrays[name] = t.shape();
    load.input_values[name] = t;
  }
  const std::string stem = model.stem().string();
  load.note = [stem](const std::string& note) {
    std::printf("%s: note: %s\n", stem.c_str(), note.c_str());
  };
  m.graph = driver::load_model(model.string(), load);
  return m;
}

bool stores_16_bit_floats(const Graph& graph) {
  return std::any_of(graph.values.begin(), graph.values.end(),
                     [](const Value& v) { return is_storage_float(v.type.dtype); });
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = LATHE_MODELS_DIR;
  int runs = 50;
  std::string only, plugins;
  fs::path records_dir;
  fs::path ort_dir = driver::onnx_runtime_dir();
  bool ort = true, dnnl = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--models") && i + 1 < argc)
      dir = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(50, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!std::strcmp(argv[i], "--ort") && i + 1 < argc)
      ort_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--no-ort"))
      ort = false;
    else if (!std::strcmp(argv[i], "--no-dnnl"))
      dnnl = false;
    else if (!std::strcmp(argv[i], "--plugin") && i + 1 < argc)
      plugins = argv[++i];
    else if (!std::strcmp(argv[i], "--tuning-records") && i + 1 < argc)
      records_dir = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: bench_models [--models DIR] [--runs N>=50] [--only NAME] "
                   "[--ort DIR | --no-ort] [--plugin NAME[,NAME]] [--no-dnnl] "
                   "[--tuning-records DIR]\n");
      return 2;
    }
  }
  if (!plugins.empty()) {
    try {
      driver::load_plugins(plugins);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_models: %s\n", e.what());
      return 2;
    }
  }
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (ort) {
    const std::string missing = driver::onnx_runtime_missing(ort_dir);
    if (!missing.empty()) {
      std::printf("ONNX Runtime is not timed: %s\n", missing.c_str());
      ort = false;
    }
  }
  if (dnnl) {
    try {
      driver::load_plugin("dnnl");
    } catch (const std::exception& e) {
      std::printf("oneDNN is not timed: %s\n", e.what());
      dnnl = false;
    }
  }
  // Lathe's own kernels for every op, whatever plugins are loaded.
  driver::CompileOptions lathe_only;
  lathe_only.passes.external_codegens = std::vector<std::string>{};
  std::vector<Row> rows;
  std::vector<KernelRow> kernel_rows;  // the groups oneDNN claims, every model's
  std::vector<fs::path> models;
  // "model: why": the importer's diagnostics, or the inputs it lacks.
  std::vector<std::string> not_benchmarked;
  if (!fs::is_directory(dir)) {
    std::fprintf(stderr,
                 "bench_models: no folder %s; export the models with "
                 "'cmake --build build --target lathe_test_models'\n",
                 dir.c_str());
    return 2;
  }
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".onnx" &&
        (only.empty() || entry.path().stem().string().find(only) != std::string::npos))
      models.push_back(entry.path());
  std::sort(models.begin(), models.end());
  try {
    for (const fs::path& model : models) {
      Row row;
      row.model = model.stem().string();
      // Reference inputs and outputs: NAME.io.npz. A model without its
      // inputs cannot run: it is reported, the others still run, and the run
      // fails. A model Lathe cannot import is reported the same way.
      BenchModel loaded;
      try {
        loaded = load_bench_model(model);
      } catch (const std::exception& e) {
        const std::string what = e.what();
        not_benchmarked.push_back(row.model + ": " + what);
        std::printf("%s: not benchmarked: %s\n", row.model.c_str(),
                    what.substr(0, what.find('\n')).c_str());
        continue;
      }
      const Graph& graph = loaded.graph;
      const std::map<std::string, Tensor>& io = loaded.io;
      const fs::path& npz = loaded.npz;
      if (stores_16_bit_floats(graph)) row.tolerance = 1e-3;

      Timer timer;
      driver::CompiledGraph compiled = driver::compile_graph(graph, lathe_only);
      driver::JitGraphModule module(compiled, codegen::Target::host());
      row.compile_ms = timer.milliseconds();
      // Subgraphs' kernels count; their FLOPs do not (which branch runs,
      // and how often a Loop's body does, is the run's).
      row.kernels = static_cast<int>(driver::all_tasks(compiled).size());
      row.groups = static_cast<int>(compiled.optimized.groups.size());
      int64_t flops = 0, int8_ops = 0;
      for (const driver::KernelTask& t : compiled.tasks) {
        const int64_t ops = t.flops * static_cast<int64_t>(t.groups.size());
        flops += ops;
        if (is_int8_task(t)) int8_ops += ops;
      }

      runtime::GraphExecutor& exec = module.executor();
      std::map<std::string, Tensor> inputs;
      std::string no_input;
      for (int i = 0; i < exec.num_inputs() && no_input.empty(); ++i) {
        auto it = io.find(exec.input_name(i));
        if (it == io.end()) {
          no_input = fs::exists(npz) ? npz.filename().string() + " has no array for the input " +
                                           exec.input_name(i)
                                     : "no reference inputs and outputs " + npz.string();
          continue;
        }
        exec.set_input(exec.input_name(i), it->second.raw(), it->second.nbytes());
        inputs[it->first] = it->second;
      }
      if (!no_input.empty()) {
        not_benchmarked.push_back(row.model + ": " + no_input);
        std::printf("%s: not benchmarked: %s\n", row.model.c_str(), no_input.c_str());
        continue;
      }
      // The .io.npz files call the single output "output".
      if (!io.count("output")) row.unchecked = npz.filename().string() + " has no array 'output'";
      const Tensor* want = row.unchecked.empty() ? &io.at("output") : nullptr;
      exec.run();
      if (want) row.error = normalized_error(driver::from_ndarray(exec.output(0)), *want);
      timer.restart();
      reference::Executor(graph).run(inputs);
      row.reference_ms = timer.milliseconds();

      // Peak measured right before the timed runs, so both see the same machine.
      PeakFlops peak = measure_peak_flops(threads);
      const PeakInt8 peak_int8 = int8_ops > 0 ? measure_peak_int8(threads) : PeakInt8{};
      auto median_of_runs = [&](runtime::GraphExecutor& executor) {
        std::vector<double> times;
        for (int r = 0; r < runs; ++r) {
          timer.restart();
          executor.run();
          times.push_back(timer.milliseconds());
        }
        return median(times);
      };
      // The tuned build, when the model has records: timed right after
      // every untuned timing, so each pair sees the same machine.
      std::optional<driver::CompiledGraph> tuned_compiled;
      std::optional<driver::JitGraphModule> tuned_module;
      const fs::path records = records_dir / (row.model + ".json");
      if (!records_dir.empty() && fs::exists(records)) {
        timer.restart();
        driver::CompileOptions tuned_options = lathe_only;
        tuned_options.schedule_for =
            driver::best_schedules_from_records(records.string(), codegen::Target::host());
        tuned_compiled = driver::compile_graph(graph, tuned_options);
        tuned_module.emplace(*tuned_compiled, codegen::Target::host());
        row.tuned_compile_ms = timer.milliseconds();
        runtime::GraphExecutor& tuned_exec = tuned_module->executor();
        for (const auto& [name, t] : inputs) tuned_exec.set_input(name, t.raw(), t.nbytes());
        tuned_exec.run();
        if (want)
          row.tuned_error = normalized_error(driver::from_ndarray(tuned_exec.output(0)), *want);
      }
      // A quantized model's float one, timed the same way.
      std::optional<driver::CompiledGraph> float_compiled;
      std::optional<driver::JitGraphModule> float_module;
      if (const std::optional<fs::path> float_path = float_model_of(model)) {
        const BenchModel f = load_bench_model(*float_path);
        float_compiled = driver::compile_graph(f.graph, lathe_only);
        float_module.emplace(*float_compiled, codegen::Target::host());
        runtime::GraphExecutor& float_exec = float_module->executor();
        for (int i = 0; i < float_exec.num_inputs(); ++i) {
          auto it = f.io.find(float_exec.input_name(i));
          if (it == f.io.end())
            throw std::runtime_error(float_path->string() + ": no reference array for the input " +
                                     float_exec.input_name(i));
          float_exec.set_input(it->first, it->second.raw(), it->second.nbytes());
        }
        float_exec.run();
        row.float_model = float_path->stem().string();
      }
      auto lathe_median = [&] {
        const double untuned_ms = median_of_runs(exec);
        if (tuned_module) {
          const double tuned_ms = median_of_runs(tuned_module->executor());
          row.tuned_ms = row.tuned_ms > 0 ? std::min(row.tuned_ms, tuned_ms) : tuned_ms;
        }
        if (float_module) {
          const double float_ms = median_of_runs(float_module->executor());
          row.float_ms = row.float_ms > 0 ? std::min(row.float_ms, float_ms) : float_ms;
        }
        return untuned_ms;
      };
      row.median_ms = lathe_median();
      if (dnnl) {
        driver::CompileOptions with_dnnl;
        with_dnnl.passes.external_codegens = std::vector<std::string>{"dnnl"};
        const driver::CompiledGraph offloaded = driver::compile_graph(graph, with_dnnl);
        driver::JitGraphModule dnnl_module(offloaded, codegen::Target::host());
        runtime::GraphExecutor& dnnl_exec = dnnl_module.executor();
        for (const auto& [name, t] : inputs) dnnl_exec.set_input(name, t.raw(), t.nbytes());
        dnnl_exec.run();
        if (want)
          row.dnnl_error = normalized_error(driver::from_ndarray(dnnl_exec.output(0)), *want);
        row.dnnl_ms = median_of_runs(dnnl_exec);
        row.median_ms = std::min(row.median_ms, lathe_median());
        for (KernelRow& k : compare_kernels(row.model, compiled, exec, offloaded, dnnl_exec, runs))
          kernel_rows.push_back(std::move(k));
      }
      // ONNX Runtime gets every input the model declares, those Lathe froze too.
      std::map<std::string, Tensor> ort_inputs;
      for (const onnx_frontend::ModelInput& in : onnx_frontend::model_inputs(model.string()))
        if (auto it = io.find(in.name); it != io.end()) ort_inputs[in.name] = it->second;
      if (ort && !ort_inputs.empty()) {
        for (int round = 0; round < 2; ++round) {
          driver::OrtTiming t =
              driver::time_onnx_runtime(ort_dir, model, ort_inputs, threads, runs);
          row.ort_ms = round == 0 ? t.median_ms : std::min(row.ort_ms, t.median_ms);
          // An output of another size keeps its error infinite.
          if (want && round == 0 && t.output.size() == static_cast<size_t>(want->numel())) {
            // time_ort.js writes float32, exactly for a float16 output.
            Tensor got(DType::Float32, want->shape());
            std::memcpy(got.raw(), t.output.data(), got.nbytes());
            row.ort_error = normalized_error(got, widened_to_compute(*want));
          }
          if (round == 0) row.median_ms = std::min(row.median_ms, lathe_median());
        }
      }
      row.gflops = static_cast<double>(flops) / (row.median_ms * 1e6);
      // The time the work would take at the peaks over the time it took:
      // int8 ops at the int8 peak (where the CPU has one), the rest at the float peak.
      const bool int8_peak = int8_ops > 0 && peak_int8.gops_all_cores > 0;
      const double float_ops = static_cast<double>(int8_peak ? flops - int8_ops : flops);
      double ideal_ms = float_ops / (peak.gflops_all_cores * 1e6);
      if (int8_peak) ideal_ms += static_cast<double>(int8_ops) / (peak_int8.gops_all_cores * 1e6);
      row.peak_fraction = ideal_ms / row.median_ms;
      row.activation_mib = static_cast<double>(exec.storage_bytes()) / (1 << 20);
      size_t param_bytes = 0;
      for (const auto& [name, a] : compiled.params) param_bytes += a.nbytes();
      row.param_mib = static_cast<double>(param_bytes) / (1 << 20);
      if (int8_peak)
        std::printf(
            "%s: peak %.1f GFLOPS, int8 %.1f GOPS (%s) on %d threads; %.2f G int8 ops, "
            "%.2f G other\n",
            row.model.c_str(), peak.gflops_all_cores, peak_int8.gops_all_cores, peak_int8.isa,
            threads, static_cast<double>(int8_ops) * 1e-9, float_ops * 1e-9);
      else
        std::printf("%s: peak %.1f GFLOPS on %d threads\n", row.model.c_str(),
                    peak.gflops_all_cores, threads);
      std::fflush(stdout);
      rows.push_back(row);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_models: %s\n", e.what());
    return 1;
  }
  std::printf("\n%-22s %8s %7s %11s %10s %9s %13s %11s %10s %9s %9s %9s %9s %9s %9s %12s %9s",
              "model", "kernels", "groups", "compile ms", "median ms", "GOPS", "% peak f32|i8",
              "vs ref (x)", "act MiB", "param MiB", "error", "oneDNN ms", "Lathe/oneDNN",
              "oneDNN err", "ORT ms", "Lathe/ORT", "ORT err");
  const bool any_tuned =
      std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.tuned_ms > 0; });
  if (any_tuned)
    std::printf(" %11s %9s %9s %9s %9s", "tuned comp", "tuned ms", "speed-up", "tuned/ORT",
                "tuned err");
  std::printf("\n");
  double log_ratio_sum = 0, log_tuned_sum = 0;
  int ratios = 0, tuned_ratios = 0;
  bool wrong = false;
  for (const Row& r : rows) {
    std::printf("%-22s %8d %7d %11.0f %10.3f %9.1f %12.1f%% %11.1f %10.1f %9.1f %9.1e",
                r.model.c_str(), r.kernels, r.groups, r.compile_ms, r.median_ms, r.gflops,
                100 * r.peak_fraction, r.reference_ms / r.median_ms, r.activation_mib, r.param_mib,
                r.error);
    if (r.dnnl_ms > 0)
      std::printf(" %9.3f %12.2f %9.1e", r.dnnl_ms, r.median_ms / r.dnnl_ms, r.dnnl_error);
    else
      std::printf(" %9s %12s %9s", "-", "-", "-");
    if (r.ort_ms > 0) {
      std::printf(" %9.3f %9.2f %9.1e", r.ort_ms, r.median_ms / r.ort_ms, r.ort_error);
      log_ratio_sum += std::log(r.median_ms / r.ort_ms);
      ++ratios;
    } else {
      std::printf(" %9s %9s %9s", "-", "-", "-");
    }
    if (r.tuned_ms > 0) {
      std::printf(" %11.0f %9.3f %8.2fx", r.tuned_compile_ms, r.tuned_ms, r.median_ms / r.tuned_ms);
      if (r.ort_ms > 0) {
        std::printf(" %9.2f", r.tuned_ms / r.ort_ms);
        log_tuned_sum += std::log(r.tuned_ms / r.ort_ms);
        ++tuned_ratios;
      } else {
        std::printf(" %9s", "-");
      }
      std::printf(" %9.1e", r.tuned_error);
    } else if (any_tuned) {
      std::printf(" %11s %9s %9s %9s %9s", "-", "-", "-", "-", "-");
    }
    std::printf("\n");
    wrong |= !(r.error <= r.tolerance) || (r.dnnl_ms > 0 && !(r.dnnl_error <= r.tolerance)) ||
             (r.tuned_ms > 0 && !(r.tuned_error <= r.tolerance));
  }
  if (ratios)
    std::printf("\nLathe / ONNX Runtime, geometric mean over %d models: %.2f\n", ratios,
                std::exp(log_ratio_sum / ratios));
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.float_ms > 0; })) {
    std::printf("\nQuantized models beside their float models, timed alternately:\n");
    std::printf("%-30s %-26s %10s %10s %11s\n", "model", "float model", "int8 ms", "fp32 ms",
                "fp32 / int8");
    for (const Row& r : rows)
      if (r.float_ms > 0)
        std::printf("%-30s %-26s %10.3f %10.3f %10.2fx\n", r.model.c_str(), r.float_model.c_str(),
                    r.median_ms, r.float_ms, r.float_ms / r.median_ms);
  }
  if (tuned_ratios)
    std::printf("Lathe tuned / ONNX Runtime, geometric mean over the %d tuned models: %.2f\n",
                tuned_ratios, std::exp(log_tuned_sum / tuned_ratios));
  if (!kernel_rows.empty()) {
    std::printf(
        "\nPer kernel, the groups oneDNN claims: Lathe's kernels and oneDNN's call for the same "
        "graph nodes, us per run (profiled, %d runs each)\n",
        runs);
    std::printf("%-14s %-44s %-22s %-18s %10s %10s %12s\n", "model", "Lathe group(s)",
                "oneDNN pattern", "output", "Lathe us", "oneDNN us", "Lathe/oneDNN");
    std::map<std::string, std::pair<double, double>> totals;
    for (const KernelRow& k : kernel_rows) {
      std::printf("%-14s %-44s %-22s %-18s %10.1f %10.1f %12.2f\n", k.model.c_str(),
                  k.lathe_groups.c_str(), k.dnnl_patterns.c_str(), k.shape.c_str(), k.lathe_us,
                  k.dnnl_us, k.dnnl_us > 0 ? k.lathe_us / k.dnnl_us : 0.0);
      totals[k.model].first += k.lathe_us;
      totals[k.model].second += k.dnnl_us;
    }
    for (const auto& [model, total] : totals)
      std::printf("%-14s %-44s %-22s %-18s %10.1f %10.1f %12.2f\n", model.c_str(),
                  "all claimed groups", "", "", total.first, total.second,
                  total.second > 0 ? total.first / total.second : 0.0);
  }
  for (const Row& r : rows) {
    if (!r.unchecked.empty())
      std::fprintf(stderr, "bench_models: %s: not checked: %s\n", r.model.c_str(),
                   r.unchecked.c_str());
    else if (!(r.error <= r.tolerance))
      std::fprintf(stderr, "bench_models: %s: normalized error %.2e is above %.0e\n",
                   r.model.c_str(), r.error, r.tolerance);
    if (r.dnnl_ms > 0 && !(r.dnnl_error <= r.tolerance))
      std::fprintf(stderr, "bench_models: %s: with oneDNN, normalized error %.2e is above %.0e\n",
                   r.model.c_str(), r.dnnl_error, r.tolerance);
    if (r.tuned_ms > 0 && !(r.tuned_error <= r.tolerance))
      std::fprintf(stderr, "bench_models: %s: tuned, normalized error %.2e is above %.0e\n",
                   r.model.c_str(), r.tuned_error, r.tolerance);
  }
  for (const std::string& failure : not_benchmarked)
    std::fprintf(stderr, "bench_models: not benchmarked: %s\n", failure.c_str());
  return wrong || !not_benchmarked.empty() ? 1 : 0;
}
