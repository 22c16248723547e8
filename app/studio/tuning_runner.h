// Plans a model's tuning tasks and runs one tuning session at a time, both
// off the GUI thread. The session runs on a std::thread of its own (it blocks
// for minutes and must not hold a pool thread); its listener copies every
// event and queues it to this object's thread, where it is emitted as a
// signal. Pause, resume and stop go through the session's TuningControl.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <thread>
#include <vector>

#include "driver/tuning.h"
#include "ir/graph.h"
#include "views/job_tracker.h"

namespace lathe::studio {

class TuningRunner : public QObject {
  Q_OBJECT

 public:
  enum class State {
    Idle,
    Preparing,  // building the tasks' computations, spaces and reference outputs
    Running,
    Paused,
    Stopping
  };
  Q_ENUM(State)

  struct Request {
    std::shared_ptr<const driver::TuningPlan> plan;
    std::vector<int> selected;  // task ids of the plan
    driver::TuningOptions options;
    // Records to resume from, read on the session's thread; empty: none.
    QString resumeFrom;
    // The model as imported: with a records file, each task's best is timed
    // inside it against the default after the search (driver/in_model_check).
    std::shared_ptr<const Graph> graph;
  };

  explicit TuningRunner(QObject* parent = nullptr);
  // Stops a running session and waits for its thread: a candidate being built
  // or measured finishes first (seconds at most; measuring has a timeout).
  ~TuningRunner() override;

  // Plans `graph`'s tasks in the background; the newest request wins.
  void plan(const QString& path, std::shared_ptr<const Graph> graph);

  // Starts a session; false (and nothing happens) while another is active.
  bool start(Request request);
  void pause();
  void resume();
  // The session ends after the candidate in flight; finished() follows.
  void stop();

  State state() const { return state_; }
  bool isActive() const { return state_ != State::Idle; }

 signals:
  void planned(const QString& path, std::shared_ptr<const lathe::driver::TuningPlan> plan);
  void planFailed(const QString& path, const QString& message);

  void stateChanged(lathe::studio::TuningRunner::State state);
  void started(const lathe::driver::TuningProgress& progress);
  void trialMeasured(const lathe::driver::TrialEvent& trial,
                     const lathe::driver::TuningProgress& progress);
  void roundFinished(int taskIndex, const lathe::driver::TuningProgress& progress);
  void message(const QString& text);
  // The session ended: its budget was spent, every task finished, or `stopped`.
  void finished(const lathe::driver::TuningProgress& progress, bool stopped);
  // The session could not start or threw; the runner is idle again.
  void failed(const QString& message);

 private:
  class Forwarder;

  void runSession(Request request);
  void setState(State state);
  // On the GUI thread, once the session's thread has posted its last event.
  void sessionEnded();

  driver::TuningControl control_;
  std::thread thread_;
  State state_ = State::Idle;
  bool started_ = false;  // the session's on_start arrived: preparing is over
  views::JobTracker plans_{this};
};

}  // namespace lathe::studio
