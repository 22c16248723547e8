// The schedule editor's background work, one views::JobTracker per kind:
// listing a model's tasks, opening one (its computation, default schedule and
// newest journaled edit), previews, measurements and reading records files all
// run in pool threads on shared immutable state, and only the newest request's
// result comes back, as a signal on the GUI thread. Opening a task drops the
// previews, measurement and record search of the task open before.
//
// A preview lowers first and reports the loop IR after every pass at once,
// then the costs of its loops (driver/loop_costs, on this machine, which the
// first preview measures), then emits LLVM IR and then assembly, the slow
// parts, each as it is ready. One preview runs at a time: a newer text
// cancels the running one's code generation and waits, and a still newer
// text replaces the waiting one, so typing never queues work.
//
// For a GPU target (the snapshots' target, which the studio's target picker
// chose) a preview lowers with driver::lower_for_gpu and verifies the kernel
// (its refusals are diagnostics of the text), skips the loop costs (a model
// of a CPU's caches), and the assembly is the PTX; measurements are refused
// with why_kernels_cannot_run's reason.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

#include "driver/kernel_workbench.h"
#include "driver/loop_costs.h"
#include "driver/target.h"
#include "studio/graph_snapshot_tracker.h"
#include "views/code_preview.h"
#include "views/job_tracker.h"
#include "views/schedule_editor.h"
#include "views/schedule_editor_vocabulary.h"

namespace lathe::studio {

// A task on the editor's bench. Holds the model's snapshots because the
// workbench reads the optimized graph and groups by reference.
struct OpenedScheduleTask {
  OpenedScheduleTask(std::shared_ptr<const GraphSnapshots> snapshots,
                     const driver::KernelTask& task);

  std::shared_ptr<const GraphSnapshots> snapshots;
  driver::KernelWorkbench workbench;
  QString defaultText;
  std::optional<QString> journaledText;  // the newest edit the journal holds
  QString journalProblem;                // why the journal could not be read, if so
  views::ScheduleVocabulary vocabulary;
  // Why the kernel cannot be measured here (driver::why_kernels_cannot_run), or empty.
  QString whyNoRun;

  const driver::KernelTask& task() const { return workbench.task(); }
  const driver::Target& target() const { return snapshots->target; }
};

class ScheduleEditorTracker : public QObject {
  Q_OBJECT

 public:
  // The wait after a keystroke before lowering: short enough that lowering and
  // the loop IR land within 300 ms of the last keystroke.
  static constexpr int kPreviewDelayMs = 120;
  static constexpr int kMeasureRuns = 50;
  // Largest normalized error of an output that still matches the reference
  // (what `lathe schedule --measure` accepts).
  static constexpr double kReferenceTolerance = 1e-4;

  explicit ScheduleEditorTracker(QObject* parent = nullptr);

  // The target previews and measurements compile for: the open task's
  // snapshots' (the studio's target picker), this machine before one opens.
  driver::Target target() const;

  // Extracts the tasks of the snapshots' optimized graph; tasksListed follows.
  void listTasks(std::shared_ptr<const GraphSnapshots> snapshots);
  // Opens a task; taskOpened follows. Previews and measurements of the task
  // open before are dropped from here on.
  void openTask(std::shared_ptr<const GraphSnapshots> snapshots, const driver::KernelTask& task,
                const QString& journalPath);
  std::shared_ptr<const OpenedScheduleTask> openedTask() const { return opened_; }

  // Previews `text` once kPreviewDelayMs pass without another call.
  void schedulePreview(const QString& text);
  // Previews `text` now (opening a task, Reset, Load best).
  void preview(const QString& text);
  // Lowers and measures `text`; measured or measureFailed follows. One at a time.
  void measure(const QString& text);
  // For a GPU target: lowers `text` and runs it once on the GPU simulator
  // against the reference (KernelWorkbench::simulate_on_gpu), which needs no
  // GPU; simulated or simulateFailed follows. Shares measure's queue.
  void simulate(const QString& text);
  // Reads `path` for the fastest error-free record of the open task for
  // target(); bestRecordFound or bestRecordMissing follows.
  void findBestRecord(const QString& path);

  // The machine loop costs are estimated for, instead of this one measured
  // (tests, for cache sizes that do not depend on the machine running them).
  void setLoopCostMachine(const driver::LoopCostMachine& machine);

  bool isPreviewing() const { return previews_.isBusy(); }
  bool isMeasuring() const { return measurements_.isBusy(); }

 signals:
  void tasksListed(std::shared_ptr<const GraphSnapshots> snapshots,
                   std::vector<driver::KernelTask> tasks);
  void taskOpened(std::shared_ptr<const OpenedScheduleTask> task);
  // Opening a task failed (no task is open then), or listing the tasks did
  // (funcName is empty).
  void openFailed(const QString& funcName, const QString& message);

  void previewBusyChanged(bool busy);
  void lowered(const QString& text, const QList<views::LoweringPassText>& passes,
               double milliseconds);
  void loweringFailed(const QString& text, const QList<views::ScheduleEditorDiagnostic>& problems);
  // The costs of the loops of `loopIR` (the lowered text's loop IR as
  // compiled), as annotations of its `for` lines.
  void loopCostsComputed(const QString& text, const QString& loopIR,
                         const QList<views::LineAnnotation>& annotations, double estimatedMs);
  void loopCostsFailed(const QString& text, const QString& message);
  void llvmEmitted(const QString& text, const QString& llvmIR, double milliseconds);
  void assemblyEmitted(const QString& text, const QString& assembly, double milliseconds);
  void codegenFailed(const QString& text, const QString& message);

  void measuringChanged(bool measuring);
  // peakGflops: the machine's peak on all threads.
  void measured(const QString& text, const driver::KernelMeasurement& measurement,
                double peakGflops, bool correct);
  void measureFailed(const QString& text, const QString& message);
  // maxError: the largest normalized error against the reference.
  void simulated(const QString& text, double maxError, bool correct);
  void simulateFailed(const QString& text, const QString& message);

  void bestRecordFound(const QString& path, const QString& schedule, double milliseconds);
  void bestRecordMissing(const QString& path, const QString& reason);

 private:
  void startPreview(const QString& text);

  std::shared_ptr<const driver::LoopCostMachine> loopCostMachine_;  // null: this machine
  std::shared_ptr<const OpenedScheduleTask> opened_;
  QTimer previewTimer_;
  QString timedText_;  // what the timer will preview

  views::JobTracker listings_{this};
  views::JobTracker openings_{this};
  // A newer text stops the running preview's code generation and waits for it.
  views::JobTracker previews_{this, views::JobTracker::Overlap::Serial};
  // Serial, so that a dropped measurement still holds off the next one.
  views::JobTracker measurements_{this, views::JobTracker::Overlap::Serial};
  views::JobTracker recordSearches_{this};
};

}  // namespace lathe::studio
