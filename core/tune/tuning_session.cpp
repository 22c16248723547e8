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
  std::vector<TuningTask> tasks;
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

  Impl(std::vector<TuningTask> t, TuningOptions o, TuningListener* l)
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

  TuningRecord base_record(const TuningTask& t, const topi::SearchSpace& space, const Candidate& c,
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
};

TuningSession::TuningSession(std::vector<TuningTask> tasks, TuningOptions options,
                             TuningListener* listener)
    : impl_(std::make_unique<Impl>(std::move(tasks), std::move(options), listener)) {
  const Impl& m = *impl_;
  LATHE_CHECK(m.options.trials > 0 || m.options.time_budget_s > 0,
              "a tuning session needs a number of trials or a time budget");
  LATHE_CHECK(m.options.batch_size > 0, "a tuning session needs a positive batch size, got ",
              m.options.batch_size);
  LATHE_CHECK(m.options.confirm_rounds >= 0, "confirm_rounds must not be negative");
  progress_.planned_trials = m.options.trials;
  progress_.time_budget_s = m.options.time_budget_s;
  best_.resize(m.tasks.size());
  for (const TuningTask& t : m.tasks) {
    TaskStatus s;
    s.id = t.task.id;
    s.name = t.task.func_name;
    s.signature = t.task.signature;
    s.flops = t.task.flops;
    s.weight = t.task.weight();
    progress_.tasks.push_back(s);
  }
}

TuningSession::~TuningSession() = default;

void TuningSession::run() {
  Impl& m = *impl_;
  m.clock.restart();
  TuningProgress& p = progress_;
  auto refresh_estimate = [&] {
    p.elapsed_s = m.elapsed();
    p.estimated_latency_ms = p.estimated_default_ms = 0;
    for (const TaskStatus& s : p.tasks) {
      if (std::isfinite(s.best_ms)) p.estimated_latency_ms += s.weight * s.best_ms;
      if (std::isfinite(s.default_ms)) p.estimated_default_ms += s.weight * s.default_ms;
    }
  };
  auto note_best = [&](size_t ti, const TuningRecord& r) {
    TaskStatus& s = p.tasks[ti];
    if (r.latency_ms() < s.best_ms) {
      s.best_ms = r.latency_ms();
      s.best_gflops = gflops_of(s.flops, s.best_ms);
      m.states[ti].best_ms = s.best_ms;
      best_[ti] = r;
      return true;
    }
    return false;
  };

  // Resume: prior records of the same task and target mark their configs
  // tried, set the best so far and teach the cost model.
  const std::string target = m.options.target.to_string();
  for (size_t ti = 0; ti < m.tasks.size(); ++ti) {
    const TuningTask& t = m.tasks[ti];
    const std::string workload = task_workload_id(t.task);
    std::vector<topi::Config> configs;
    std::vector<double> gflops;
    for (const TuningRecord& r : m.options.prior_records) {
      if (r.workload != workload || r.target != target) continue;
      if (r.ok()) {
        note_best(ti, r);
        if (r.tuner == "default") p.tasks[ti].default_ms = std::min(r.trial_ms(), r.latency_ms());
        if (r.confirmation == Confirmation::Lost) ++p.tasks[ti].unconfirmed;
      }
      if (r.space != t.space.name || !t.space.valid(r.config)) continue;
      configs.push_back(r.config);
      gflops.push_back(r.trial_gflops());
    }
    if (configs.empty()) continue;
    m.strategies[ti]->update(configs, gflops);
    m.states[ti].trials += static_cast<int>(configs.size());
    p.tasks[ti].trials += static_cast<int>(configs.size());
    std::vector<Candidate> built(configs.size());
    parallel_for_each(configs.size(), m.threads,
                      [&](size_t k) { built[k] = instantiate(t, configs[k]); });
    for (size_t k = 0; k < built.size(); ++k) {
      if (!built[k].ok()) continue;
      m.add_sample(built[k].features, gflops[k], static_cast<int>(ti));
      std::lock_guard lock(m.cache_mutex);
      m.feature_cache[ti][configs[k]] = built[k].features;
    }
  }
  m.train();
  refresh_estimate();
  if (m.listener) m.listener->on_start(p);

  MeasureWorker worker;
  int loaded_task = -1;
  while (!m.out_of_budget(p) && m.wait_while_paused()) {
    const int ti = m.scheduler.next_task(m.states);
    if (ti < 0) break;
    const size_t t_index = static_cast<size_t>(ti);
    TuningTask& t = m.tasks[t_index];
    TaskTuningState& state = m.states[t_index];
    SearchStrategy& strategy = *m.strategies[t_index];
    int n = m.options.batch_size;
    if (m.options.trials > 0) n = std::min(n, m.options.trials - p.total_trials);

    // The first round of a task measures its default schedule first: the
    // untuned baseline every speed-up is against. That is the template's
    // default config (what `lathe compile` uses without records), also when
    // the task searches sketches.
    const bool baseline_in_space = t.baseline.name == t.space.name;
    const bool baseline = state.rounds == 0 && !std::isfinite(p.tasks[t_index].default_ms);
    std::vector<topi::Config> configs;
    std::vector<std::string> tuners;
    if (baseline) {
      configs.push_back(t.baseline.default_config);
      tuners.push_back("default");
      if (baseline_in_space) strategy.mark_tried(t.baseline.default_config);
    }
    for (topi::Config& c : strategy.next_batch(n - static_cast<int>(configs.size()))) {
      configs.push_back(std::move(c));
      tuners.push_back(m.options.tuner);
    }
    if (configs.empty()) {
      state.finished = p.tasks[t_index].finished = true;
      continue;
    }
    // Whether configs[k] is a point of the task's space (the baseline of a
    // sketch search is not): only those go to the search strategy.
    auto in_space = [&](size_t k) { return !(baseline && k == 0) || baseline_in_space; };

    std::vector<Candidate> built(configs.size());
    parallel_for_each(configs.size(), m.threads, [&](size_t k) {
      built[k] = baseline && k == 0 ? build_baseline(t, m.options.target)
                                    : build_candidate(t, configs[k], m.options.target);
    });
    if (loaded_task != ti) {
      worker.set_buffers(measure_buffers(t.data), static_cast<int>(t.data.num_inputs));
      loaded_task = ti;
    }

    std::vector<topi::Config> measured;
    std::vector<double> measured_gflops;
    double round_best = 0;
    for (size_t k = 0; k < built.size(); ++k) {
      if (!m.wait_while_paused() || m.out_of_budget(p)) break;
      Candidate& c = built[k];
      TuningRecord r = m.base_record(t, in_space(k) ? t.space : t.baseline, c, tuners[k]);
      r.started = utc_timestamp();
      if (!c.ok()) {
        r.error_kind = c.error_kind;
        r.error_message = c.error_message;
      } else {
        MeasureResult result = m.measure(worker, t_index, c.object, c.schedule_text, true);
        if (result.error != ErrorKind::None) {
          r.error_kind = to_string(result.error);
          r.error_message = result.message;
        } else {
          r.costs_ms = result.costs_ms;
          // Every result must compute what the reference executor computes:
          // any record without an error may become some file's best.
          try {
            double error = output_error(t.data, result.outputs);
            if (!(error <= m.options.max_error)) {
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
      if (r.ok() && r.trial_ms() < p.tasks[t_index].best_ms)
        m.confirm(worker, t_index, c, best_[t_index], r);
      r.finished = utc_timestamp();
      if (m.writer.is_open()) m.writer.write(r);

      TaskStatus& s = p.tasks[t_index];
      ++s.trials;
      ++state.trials;
      ++p.total_trials;
      if (!r.ok()) ++s.errors;
      if (r.ok() && tuners[k] == "default") s.default_ms = std::min(r.trial_ms(), r.latency_ms());
      if (r.confirmation == Confirmation::Lost) ++s.unconfirmed;
      const bool new_best = r.ok() && note_best(t_index, r);
      if (new_best) {
        m.best_object[t_index] = c.object;
        m.best_object_built[t_index] = 1;
      }
      m.since_best[t_index] = new_best ? 0 : m.since_best[t_index] + 1;
      // The search and the cost model learn from first measurements only, as
      // every candidate gets one.
      round_best = std::max(round_best, r.trial_gflops());
      if (in_space(k)) {
        measured.push_back(c.config);
        measured_gflops.push_back(r.trial_gflops());
      }
      if (c.ok()) {
        m.add_sample(c.features, r.trial_gflops(), ti);
        if (in_space(k)) {
          std::lock_guard lock(m.cache_mutex);
          m.feature_cache[t_index][c.config] = c.features;
        }
      }
      refresh_estimate();
      if (m.listener) {
        TrialEvent e;
        e.task_index = ti;
        e.trial = s.trials;
        e.knobs = (in_space(k) ? t.space : t.baseline).describe(c.config);
        e.schedule = c.schedule_text;
        e.latency_ms = r.trial_ms();
        e.gflops = r.trial_gflops();
        e.error_kind = r.error_kind;
        e.error_message = r.error_message;
        e.new_best = new_best;
        e.unconfirmed = r.confirmation == Confirmation::Lost;
        m.listener->on_trial(e, p);
      }
    }
    strategy.update(measured, measured_gflops);
    m.train();
    ++state.rounds;
    state.best_after_round.push_back(state.best_ms);
    p.tasks[t_index].current_gflops = round_best;
    if (strategy.exhausted() ||
        (m.options.early_stopping > 0 && m.since_best[t_index] >= m.options.early_stopping))
      state.finished = p.tasks[t_index].finished = true;
    refresh_estimate();
    if (m.listener) m.listener->on_round(ti, p);
  }
  refresh_estimate();
  if (m.listener) m.listener->on_finish(p);
}

}  // namespace lathe::tune
