#include "tune/search_task.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "schedule/schedule_text.h"
#include "support/error.h"
#include "support/timer.h"
#include "tir/lower.h"
#include "tune/features.h"
#include "tune/gpu_task.h"
#include "tune/sketch_space.h"
#include "tune/sketch_space_cuda.h"

namespace lathe::tune {

SearchTask make_search_task(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                            const KernelTask& task, SpaceKind kind, const VectorUnit& vector_unit) {
  const passes::FusedGroup& group = groups.at(static_cast<size_t>(task.groups.at(0)));
  SearchTask t;
  t.task = task;
  t.computation = build_group_computation(graph, group, vector_unit);
  t.baseline = template_search_space(t.computation);
  t.space = kind == SpaceKind::Sketch ? sketch_search_space(t.computation.outputs, vector_unit)
                                      : t.baseline;
  t.data = make_kernel_fixture(graph, group, t.computation);
  return t;
}

SearchTask make_search_task(const Graph& graph, const std::vector<passes::FusedGroup>& groups,
                            const KernelTask& task, SpaceKind kind, const codegen::Target& target) {
  if (!target.is_gpu()) return make_search_task(graph, groups, task, kind, target.vector_unit());
  const passes::FusedGroup& group = groups.at(static_cast<size_t>(task.groups.at(0)));
  SearchTask t;
  t.task = task;
  t.computation = build_group_computation(graph, group, target.vector_unit());
  t.baseline = gpu_template_search_space(t.computation, target);
  t.task.space = t.baseline.name;
  t.task.fallback.clear();
  t.space = t.baseline;
  if (kind == SpaceKind::Sketch) {
    try {
      t.space = gpu_sketch_search_space(t.computation.outputs, target);
    } catch (const UnsupportedError& e) {
      t.space.fallback = str("sketch.cuda: ", e.what());  // the template's space instead
    }
  }
  t.data = make_kernel_fixture(graph, group, t.computation);
  t.gpu_target = target.to_string();
  return t;
}

namespace {

// Lowers a scheduled computation into `c` (schedule text, function, features).
void lower_into(const SearchTask& task, schedule::Schedule& sch, Candidate& c) {
  c.schedule_text = schedule::print_schedule(sch);
  c.func = tir::lower(sch, task.computation.args(), task.task.func_name,
                      {.record_ir = false, .target = task.gpu_target})
               .func;
  c.features = extract_features(c.func);
}

void compile_into(Candidate& c, const codegen::Target& target) {
  if (!c.ok()) return;
  if (target.is_gpu()) return compile_gpu_candidate(c, target);
  try {
    c.object = codegen::emit_object({c.func}, target);
  } catch (const std::exception& e) {
    c.error_kind = "compile";
    c.error_message = e.what();
  }
}

}  // namespace

Candidate instantiate(const SearchTask& task, const topi::Config& config) {
  return instantiate(task, task.space, config);
}

Candidate instantiate(const SearchTask& task, const topi::SearchSpace& space,
                      const topi::Config& config) {
  Timer timer;
  Candidate c;
  c.config = config;
  try {
    std::vector<te::Operation> ops;
    for (const te::Tensor& t : task.computation.outputs) ops.push_back(t.op());
    schedule::Schedule sch(ops);
    space.apply(sch, config);
    inline_constants(sch, task.computation);
    lower_into(task, sch, c);
  } catch (const std::exception& e) {
    c.error_kind = "instantiation";
    c.error_message = e.what();
  }
  c.build_ms = timer.milliseconds();
  return c;
}

Candidate build_candidate(const SearchTask& task, const topi::Config& config,
                          const codegen::Target& target) {
  return build_candidate(task, task.space, config, target);
}

Candidate build_baseline(const SearchTask& task, const codegen::Target& target) {
  return build_candidate(task, task.baseline, task.baseline.default_config, target);
}

Candidate build_schedule_text(const SearchTask& task, const std::string& schedule_text,
                              const codegen::Target& target) {
  Timer timer;
  Candidate c;
  try {
    lower_into(task, *parse_group_schedule(task.computation, schedule_text), c);
  } catch (const std::exception& e) {
    c.error_kind = "instantiation";
    c.error_message = e.what();
  }
  compile_into(c, target);
  c.build_ms = timer.milliseconds();
  return c;
}

Candidate build_candidate(const SearchTask& task, const topi::SearchSpace& space,
                          const topi::Config& config, const codegen::Target& target) {
  Timer timer;
  Candidate c = instantiate(task, space, config);
  compile_into(c, target);
  c.build_ms = timer.milliseconds();
  return c;
}

void parallel_for_each(size_t n, int threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t extra = std::min<size_t>(n, static_cast<size_t>(std::max(1, threads))) - (n ? 1 : 0);
  for (size_t i = 0; i < extra; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace lathe::tune
