// One build of a model as the Benchmark view measured it: how it was
// scheduled (default schedules, or a records file's best), its run times as
// `lathe run --print-time` reports them, and the profiling executor's
// per-kernel rows, each placed on the machine's roofline. What the benchmark
// table, charts and kernel table show.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "driver/executor.h"
#include "driver/kernel_roofline.h"

namespace lathe::views {

struct BuildBenchmark {
  QString name;         // "untuned", "tuned", "hand-edited", "dnnl (dnnl plugin)"
  QString recordsPath;  // empty: every kernel on its default schedule
  // External codegens (plugins) that ran the groups they claim; empty:
  // Lathe's own kernels only. Their calls' profile rows are named after the
  // baseline's kernels that compute the same graph nodes, so the per-kernel
  // table compares a claimed group with Lathe's kernel for it.
  QStringList externalCodegens;
  int externalCalls = 0;  // executor nodes that call an external codegen
  int tunedKernels = 0;   // distinct kernels compiled with a record's schedule
  int totalKernels = 0;   // distinct kernels (tasks) of the model
  QString recordsNote;    // why no record applied, or the records' warnings
  double flops = 0;       // floating-point operations of one run of the model
  int repeat = 0, number = 0;
  driver::TimeSummary times;                   // ms, one sample per repeat
  std::vector<driver::KernelProfile> kernels;  // one row per kernel call, in node order
  // The same rows on the machine's roofline, with their what-if hints, and
  // the roof they were placed under; empty, with the reason in
  // rooflineError, when they could not be placed.
  std::vector<driver::KernelRoofline> roofline;
  std::shared_ptr<const driver::MachineRoof> machine;
  QString rooflineError;
  QString inputs;  // where the inputs came from
  // Empty for Lathe's builds; the runtime's name for a reference timed
  // alongside them (ONNX Runtime), which has no kernels and is no baseline.
  QString externalEngine;

  bool usesRecords() const { return !recordsPath.isEmpty(); }
  bool isExternal() const { return !externalEngine.isEmpty(); }
  double gflops() const { return times.median > 0 ? flops / (times.median * 1e6) : 0; }
};

// The build the others' speed-ups are measured against: the first of
// Lathe's own kernels on default schedules, else Lathe's first; -1 when
// there is none.
inline int baselineIndex(const QList<BuildBenchmark>& builds) {
  for (int i = 0; i < builds.size(); ++i)
    if (!builds[i].usesRecords() && !builds[i].isExternal() && builds[i].externalCodegens.isEmpty())
      return i;
  for (int i = 0; i < builds.size(); ++i)
    if (!builds[i].isExternal()) return i;
  return -1;
}

// Baseline median over the build's median: 2.0 means twice as fast.
inline double speedUp(const BuildBenchmark& baseline, const BuildBenchmark& build) {
  return build.times.median > 0 ? baseline.times.median / build.times.median : 0;
}

}  // namespace lathe::views
