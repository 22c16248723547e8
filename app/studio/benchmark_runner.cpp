// The benchmark job: runs in a pool thread on its own copy of the request,
// catches every exception per build, and reports stages and builds as
// results of a QPromise, which its JobTracker hands to the GUI thread in order.
// Every build is compiled and JIT-compiled first, then all are timed and
// profiled together, a sample of each in turn; last, each build's kernels are
// placed on the machine's roofline (driver/kernel_roofline), with the
// machine's peak and bandwidths kept from an earlier measurement.
#include "studio/benchmark_runner.h"

#include <QFile>
#include <QFileInfo>
#include <QPromise>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "driver/compiled_module.h"
#include "driver/executor.h"
#include "driver/gpu_module.h"
#include "driver/gpu_roof.h"
#include "driver/graph_compiler.h"
#include "driver/group_match.h"
#include "driver/kernel_roofline.h"
#include "driver/machine_roof.h"
#include "driver/onnx_runtime.h"
#include "studio/exception_text.h"
#include "studio/executor_inputs.h"
#include "studio/record_schedules.h"
#include "support/error.h"

namespace lathe::studio {

namespace {

const QString kOnnxRuntime = QStringLiteral("ONNX Runtime");

// One report of the job. Results rather than QPromise progress, which Qt
// throttles: a stage text dropped would sit on the bar through a long compile.
struct BenchmarkEvent {
  enum class Kind { Stage, Measured, Failed } kind = Kind::Stage;
  int step = 0;
  QString buildName;
  QString text;  // the stage, or why the build failed
  views::BuildBenchmark build;
};

// A build compiled and JIT-compiled (or its PTX loaded on the GPU), its
// inputs set, waiting for its samples.
struct PreparedBuild {
  views::BuildBenchmark build;
  // The loop IR and fused graph the roofline models (its parameters dropped:
  // the executor holds its own).
  std::unique_ptr<driver::CompiledGraph> compiled;
  std::unique_ptr<driver::JitGraphModule> module;      // a CPU build's
  std::unique_ptr<driver::GraphExecutor> gpuExecutor;  // a GPU build's
  driver::GraphExecutor& executor() { return module ? module->executor() : *gpuExecutor; }
  std::vector<double> samples;            // ms
  std::vector<std::vector<char>> inputs;  // the bytes fed, per input
  bool failed = false;
};

class BenchmarkJob {
 public:
  BenchmarkJob(QPromise<BenchmarkEvent>& promise, const BenchmarkRequest& request,
               const driver::Target& target)
      : promise_(promise), request_(request), target_(target) {}

  void run() {
    for (int i = 0; i < request_.builds.size(); ++i) {
      if (promise_.isCanceled()) return;
      const BenchmarkBuildSpec& spec = request_.builds[i];
      try {
        prepared_.push_back(prepare(spec, 2 * i));
      } catch (...) {
        fail(spec.name, exceptionText(std::current_exception()));
      }
    }
    const int firstRound = 2 * static_cast<int>(request_.builds.size());
    // Samples and profiles go round-robin over the builds, so whatever else
    // the machine does meanwhile slows every build alike. Each sample starts
    // with a warm-up run of its own (driver::benchmark), since the other
    // builds ran in between.
    for (int r = 0; r < request_.repeat; ++r) {
      if (promise_.isCanceled()) return;
      stage(
          firstRound + r,
          QStringLiteral("timing: sample %1 of %2 of each build").arg(r + 1).arg(request_.repeat));
      measure([this](PreparedBuild& p) {
        p.samples.push_back(driver::benchmark(p.executor(), 1, request_.number).results.front());
      });
    }
    // ONNX Runtime between the timing and the profiling rounds, its row
    // after Lathe's builds.
    std::optional<BenchmarkEvent> reference;
    if (request_.onnxRuntime) {
      if (promise_.isCanceled()) return;
      stage(stepCount() - 1, QStringLiteral("ONNX Runtime: timing %1 runs of %2")
                                 .arg(request_.repeat * request_.number)
                                 .arg(QFileInfo(request_.modelPath).fileName()));
      try {
        reference = BenchmarkEvent{
            BenchmarkEvent::Kind::Measured, stepCount(), kOnnxRuntime, {}, timeOnnxRuntime()};
      } catch (...) {
        reference = BenchmarkEvent{BenchmarkEvent::Kind::Failed,
                                   0,
                                   kOnnxRuntime,
                                   exceptionText(std::current_exception()),
                                   {}};
      }
    }
    for (int r = 0; r < request_.repeat; ++r) {
      if (promise_.isCanceled()) return;
      stage(firstRound + request_.repeat + r,
            QStringLiteral("profiling kernels: run %1 of %2 of each build")
                .arg(r + 1)
                .arg(request_.repeat));
      measure([r](PreparedBuild& p) { addProfile(p.build.kernels, p.executor(), r); });
    }
    if (promise_.isCanceled()) return;
    for (PreparedBuild& p : prepared_)
      for (driver::KernelProfile& row : p.build.kernels) row.time_us /= request_.repeat;
    placeOnRoofline(firstRound + 2 * request_.repeat);
    nameKernelsAfterBaseline();
    for (PreparedBuild& p : prepared_) {
      if (p.failed) continue;
      p.build.times = driver::TimeSummary::from_samples(std::move(p.samples));
      promise_.addResult(
          BenchmarkEvent{BenchmarkEvent::Kind::Measured, stepCount(), p.build.name, {}, p.build});
    }
    if (reference) promise_.addResult(*reference);
  }

 private:
  int stepCount() const {
    return BenchmarkRunner::stepCount(static_cast<int>(request_.builds.size()), request_.repeat,
                                      request_.onnxRuntime);
  }

  // ONNX Runtime's CPU provider on the model file, fed what the first Lathe
  // build was fed, on as many threads: repeat samples, each the mean of
  // `number` runs, as Lathe's.
  views::BuildBenchmark timeOnnxRuntime() const {
    const std::filesystem::path dir = driver::onnx_runtime_dir();
    if (const std::string missing = driver::onnx_runtime_missing(dir); !missing.empty())
      throw Error(missing);
    const PreparedBuild* fed = nullptr;
    for (const PreparedBuild& p : prepared_)
      if (!p.failed) fed = fed ? fed : &p;
    if (!fed) throw Error("no Lathe build ran, so there are no inputs to give it");
    const driver::GraphExecutor& executor = fed->module->executor();
    const std::optional<DType> dtype = executor.num_inputs() == 1
                                           ? dtype_from_name(executor.input_dtype(0).to_string())
                                           : std::nullopt;
    if (!dtype || (*dtype != DType::Float32 && *dtype != DType::Float16))
      throw Error("the ONNX Runtime row times models with one float32 or float16 input only");
    Tensor input(*dtype, executor.input_shape(0));
    std::memcpy(input.raw(), fed->inputs[0].data(), input.nbytes());
    const int runs = request_.repeat * request_.number;
    const driver::OrtTiming timing = driver::time_onnx_runtime(
        dir, QFile::encodeName(request_.modelPath).toStdString(), executor.input_name(0), input,
        driver::default_num_threads(), runs);
    std::vector<double> samples;
    for (size_t i = 0; i + static_cast<size_t>(request_.number) <= timing.samples_ms.size();
         i += static_cast<size_t>(request_.number)) {
      double sum = 0;
      for (int k = 0; k < request_.number; ++k)
        sum += timing.samples_ms[i + static_cast<size_t>(k)];
      samples.push_back(sum / request_.number);
    }
    if (samples.empty()) samples.push_back(timing.median_ms);
    views::BuildBenchmark build;
    build.name = kOnnxRuntime;
    build.externalEngine = QStringLiteral("onnxruntime-node");
    build.flops = fed->build.flops;
    build.repeat = request_.repeat;
    build.number = request_.number;
    build.inputs = fed->build.inputs;
    build.times = driver::TimeSummary::from_samples(std::move(samples));
    return build;
  }

  // Each build's kernels on the machine's roofline (a GPU build's on the
  // board's, from its attributes: driver/gpu_roof.h); a roof that cannot be
  // had leaves the builds measured, with the reason.
  void placeOnRoofline(int step) {
    stage(step, QStringLiteral("placing kernels on the roofline"));
    std::shared_ptr<const driver::MachineRoof> machine;
    QString error;
    try {
      machine = std::make_shared<const driver::MachineRoof>(
          target_.is_gpu() ? driver::cuda_device_roof(0) : driver::machine_roof());
    } catch (...) {
      error = exceptionText(std::current_exception());
    }
    for (PreparedBuild& p : prepared_) {
      if (p.failed) continue;
      p.build.machine = machine;
      p.build.rooflineError = error;
      if (!machine) continue;
      try {
        p.build.roofline = driver::kernel_rooflines(*p.compiled, p.build.kernels, *machine);
      } catch (...) {
        p.build.rooflineError = exceptionText(std::current_exception());
      }
    }
  }

  // The baseline's kernel names on the other builds' profile rows, matched
  // by the graph nodes each executor node computes: a build with an
  // external codegen numbers its kernels differently, and its calls all
  // share their codegen's one function. Rows of nodes only one build has
  // (a layout transform) are named after their kernel, an external call
  // after its node, and the build. After the roofline, which looks
  // the rows' kernels up in their own build.
  void nameKernelsAfterBaseline() {
    const PreparedBuild* baseline = nullptr;
    for (const PreparedBuild& p : prepared_)
      if (!baseline && !p.failed && !p.build.usesRecords() && p.build.externalCodegens.isEmpty())
        baseline = &p;
    std::map<std::string, std::string> baselineKernel;  // by executor node
    if (baseline)
      for (const runtime::GraphNode& node : baseline->compiled->desc.nodes)
        baselineKernel[node.name] = node.func_name;
    for (PreparedBuild& p : prepared_) {
      if (p.failed || &p == baseline || p.build.externalCodegens.isEmpty()) continue;
      std::map<std::string, std::string> kernelOf;
      if (baseline)
        for (const driver::MatchedGroups& match :
             driver::match_groups(*baseline->compiled, *p.compiled))
          if (!match.first.empty())
            for (const std::string& node : match.second)
              kernelOf[node] = baselineKernel.at(match.first.front());
      std::map<std::string, bool> external;
      for (const runtime::GraphNode& node : p.compiled->desc.nodes)
        external[node.name] = node.external;
      const std::string only = " (" + p.build.name.toStdString() + " only)";
      for (driver::KernelProfile& row : p.build.kernels) {
        if (const auto it = kernelOf.find(row.node_name); it != kernelOf.end())
          row.func_name = it->second;
        else
          row.func_name = (external[row.node_name] ? row.node_name : row.func_name) + only;
      }
    }
  }

  void stage(int step, const QString& text) {
    promise_.addResult(BenchmarkEvent{BenchmarkEvent::Kind::Stage, step, {}, text, {}});
  }

  void fail(const QString& build, const QString& message) {
    promise_.addResult(BenchmarkEvent{BenchmarkEvent::Kind::Failed, 0, build, message, {}});
  }

  PreparedBuild prepare(const BenchmarkBuildSpec& spec, int firstStep) {
    PreparedBuild prepared;
    views::BuildBenchmark& build = prepared.build;
    build.name = spec.name;
    build.recordsPath = spec.recordsPath;
    build.externalCodegens = spec.externalCodegens;
    build.repeat = request_.repeat;
    build.number = request_.number;

    stage(firstStep, QStringLiteral("%1: compiling").arg(spec.name));
    driver::CompileOptions options;
    options.target = target_;
    options.passes.record_snapshots = false;
    options.passes.external_codegens.emplace();
    for (const QString& codegen : spec.externalCodegens)
      options.passes.external_codegens->push_back(codegen.toStdString());
    RecordSchedules records;
    if (build.usesRecords()) records = applyRecordSchedules(spec.recordsPath, options);
    build.recordsNote = records.note;
    prepared.compiled =
        std::make_unique<driver::CompiledGraph>(driver::compile_graph(*request_.graph, options));
    const driver::CompiledGraph& compiled = *prepared.compiled;
    build.totalKernels = static_cast<int>(compiled.tasks.size());
    build.tunedKernels = records.tunedCount();
    if (build.usesRecords() && build.tunedKernels == 0 && build.recordsNote.isEmpty())
      build.recordsNote = noRecordAppliedNote(target_);
    for (const driver::KernelTask& task : compiled.tasks)
      build.flops += static_cast<double>(task.flops) * task.weight();
    for (const runtime::GraphNode& node : compiled.desc.nodes)
      build.externalCalls += node.external ? 1 : 0;
    // The claimed groups' work is no task's: such a build does the work of
    // Lathe's own kernels (prepared first where the untuned build is checked).
    if (!spec.externalCodegens.isEmpty())
      for (const PreparedBuild& p : prepared_)
        if (p.build.externalCodegens.isEmpty()) {
          build.flops = p.build.flops;
          break;
        }

    if (target_.is_gpu()) {
      stage(firstStep + 1, QStringLiteral("%1: loading the PTX on the GPU").arg(spec.name));
      prepared.gpuExecutor = driver::make_gpu_executor(compiled, target_);
    } else {
      stage(firstStep + 1, QStringLiteral("%1: JIT-compiling").arg(spec.name));
      prepared.module = std::make_unique<driver::JitGraphModule>(compiled, target_);
    }
    prepared.compiled->params.clear();
    build.inputs = feedInputs(prepared.executor(), request_.modelPath, &prepared.inputs);
    return prepared;
  }

  // Runs `step` on every build still standing; a build that throws is
  // reported and left out from then on.
  void measure(const std::function<void(PreparedBuild&)>& step) {
    for (PreparedBuild& p : prepared_) {
      if (p.failed) continue;
      try {
        step(p);
      } catch (...) {
        p.failed = true;
        fail(p.build.name, exceptionText(std::current_exception()));
      }
    }
  }

  // Adds one profiled run to the sums in `kernels` (empty before run 0).
  static void addProfile(std::vector<driver::KernelProfile>& kernels,
                         driver::GraphExecutor& executor, int run) {
    std::vector<driver::KernelProfile> rows = executor.profile(1);
    if (run == 0) {
      kernels = std::move(rows);
      return;
    }
    for (size_t i = 0; i < rows.size() && i < kernels.size(); ++i)
      kernels[i].time_us += rows[i].time_us;
  }

  QPromise<BenchmarkEvent>& promise_;
  const BenchmarkRequest& request_;
  const driver::Target& target_;
  std::vector<PreparedBuild> prepared_;
};

}  // namespace

BenchmarkRunner::BenchmarkRunner(QObject* parent)
    : QObject(parent), target_(driver::Target::host()) {
  connect(&runs_, &views::JobTracker::busyChanged, this, &BenchmarkRunner::runningChanged);
}

// The job holds its own state; the tracker's destructor asks it to stop,
// which spares the stages left.
BenchmarkRunner::~BenchmarkRunner() = default;

void BenchmarkRunner::run(BenchmarkRequest request) {
  // ONNX Runtime runs on the CPU: no reference for a GPU build's times.
  if (target_.is_gpu()) request.onnxRuntime = false;
  const int steps =
      stepCount(static_cast<int>(request.builds.size()), request.repeat, request.onnxRuntime);
  runs_.startStreaming<BenchmarkEvent>(
      [request = std::move(request), target = target_](QPromise<BenchmarkEvent>& promise) {
        BenchmarkJob(promise, request, target).run();
      },
      [this, steps](const BenchmarkEvent& event) {
        switch (event.kind) {
          case BenchmarkEvent::Kind::Stage:
            emit progressed(event.step, steps, event.text);
            break;
          case BenchmarkEvent::Kind::Measured:
            emit buildMeasured(event.build);
            break;
          case BenchmarkEvent::Kind::Failed:
            emit buildFailed(event.buildName, event.text);
            break;
        }
      },
      [this](bool stopped) { emit finished(stopped); });
}

void BenchmarkRunner::cancel() {
  runs_.stop();
}

}  // namespace lathe::studio
