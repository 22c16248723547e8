// The tuning session's thread and the bridge of its events to the GUI thread.
#include "studio/tuning_runner.h"

#include <exception>
#include <filesystem>
#include <utility>

#include "driver/in_model_check.h"
#include "driver/target.h"
#include "driver/tuning_records.h"
#include "studio/exception_text.h"

namespace lathe::studio {

namespace {

struct PlanOutcome {
  std::shared_ptr<const driver::TuningPlan> plan;  // null on failure
  QString message;
};

PlanOutcome planTasks(std::shared_ptr<const Graph> graph) {
  PlanOutcome outcome;
  try {
    // Tuning runs on this machine: its vector unit decides the layout.
    driver::PassOptions passes;
    passes.vector_unit = driver::Target::host().vector_unit();
    outcome.plan = std::make_shared<driver::TuningPlan>(driver::plan_tuning(*graph, passes));
  } catch (...) {
    outcome.message = exceptionText(std::current_exception());
  }
  return outcome;
}

}  // namespace

// Runs on the session's thread. Each event is copied into a call queued to
// the runner, so the GUI thread never reads what the session still changes.
class TuningRunner::Forwarder : public driver::TuningListener {
 public:
  explicit Forwarder(TuningRunner* runner) : runner_(runner) {}

  void on_start(const driver::TuningProgress& progress) override {
    post([runner = runner_, progress] {
      runner->started_ = true;
      if (runner->state_ == State::Preparing) runner->setState(State::Running);
      emit runner->started(progress);
    });
  }
  void on_trial(const driver::TrialEvent& trial, const driver::TuningProgress& progress) override {
    post([runner = runner_, trial, progress] { emit runner->trialMeasured(trial, progress); });
  }
  void on_round(int taskIndex, const driver::TuningProgress& progress) override {
    post([runner = runner_, taskIndex, progress] {
      emit runner->roundFinished(taskIndex, progress);
    });
  }
  void on_message(const std::string& text) override {
    post([runner = runner_, text = QString::fromStdString(text)] { emit runner->message(text); });
  }

  template <typename Call>
  void post(Call&& call) {
    // A call queued to an object that is deleted before it runs is dropped
    // with the object; the runner's destructor joins this thread first.
    QMetaObject::invokeMethod(runner_, std::forward<Call>(call), Qt::QueuedConnection);
  }

 private:
  TuningRunner* runner_;
};

TuningRunner::TuningRunner(QObject* parent) : QObject(parent) {}

TuningRunner::~TuningRunner() {
  if (!thread_.joinable()) return;
  control_.stop = true;
  thread_.join();
}

void TuningRunner::plan(const QString& path, std::shared_ptr<const Graph> graph) {
  plans_.start([graph = std::move(graph)] { return planTasks(graph); },
               [this, path](const PlanOutcome& outcome) {
                 if (outcome.plan)
                   emit planned(path, outcome.plan);
                 else
                   emit planFailed(path, outcome.message);
               });
}

bool TuningRunner::start(Request request) {
  if (isActive() || !request.plan) return false;
  if (thread_.joinable()) thread_.join();
  control_.stop = false;
  control_.pause = false;
  started_ = false;
  setState(State::Preparing);
  thread_ = std::thread(&TuningRunner::runSession, this, std::move(request));
  return true;
}

void TuningRunner::pause() {
  if (state_ != State::Running && state_ != State::Preparing) return;
  control_.pause = true;
  setState(State::Paused);
}

void TuningRunner::resume() {
  if (state_ != State::Paused) return;
  control_.pause = false;
  setState(started_ ? State::Running : State::Preparing);
}

void TuningRunner::stop() {
  if (!isActive() || state_ == State::Stopping) return;
  control_.stop = true;
  control_.pause = false;
  setState(State::Stopping);
}

void TuningRunner::runSession(Request request) {
  Forwarder forwarder(this);
  try {
    if (!request.resumeFrom.isEmpty()) {
      const std::string path = request.resumeFrom.toStdString();
      if (std::filesystem::exists(path)) {
        driver::RecordFile prior = driver::read_records(path);
        for (const std::string& warning : prior.warnings)
          forwarder.on_message("warning: " + warning);
        forwarder.on_message("resuming from " + std::to_string(prior.records.size()) +
                             " records in " + path);
        request.options.prior_records = std::move(prior.records);
      } else {
        forwarder.on_message("nothing to resume: " + path + " does not exist yet");
      }
    }
    request.options.control = &control_;
    const std::string records = request.options.records_path;
    driver::TuningProgress last;
    {
      // Building the tasks takes seconds; a stop meanwhile skips the search.
      auto session = driver::make_tuning_session(*request.plan, request.selected,
                                                 std::move(request.options), &forwarder);
      if (!control_.stop) session->run();
      last = session->progress();
    }  // the session's measure worker has exited before the GUI hears it ended
    if (!control_.stop && request.graph && !records.empty() && last.total_trials > 0) {
      forwarder.on_message("checking the best schedules inside the model against the defaults");
      const driver::InModelCheck check =
          driver::check_records_in_model(*request.graph, driver::CompileOptions{}, records);
      forwarder.on_message(driver::format_in_model_check(check));
    }
    const bool stopped = control_.stop;
    forwarder.post([this, last, stopped] {
      sessionEnded();
      emit finished(last, stopped);
    });
  } catch (...) {
    forwarder.post([this, message = exceptionText(std::current_exception())] {
      sessionEnded();
      emit failed(message);
    });
  }
}

void TuningRunner::sessionEnded() {
  // The thread has posted its last call and is returning.
  if (thread_.joinable()) thread_.join();
  setState(State::Idle);
}

void TuningRunner::setState(State state) {
  if (state == state_) return;
  state_ = state;
  emit stateChanged(state);
}

}  // namespace lathe::studio
