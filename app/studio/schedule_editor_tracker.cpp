// Background jobs of the schedule editor: each runs in a pool thread on its
// arguments only (shared immutable task state and copies of texts), catches
// every exception, and hands its outcome to its JobTracker on the GUI thread.
#include "studio/schedule_editor_tracker.h"

#include <QElapsedTimer>
#include <QFile>
#include <QPromise>
#include <exception>

#include "driver/gpu_module.h"
#include "driver/gpu_roof.h"
#include "driver/gpu_schedule_check.h"
#include "driver/kernel_code.h"
#include "driver/kernel_tasks.h"
#include "driver/kernel_workbench.h"
#include "driver/machine_peak.h"
#include "driver/ptx_resources.h"
#include "driver/schedule_names.h"
#include "driver/target_device.h"
#include "driver/tuning_records.h"
#include "studio/edit_journal.h"
#include "studio/exception_text.h"
#include "support/error.h"

namespace lathe::studio {

OpenedScheduleTask::OpenedScheduleTask(std::shared_ptr<const GraphSnapshots> snapshots_,
                                       const driver::KernelTask& task)
    : snapshots(std::move(snapshots_)),
      workbench(snapshots->optimized.graph, snapshots->optimized.groups, task,
                snapshots->optimized.vector_unit) {}

namespace {

struct TaskList {
  std::vector<driver::KernelTask> tasks;
  QString message;  // why listing failed
};

struct OpenOutcome {
  std::shared_ptr<const OpenedScheduleTask> task;  // null on failure
  QString message;
};

// One report of a preview job: the lowering's, then the code generator's.
struct PreviewStage {
  enum class Kind {
    Lowered,
    LoweringFailed,
    LoopCostsComputed,
    LoopCostsFailed,
    LlvmEmitted,
    AssemblyEmitted,
    CodegenFailed
  } kind = Kind::Lowered;
  QList<views::LoweringPassText> passes;
  QList<views::ScheduleEditorDiagnostic> problems;
  QString loopIR;
  QList<views::LineAnnotation> loopAnnotations;
  double estimatedMs = 0;  // the loop costs' model of the whole kernel
  QString llvmIR, assembly, message;
  double milliseconds = 0;
};

struct MeasureOutcome {
  std::optional<driver::KernelMeasurement> measurement;  // nullopt on failure
  double peakGflops = 0;
  QString message;
};

struct RecordSearch {
  std::optional<QString> schedule;
  double milliseconds = 0;
  QString reason;  // why there is none
};

TaskList listModelTasks(std::shared_ptr<const GraphSnapshots> snapshots) {
  TaskList list;
  try {
    list.tasks = driver::kernel_tasks(snapshots->optimized, snapshots->target);
  } catch (...) {
    list.message = exceptionText(std::current_exception());
  }
  return list;
}

OpenOutcome openScheduleTask(std::shared_ptr<const GraphSnapshots> snapshots,
                             driver::KernelTask task, QString journalPath) {
  OpenOutcome outcome;
  try {
    auto opened = std::make_shared<OpenedScheduleTask>(std::move(snapshots), task);
    const driver::Target& target = opened->target();
    opened->defaultText = QString::fromStdString(
        target.is_gpu() ? driver::gpu_default_schedule_text(opened->workbench, target)
                        : opened->workbench.default_schedule_text());
    opened->whyNoRun = QString::fromStdString(driver::why_kernels_cannot_run(target));
    opened->vocabulary =
        views::scheduleVocabulary(driver::schedule_names(opened->workbench.computation()));
    try {
      opened->journaledText =
          EditJournal::latestEdit(journalPath, driver::task_workload_id(task), target);
    } catch (...) {
      // A damaged journal costs the restored edit, never the task.
      opened->journalProblem = exceptionText(std::current_exception());
    }
    outcome.task = std::move(opened);
  } catch (...) {
    outcome.message = exceptionText(std::current_exception());
  }
  return outcome;
}

QList<views::ScheduleEditorDiagnostic> diagnosticsOf(const driver::ScheduleTextError& e) {
  QList<views::ScheduleEditorDiagnostic> problems;
  for (const driver::ScheduleDiagnostic& d : e.diagnostics())
    problems.append({d.line, d.column, QString::fromStdString(d.message)});
  return problems;
}

// Gutter colours of a spill by the level it overflows: the farther the
// re-reads come from, the hotter.
QColor spillColor(const std::string& level) {
  if (level == "L1") return QColor(0xd4, 0xa0, 0x17);
  if (level == "L2") return QColor(0xe0, 0x6c, 0x00);
  return QColor(0xc6, 0x28, 0x28);
}

PreviewStage loopCostsStage(const driver::LoweredFunc& lowered,
                            const driver::LoopCostMachine& machine) {
  PreviewStage stage;
  stage.kind = PreviewStage::Kind::LoopCostsComputed;
  const driver::AnnotatedLoopIR costs = driver::annotated_loop_ir(lowered.func, machine);
  stage.loopIR = QString::fromStdString(costs.loop_ir);
  for (const driver::LoopNote& loop : costs.loops) {
    views::LineAnnotation a;
    a.line = loop.line;
    a.note = QString::fromStdString(loop.note);
    if (loop.cost.spill) a.mark = spillColor(loop.cost.spill->level);
    a.toolTip = QString::fromStdString(loop.explanation);
    stage.loopAnnotations.append(a);
  }
  stage.estimatedMs = costs.estimated_ms;
  return stage;
}

void previewSchedule(QPromise<PreviewStage>& promise,
                     std::shared_ptr<const OpenedScheduleTask> task, QString text,
                     std::shared_ptr<const driver::LoopCostMachine> costMachine) {
  const driver::Target& target = task->target();
  PreviewStage lowering;
  driver::LoweredFunc lowered;
  int64_t gpuThreadsPerBlock = 0;  // of the verified launch, for the occupancy
  QElapsedTimer timer;
  timer.start();
  try {
    // An empty text would lower the default schedule (the workbench's
    // convention); in the editor it is a text that schedules nothing.
    if (text.trimmed().isEmpty())
      throw driver::ScheduleTextError(
          {{1, 0,
            "the schedule is empty: it starts with s = te.create_schedule(...) "
            "(Reset to Default brings the task's schedule back)"}});
    if (target.is_gpu()) {
      // The verifier's refusals (too many threads, an unbound loop) point at
      // the bind or split that made them, as a parse error does.
      lowered = driver::lower_for_gpu(task->workbench, text.toStdString(), target,
                                      /*record_ir=*/true);
      gpuThreadsPerBlock =
          driver::verify_gpu_schedule(text.toStdString(), lowered.func, target).threads_per_block();
    } else {
      lowered = task->workbench.lower(text.toStdString(), /*record_ir=*/true);
    }
    for (const driver::PassSnapshot& p : lowered.passes)
      lowering.passes.append(
          {QString::fromStdString(p.pass), QString::fromStdString(p.ir), p.milliseconds});
  } catch (const driver::ScheduleTextError& e) {
    lowering.kind = PreviewStage::Kind::LoweringFailed;
    lowering.problems = diagnosticsOf(e);
  } catch (...) {
    // Errors of lowering itself (bound inference, a nest it cannot build) have
    // no place in the text.
    lowering.kind = PreviewStage::Kind::LoweringFailed;
    lowering.problems.append({0, 0, exceptionText(std::current_exception())});
  }
  lowering.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  promise.addResult(lowering);
  if (lowering.kind == PreviewStage::Kind::LoweringFailed || promise.isCanceled()) return;

  // The loop costs model a CPU's caches; a GPU's memory is another story.
  if (!target.is_gpu()) {
    try {
      // The first preview measures this machine's caches and bandwidths (about a second).
      promise.addResult(loopCostsStage(
          lowered, costMachine ? *costMachine : driver::this_loop_cost_machine(target)));
    } catch (...) {
      // Without the costs the preview still goes on to the code.
      PreviewStage failure;
      failure.kind = PreviewStage::Kind::LoopCostsFailed;
      failure.message = exceptionText(std::current_exception());
      promise.addResult(failure);
    }
  }
  if (promise.isCanceled()) return;

  // LLVM IR first: emitting assembly optimises the module again, and the
  // LLVM IR should not wait for that.
  timer.restart();
  PreviewStage llvm;
  llvm.kind = PreviewStage::Kind::LlvmEmitted;
  PreviewStage assembly;
  assembly.kind = PreviewStage::Kind::AssemblyEmitted;
  try {
    llvm.llvmIR = QString::fromStdString(driver::llvm_ir_text(lowered.func, target));
    llvm.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    promise.addResult(llvm);
    if (promise.isCanceled()) return;
    timer.restart();
    std::string text = driver::assembly_text(lowered.func, target);
    if (target.is_gpu()) {
      // The PTX with what CUDA's ptxas makes of it (registers, spills, shared
      // memory, and so the occupancy) above and the SASS below, when the
      // toolkit is there.
      const driver::PtxasReport report = driver::assemble_ptx(text, target.cpu());
      text = driver::ptxas_header_comment(report, {{lowered.func.name, gpuThreadsPerBlock}}) +
             text + driver::sass_footer_comment(report);
    }
    assembly.assembly = QString::fromStdString(text);
    assembly.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    promise.addResult(assembly);
  } catch (...) {
    PreviewStage failure;
    failure.kind = PreviewStage::Kind::CodegenFailed;
    failure.message = exceptionText(std::current_exception());
    promise.addResult(failure);
  }
}

MeasureOutcome measureSchedule(std::shared_ptr<const OpenedScheduleTask> task, QString text,
                               int runs) {
  MeasureOutcome outcome;
  const driver::Target& target = task->target();
  if (!task->whyNoRun.isEmpty()) {
    outcome.message = task->whyNoRun;
    return outcome;
  }
  try {
    // The peak just before the kernel, as bench_kernels pairs them; a GPU's
    // from its attributes (driver/gpu_roof.h).
    const bool gpu = target.is_gpu();
    outcome.peakGflops =
        gpu ? driver::cuda_device_roof(0).peak_gflops : driver::machine_peak_gflops();
    const driver::LoweredFunc lowered =
        gpu ? driver::lower_for_gpu(task->workbench, text.toStdString(), target, false)
            : task->workbench.lower(text.toStdString(), false);
    outcome.measurement = task->workbench.measure(lowered.func, target, runs);
  } catch (...) {
    outcome.message = exceptionText(std::current_exception());
  }
  return outcome;
}

struct SimulateOutcome {
  std::optional<double> maxError;  // nullopt on failure
  QString message;
};

SimulateOutcome simulateSchedule(std::shared_ptr<const OpenedScheduleTask> task, QString text) {
  SimulateOutcome outcome;
  try {
    const driver::Target& target = task->target();
    LATHE_CHECK(target.is_gpu(), "the GPU simulator runs GPU kernels; the target is ",
                target.to_string());
    const driver::LoweredFunc lowered =
        driver::lower_for_gpu(task->workbench, text.toStdString(), target, false);
    outcome.maxError = task->workbench.simulate_on_gpu(lowered.func, target);
  } catch (...) {
    outcome.message = exceptionText(std::current_exception());
  }
  return outcome;
}

RecordSearch searchBestRecord(QString path, std::string workload, driver::Target target) {
  RecordSearch search;
  try {
    if (!QFile::exists(path)) {
      search.reason = QStringLiteral("%1 does not exist yet").arg(path);
      return search;
    }
    const driver::TuningRecordSet set =
        driver::load_tuning_records(QFile::encodeName(path).toStdString(), target);
    const auto best = set.best.find(workload);
    if (best == set.best.end()) {
      search.reason = QStringLiteral("%1 has no error-free record of this task for %2")
                          .arg(path, QString::fromStdString(target.to_string()));
      return search;
    }
    search.schedule = QString::fromStdString(best->second.schedule);
    search.milliseconds = best->second.latency_ms();
  } catch (...) {
    search.reason = exceptionText(std::current_exception());
  }
  return search;
}

}  // namespace

ScheduleEditorTracker::ScheduleEditorTracker(QObject* parent) : QObject(parent) {
  previewTimer_.setSingleShot(true);
  previewTimer_.setInterval(kPreviewDelayMs);
  connect(&previewTimer_, &QTimer::timeout, this, [this] { startPreview(timedText_); });
  connect(&previews_, &views::JobTracker::busyChanged, this,
          &ScheduleEditorTracker::previewBusyChanged);
  connect(&measurements_, &views::JobTracker::busyChanged, this,
          &ScheduleEditorTracker::measuringChanged);
}

driver::Target ScheduleEditorTracker::target() const {
  return opened_ ? opened_->target() : driver::Target::host();
}

void ScheduleEditorTracker::listTasks(std::shared_ptr<const GraphSnapshots> snapshots) {
  listings_.start([snapshots] { return listModelTasks(snapshots); },
                  [this, snapshots](const TaskList& list) {
                    if (!list.message.isEmpty())
                      emit openFailed(QString(), list.message);
                    else
                      emit tasksListed(snapshots, list.tasks);
                  });
}

void ScheduleEditorTracker::openTask(std::shared_ptr<const GraphSnapshots> snapshots,
                                     const driver::KernelTask& task, const QString& journalPath) {
  previewTimer_.stop();
  previews_.drop();
  measurements_.drop();
  recordSearches_.drop();
  const QString name = QString::fromStdString(task.func_name);
  openings_.start([snapshots = std::move(snapshots), task,
                   journalPath] { return openScheduleTask(snapshots, task, journalPath); },
                  [this, name](const OpenOutcome& outcome) {
                    if (!outcome.task) {
                      opened_ = nullptr;  // the task open before is not what the user asked for
                      previews_.drop();   // a preview asked for meanwhile was of that task
                      emit openFailed(name, outcome.message);
                      return;
                    }
                    opened_ = outcome.task;
                    emit taskOpened(opened_);
                  });
}

void ScheduleEditorTracker::setLoopCostMachine(const driver::LoopCostMachine& machine) {
  loopCostMachine_ = std::make_shared<const driver::LoopCostMachine>(machine);
}

void ScheduleEditorTracker::schedulePreview(const QString& text) {
  timedText_ = text;
  previewTimer_.start();
}

void ScheduleEditorTracker::preview(const QString& text) {
  previewTimer_.stop();
  startPreview(text);
}

void ScheduleEditorTracker::startPreview(const QString& text) {
  if (!opened_) return;
  // A preview running is stopped after its lowering (its code generation is
  // moot now) and this one waits for it, replacing any text waiting.
  previews_.startStreaming<PreviewStage>(
      [task = opened_, text, machine = loopCostMachine_](QPromise<PreviewStage>& promise) {
        previewSchedule(promise, task, text, machine);
      },
      [this, text](const PreviewStage& stage) {
        switch (stage.kind) {
          case PreviewStage::Kind::Lowered:
            emit lowered(text, stage.passes, stage.milliseconds);
            break;
          case PreviewStage::Kind::LoweringFailed:
            emit loweringFailed(text, stage.problems);
            break;
          case PreviewStage::Kind::LoopCostsComputed:
            emit loopCostsComputed(text, stage.loopIR, stage.loopAnnotations, stage.estimatedMs);
            break;
          case PreviewStage::Kind::LoopCostsFailed:
            emit loopCostsFailed(text, stage.message);
            break;
          case PreviewStage::Kind::LlvmEmitted:
            emit llvmEmitted(text, stage.llvmIR, stage.milliseconds);
            break;
          case PreviewStage::Kind::AssemblyEmitted:
            emit assemblyEmitted(text, stage.assembly, stage.milliseconds);
            break;
          case PreviewStage::Kind::CodegenFailed:
            emit codegenFailed(text, stage.message);
            break;
        }
      });  // the stages have said everything: no onFinished
}

void ScheduleEditorTracker::measure(const QString& text) {
  if (!opened_ || measurements_.isBusy()) return;
  measurements_.start([task = opened_, text] { return measureSchedule(task, text, kMeasureRuns); },
                      [this, text](const MeasureOutcome& outcome) {
                        if (outcome.measurement)
                          emit measured(text, *outcome.measurement, outcome.peakGflops,
                                        outcome.measurement->max_error <= kReferenceTolerance);
                        else
                          emit measureFailed(text, outcome.message);
                      });
}

void ScheduleEditorTracker::simulate(const QString& text) {
  if (!opened_ || measurements_.isBusy()) return;
  measurements_.start([task = opened_, text] { return simulateSchedule(task, text); },
                      [this, text](const SimulateOutcome& outcome) {
                        if (outcome.maxError)
                          emit simulated(text, *outcome.maxError,
                                         *outcome.maxError <= kReferenceTolerance);
                        else
                          emit simulateFailed(text, outcome.message);
                      });
}

void ScheduleEditorTracker::findBestRecord(const QString& path) {
  if (!opened_) return;
  recordSearches_.start([path, workload = driver::task_workload_id(opened_->task()),
                         target = target()] { return searchBestRecord(path, workload, target); },
                        [this, path](const RecordSearch& search) {
                          if (search.schedule)
                            emit bestRecordFound(path, *search.schedule, search.milliseconds);
                          else
                            emit bestRecordMissing(path, search.reason);
                        });
}

}  // namespace lathe::studio
