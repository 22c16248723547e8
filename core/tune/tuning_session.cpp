#include "tune/tuning_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

#include "support/error.h"
#include "support/timer.h"
#include "tune/cost_model.h"
#include "tune/search_strategy.h"
#include "tune/task_scheduler.h"

namespace lathe::tune {
namespace {

double gflops_of(int64_t flops, double ms) {
  return std::isfinite(ms) && ms > 0 ? static_cast<double>(flops) / (ms * 1e6) : 0;
}

}  // namespace

struct TuningSession::Impl {
  std::vector<SearchTask> tasks;
  TuningOptions options;
  TuningListener* listener;
  std::vector<std::unique_ptr<SearchStrategy>> strategies;
  std::vector<TaskTuningState> states;
  std::vector<int> since_best;  // trials since the last new best
  TaskScheduler scheduler;
  CostModel model;
  // Measurements the cost model has not seen yet: CostModel::update adds to
  // what it holds, so each sample is handed over exactly once.
  std::vector<std::vector<float>> samples;
  std::vector<double> sample_gflops;
  std::vector<int> sample_task;
  bool learns = false;  // only the xgb tuner asks the model
  // Features of configs scored so far, per task (empty: instantiation failed).
  std::vector<std::map<topi::Config, std::vector<float>>> feature_cache;
  std::mutex cache_mutex;
  RecordWriter writer;
  // Each task's best as an object, to measure it again against a candidate
  // (built from the best record's schedule text when that came from prior records).
  std::vector<std::vector<char>> best_object;
  std::vector<char> best_object_built;
  int threads;
  double paused_s = 0;
  Timer clock;

  Impl(std::vector<SearchTask> t, TuningOptions o, TuningListener* l)
      : tasks(std::move(t)),
        options(std::move(o)),
        listener(l),
        states(tasks.size()),
        since_best(tasks.size(), 0),
        scheduler(options.scheduler),
        feature_cache(tasks.size()),
        best_object(tasks.size()),
        best_object_built(tasks.size(), 0) {
    threads = options.build_threads > 0
                  ? options.build_threads
                  : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    for (size_t i = 0; i < tasks.size(); ++i) {
      strategies.push_back(make_search_strategy(
          options.tuner, tasks[i].space, options.seed + i,
          [this, i](const std::vector<topi::Config>& configs) { return score(i, configs); }));
      states[i].weight = tasks[i].task.weight();
    }
    if (!options.records_path.empty()) writer = RecordWriter(options.records_path);
    learns = options.tuner == "xgb";
  }

  void add_sample(const std::vector<float>& features, double gflops, int task) {
    if (!learns) return;
    samples.push_back(features);
    sample_gflops.push_back(gflops);
    sample_task.push_back(task);
  }

  void train() {
    if (samples.empty()) return;
    model.update(samples, sample_gflops, sample_task);
    samples.clear();
    sample_gflops.clear();
    sample_task.clear();
  }

  double elapsed() const { return clock.seconds() - paused_s; }

  std::vector<double> score(size_t task, const std::vector<topi::Config>& configs) {
    std::vector<std::vector<float>> features(configs.size());
    std::vector<char> known(configs.size(), 0);
    {
      std::lock_guard lock(cache_mutex);
      for (size_t k = 0; k < configs.size(); ++k)
        if (auto it = feature_cache[task].find(configs[k]); it != feature_cache[task].end()) {
          features[k] = it->second;
          known[k] = 1;
        }
    }
    parallel_for_each(configs.size(), threads, [&](size_t k) {
      if (known[k]) return;
      Candidate c = instantiate(tasks[task], configs[k]);
      features[k] = c.ok() ? c.features : std::vector<float>{};
      std::lock_guard lock(cache_mutex);
      feature_cache[task][configs[k]] = features[k];
    });
    std::vector<std::vector<float>> rows;
    for (const auto& f : features)
      if (!f.empty()) rows.push_back(f);
    std::vector<double> predicted = rows.empty() ? std::vector<double>{} : model.predict(rows);
    std::vector<double> scores;
    size_t next = 0;
    for (const auto& f : features)
      scores.push_back(f.empty() ? -std::numeric_limits<double>::infinity() : predicted[next++]);
    return scores;
  }

  MeasureResult measure(MeasureWorker& worker, size_t task, const std::vector<char>& object,
                        const std::string& schedule, bool outputs) {
    MeasureResult result =
        worker.measure({object, tasks[task].task.func_name, outputs}, options.measure);
    if (options.measure_hook) options.measure_hook(task, schedule, result);
    return result;
  }

  // The task's best record as an object; nullptr when there is none or its
  // schedule no longer builds.
  const std::vector<char>* rival_object(size_t task, const TuningRecord& best) {
    if (!best.ok()) return nullptr;
    if (best_object[task].empty() && !best_object_built[task]) {
      best_object_built[task] = 1;
      Candidate c = build_schedule_text(tasks[task], best.schedule, options.target);
      if (c.ok()) best_object[task] = std::move(c.object);
    }
    return best_object[task].empty() ? nullptr : &best_object[task];
  }

  // Measures the candidate of record `r` (faster at first than `best`) and
  // the best again, alternately, and says in `r` whether it stayed faster.
  void confirm(MeasureWorker& worker, size_t task, const Candidate& c, const TuningRecord& best,
               TuningRecord& r) {
    const std::vector<char>* rival = rival_object(task, best);
    if (options.confirm_rounds <= 0 || !rival) return;  // nothing to compare with
    for (int round = 0; round < options.confirm_rounds; ++round) {
      MeasureResult b = measure(worker, task, *rival, best.schedule, false);
      if (b.error == ErrorKind::None)
        r.rival_costs_ms.insert(r.rival_costs_ms.end(), b.costs_ms.begin(), b.costs_ms.end());
      MeasureResult m = measure(worker, task, c.object, c.schedule_text, false);
      if (m.error != ErrorKind::None) {
        // A candidate that fails when run again is no best.
        r.confirm_costs_ms.clear();
        break;
      }
      r.confirm_costs_ms.insert(r.confirm_costs_ms.end(), m.costs_ms.begin(), m.costs_ms.end());
    }
    const bool won = !r.confirm_costs_ms.empty() &&
                     robust_cost_ms(r.confirm_costs_ms) < robust_cost_ms(r.rival_costs_ms);
    r.confirmation = won ? Confirmation::Won : Confirmation::Lost;
  }

  TuningRecord base_record(const SearchTask& t, const topi::SearchSpace& space, const Candidate& c,
                           const std::string& tuner) {
    TuningRecord r;
    r.workload = task_workload_id(t.task);
    r.task_key = t.task.key;
    r.ops = t.task.ops;
    r.signature = t.task.signature;
    r.flops = t.task.flops;
    r.target = options.target.to_string();
    r.space = space.name;
    r.config = c.config;
    for (size_t k = 0; k < space.knobs.size() && k < c.config.size(); ++k)
      r.knobs.emplace_back(space.knobs[k].name,
                           space.knobs[k].options.at(static_cast<size_t>(c.config[k])));
    r.schedule = c.schedule_text;
    r.tuner = tuner;
    r.build_ms = c.build_ms;
    return r;
  }

  bool wait_while_paused() {
    TuningControl* control = options.control;
    if (!control) return true;
    Timer paused;
    bool waited = false;
    while (control->pause && !control->stop) {
      waited = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (waited) paused_s += paused.seconds();
    return !control->stop;
  }

  bool out_of_budget(const TuningProgress& p) const {
    if (options.trials > 0 && p.total_trials >= options.trials) return true;
    if (options.time_budget_s > 0 && elapsed() >= options.time_budget_s) return true;
    return false;
  }

  // The session's progress and bests, owned by TuningSession.
  TuningProgress* progress = nullptr;
  std::vector<TuningRecord>* bests = nullptr;
  int loaded_task = -1;  // whose buffers the measure worker holds

  // The whole model's estimate: every task whose default schedule has been
  // measured, at its best; those not measured yet are counted apart, so a
  // partial sum is never taken for the model's.
  void refresh_estimate() {
    TuningProgress& p = *progress;
    p.elapsed_s = elapsed();
    p.estimated_latency_ms = p.estimated_default_ms = 0;
    p.unmeasured_tasks = 0;
    for (const TaskStatus& s : p.tasks) {
      if (!std::isfinite(s.default_ms)) {
        ++p.unmeasured_tasks;
        continue;
      }
      p.estimated_latency_ms += s.weight * std::min(s.best_ms, s.default_ms);
      p.estimated_default_ms += s.weight * s.default_ms;
    }
  }

  bool note_best(size_t ti, const TuningRecord& r) {
    TaskStatus& s = progress->tasks[ti];
    if (!(r.latency_ms() < s.best_ms)) return false;
    s.best_ms = r.latency_ms();
    s.best_gflops = gflops_of(s.flops, s.best_ms);
    states[ti].best_ms = s.best_ms;
    (*bests)[ti] = r;
    return true;
  }

  // Prior records of the same task and target mark their configs tried,
  // set the best and the default so far and teach the cost model.
  void resume() {
    const std::string target = options.target.to_string();
    for (size_t ti = 0; ti < tasks.size(); ++ti) {
      const SearchTask& t = tasks[ti];
      TaskStatus& s = progress->tasks[ti];
      const std::string workload = task_workload_id(t.task);
      std::vector<topi::Config> configs;
      std::vector<double> gflops;
      for (const TuningRecord& r : options.prior_records) {
        if (r.workload != workload || r.target != target) continue;
        if (r.ok()) {
          note_best(ti, r);
          if (r.tuner == "default") s.default_ms = std::min(r.trial_ms(), r.latency_ms());
          if (r.confirmation == Confirmation::Lost) ++s.unconfirmed;
        }
        if (r.space != t.space.name || !t.space.valid(r.config)) continue;
        configs.push_back(r.config);
        gflops.push_back(r.trial_gflops());
      }
      if (configs.empty()) continue;
      strategies[ti]->update(configs, gflops);
      states[ti].trials += static_cast<int>(configs.size());
      s.trials += static_cast<int>(configs.size());
      std::vector<Candidate> built(configs.size());
      parallel_for_each(configs.size(), threads,
                        [&](size_t k) { built[k] = instantiate(t, configs[k]); });
      for (size_t k = 0; k < built.size(); ++k) {
        if (!built[k].ok()) continue;
        add_sample(built[k].features, gflops[k], static_cast<int>(ti));
        std::lock_guard lock(cache_mutex);
        feature_cache[ti][configs[k]] = built[k].features;
      }
    }
    train();
  }

  // Measures every task's default schedule that no record gave yet, the
  // tasks that take most of the model's time first: the estimate then covers
  // the whole model from the start, and the search rounds go where the
  // task scheduler sees the most time to win.
  void measure_baselines(MeasureWorker& worker) {
    std::vector<size_t> order;
    for (size_t ti = 0; ti < tasks.size(); ++ti)
      if (!std::isfinite(progress->tasks[ti].default_ms)) order.push_back(ti);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return tasks[a].task.weight() * tasks[a].task.flops >
             tasks[b].task.weight() * tasks[b].task.flops;
    });
    for (size_t ti : order) {
      if (out_of_budget(*progress) || !wait_while_paused()) return;
      run_round(worker, ti, /*baseline_only=*/true);
    }
  }

  // One round of task `ti`: its default schedule first while it has no
  // measurement of it (the untuned baseline every speed-up is against: the
  // template's default config, what `lathe compile` uses without records,
  // also when the task searches sketches), then a batch of the search's
  // configs unless `baseline_only`. The batch is built on every core and
  // measured one by one.
  void run_round(MeasureWorker& worker, size_t ti, bool baseline_only) {
    TuningProgress& p = *progress;
    SearchTask& t = tasks[ti];
    TaskTuningState& state = states[ti];
    SearchStrategy& strategy = *strategies[ti];
    int n = baseline_only ? 1 : options.batch_size;
    if (options.trials > 0) n = std::min(n, options.trials - p.total_trials);

    const bool baseline_in_space = t.baseline.name == t.space.name;
    const bool baseline = !std::isfinite(p.tasks[ti].default_ms) && state.rounds == 0;
    std::vector<topi::Config> configs;
    std::vector<std::string> tuners;
    if (baseline) {
      configs.push_back(t.baseline.default_config);
      tuners.push_back("default");
      if (baseline_in_space) strategy.mark_tried(t.baseline.default_config);
    }
    if (!baseline_only)
      for (topi::Config& c : strategy.next_batch(n - static_cast<int>(configs.size()))) {
        configs.push_back(std::move(c));
        tuners.push_back(options.tuner);
      }
    if (configs.empty()) {
      if (!baseline_only) state.finished = p.tasks[ti].finished = true;
      return;
    }
    // Whether configs[k] is a point of the task's space (the baseline of a
    // sketch search is not): only those go to the search strategy.
    auto in_space = [&](size_t k) { return !(baseline && k == 0) || baseline_in_space; };

    std::vector<Candidate> built(configs.size());
    parallel_for_each(configs.size(), threads, [&](size_t k) {
      built[k] = baseline && k == 0 ? build_baseline(t, options.target)
                                    : build_candidate(t, configs[k], options.target);
    });
    if (loaded_task != static_cast<int>(ti)) {
      worker.set_buffers(measure_buffers(t.data), static_cast<int>(t.data.num_inputs));
      loaded_task = static_cast<int>(ti);
    }

    std::vector<topi::Config> measured;
    std::vector<double> measured_gflops;
    double round_best = 0;
    for (size_t k = 0; k < built.size(); ++k) {
      if (!wait_while_paused() || out_of_budget(p)) break;
      Candidate& c = built[k];
      const topi::SearchSpace& space = in_space(k) ? t.space : t.baseline;
      TuningRecord r = measure_trial(worker, ti, c, space, tuners[k]);
      const bool new_best = account(ti, c, r, tuners[k] == "default");
      round_best = std::max(round_best, r.trial_gflops());
      // The search and the cost model learn from first measurements only, as
      // every candidate gets one.
      if (in_space(k)) {
        measured.push_back(c.config);
        measured_gflops.push_back(r.trial_gflops());
      }
      if (c.ok()) {
        add_sample(c.features, r.trial_gflops(), static_cast<int>(ti));
        if (in_space(k)) {
          std::lock_guard lock(cache_mutex);
          feature_cache[ti][c.config] = c.features;
        }
      }
      refresh_estimate();
      notify_trial(ti, space, c, r, new_best);
    }
    strategy.update(measured, measured_gflops);
    train();
    ++state.rounds;
    state.best_after_round.push_back(state.best_ms);
    p.tasks[ti].current_gflops = round_best;
    if (!baseline_only && (strategy.exhausted() || (options.early_stopping > 0 &&
                                                    since_best[ti] >= options.early_stopping)))
      state.finished = p.tasks[ti].finished = true;
    refresh_estimate();
    if (listener) listener->on_round(static_cast<int>(ti), p);
  }

  // Measures one built candidate, checks its outputs against the reference
  // executor, confirms a first measurement faster than the best and writes
  // the record.
  TuningRecord measure_trial(MeasureWorker& worker, size_t ti, const Candidate& c,
                             const topi::SearchSpace& space, const std::string& tuner) {
    SearchTask& t = tasks[ti];
    TuningRecord r = base_record(t, space, c, tuner);
    r.started = utc_timestamp();
    if (!c.ok()) {
      r.error_kind = c.error_kind;
      r.error_message = c.error_message;
    } else {
      MeasureResult result = measure(worker, ti, c.object, c.schedule_text, true);
      if (result.error != ErrorKind::None) {
        r.error_kind = to_string(result.error);
        r.error_message = result.message;
      } else {
        r.costs_ms = result.costs_ms;
        // Every result must compute what the reference executor computes:
        // any record without an error may become some file's best.
        try {
          double error = output_error(t.data, result.outputs);
          if (!(error <= options.max_error)) {
            r.error_kind = to_string(ErrorKind::WrongAnswer);
            r.error_message = str("normalized error ", error, " against the reference executor");
          }
        } catch (const Error& e) {
          r.error_kind = to_string(ErrorKind::WrongAnswer);
          r.error_message = e.what();
        }
      }
    }
    // Faster than the best at first: measured again against it before the
    // record is written, so the file's choice of a best is the session's.
    if (r.ok() && r.trial_ms() < progress->tasks[ti].best_ms)
      confirm(worker, ti, c, (*bests)[ti], r);
    r.finished = utc_timestamp();
    if (writer.is_open()) writer.write(r);
    return r;
  }

  // Counts the trial in the task's status; returns whether it is the new best.
  bool account(size_t ti, const Candidate& c, const TuningRecord& r, bool is_default) {
    TuningProgress& p = *progress;
    TaskStatus& s = p.tasks[ti];
    ++s.trials;
    ++states[ti].trials;
    ++p.total_trials;
    if (!r.ok()) ++s.errors;
    if (r.ok() && is_default) s.default_ms = std::min(r.trial_ms(), r.latency_ms());
    if (r.confirmation == Confirmation::Lost) ++s.unconfirmed;
    const bool new_best = r.ok() && note_best(ti, r);
    if (new_best) {
      best_object[ti] = c.object;
      best_object_built[ti] = 1;
    }
    since_best[ti] = new_best ? 0 : since_best[ti] + 1;
    return new_best;
  }

  void notify_trial(size_t ti, const topi::SearchSpace& space, const Candidate& c,
                    const TuningRecord& r, bool new_best) {
    if (!listener) return;
    TrialEvent e;
    e.task_index = static_cast<int>(ti);
    e.trial = progress->tasks[ti].trials;
    e.knobs = space.describe(c.config);
    e.schedule = c.schedule_text;
    e.latency_ms = r.trial_ms();
    e.gflops = r.trial_gflops();
    e.error_kind = r.error_kind;
    e.error_message = r.error_message;
    e.new_best = new_best;
    e.unconfirmed = r.confirmation == Confirmation::Lost;
    listener->on_trial(e, *progress);
  }
};

TuningSession::TuningSession(std::vector<SearchTask> tasks, TuningOptions options,
                             TuningListener* listener)
    : impl_(std::make_unique<Impl>(std::move(tasks), std::move(options), listener)) {
  Impl& m = *impl_;
  LATHE_CHECK(m.options.trials > 0 || m.options.time_budget_s > 0,
              "a tuning session needs a number of trials or a time budget");
  LATHE_CHECK(m.options.batch_size > 0, "a tuning session needs a positive batch size, got ",
              m.options.batch_size);
  LATHE_CHECK(m.options.confirm_rounds >= 0, "confirm_rounds must not be negative");
  progress_.planned_trials = m.options.trials;
  progress_.time_budget_s = m.options.time_budget_s;
  best_.resize(m.tasks.size());
  for (const SearchTask& t : m.tasks) {
    TaskStatus s;
    s.id = t.task.id;
    s.name = t.task.func_name;
    s.signature = t.task.signature;
    s.flops = t.task.flops;
    s.weight = t.task.weight();
    s.space = t.space.name;
    s.fallback = t.baseline.fallback;
    progress_.tasks.push_back(s);
  }
  m.progress = &progress_;
  m.bests = &best_;
}

TuningSession::~TuningSession() = default;

void TuningSession::run() {
  Impl& m = *impl_;
  m.clock.restart();
  m.resume();
  m.refresh_estimate();
  if (m.listener) m.listener->on_start(progress_);

  MeasureWorker worker;
  m.loaded_task = -1;
  m.measure_baselines(worker);
  while (!m.out_of_budget(progress_) && m.wait_while_paused()) {
    const int ti = m.scheduler.next_task(m.states);
    if (ti < 0) break;
    m.run_round(worker, static_cast<size_t>(ti), /*baseline_only=*/false);
  }
  m.refresh_estimate();
  if (m.listener) m.listener->on_finish(progress_);
}

}  // namespace lathe::tune
