// The Benchmark tab's background work, in a pool thread: each build of a
// model compiled (with the best schedules of its records file, if any) and
// JIT-compiled, then all builds timed as `lathe run --print-time --repeat N
// --number M` times one (driver::benchmark) and profiled per kernel as
// `--profile` does, sample by sample in turn, so a noisy machine blurs every
// build alike instead of the one that happened to run at a bad moment. Then
// each build's kernels are placed on the machine's roofline, still in the
// pool thread, and each build's profile rows are named after the baseline's
// kernels that compute the same graph nodes (driver/group_match.h), so a
// group an external codegen claimed compares with Lathe's kernel for it. Results come back on the
// GUI thread as signals.
//
// Two runs never time at once, since each would slow the other: a new run
// cancels the one going and waits for it to end (compiling cannot be
// interrupted, so it ends at its next stage), and a still newer run replaces
// the waiting one.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "driver/target.h"
#include "ir/graph.h"
#include "views/build_benchmark.h"
#include "views/job_tracker.h"

namespace lathe::studio {

struct BenchmarkBuildSpec {
  QString name;         // what the table and chart call the build
  QString recordsPath;  // empty: every kernel on its default schedule
  // External codegens (of loaded plugins) that run the groups they claim;
  // empty: Lathe's own kernels only, whatever plugins are loaded.
  QStringList externalCodegens;
};

struct BenchmarkRequest {
  QString modelPath;  // names the model, and finds its NAME.io.npz inputs
  std::shared_ptr<const Graph> graph;
  QList<BenchmarkBuildSpec> builds;
  int repeat = 10;  // samples
  int number = 1;   // runs averaged into one sample
  // Also time ONNX Runtime (driver/onnx_runtime.h) on the same inputs and
  // threads, after Lathe's builds: a reference row, not a build.
  bool onnxRuntime = false;
};

class BenchmarkRunner : public QObject {
  Q_OBJECT

 public:
  // Steps of the progress: compile and JIT-compile each build, then a
  // timing round and a profiling round per repeat, the roofline (which
  // measures the machine where nothing is kept for it), and ONNX Runtime's runs.
  static constexpr int stepCount(int builds, int repeat, bool onnxRuntime = false) {
    return 2 * builds + 2 * repeat + 1 + (onnxRuntime ? 1 : 0);
  }

  explicit BenchmarkRunner(QObject* parent = nullptr);
  ~BenchmarkRunner() override;

  // The target every build compiles for, and the records apply to: this
  // machine's CPU, or a GPU target whose builds run on GPU 0 (the studio's
  // target picker, where a GPU is there).
  const driver::Target& target() const { return target_; }
  // Takes effect from the next run.
  void setTarget(const driver::Target& target) { target_ = target; }

  void run(BenchmarkRequest request);
  // Stops the run at its next step (a compile runs to its end); finished(true) follows.
  void cancel();
  bool isRunning() const { return runs_.isBusy(); }

 signals:
  void runningChanged(bool running);
  // `step` of `steps` has begun; `stage` says which ("tuned: compiling").
  void progressed(int step, int steps, const QString& stage);
  void buildMeasured(const views::BuildBenchmark& build);
  void buildFailed(const QString& build, const QString& message);
  // The run ended: every build measured or failed, or it was cancelled
  // (builds measured come only at the end, after the last round).
  void finished(bool cancelled);

 private:
  driver::Target target_;
  views::JobTracker runs_{this, views::JobTracker::Overlap::Serial};
};

}  // namespace lathe::studio
