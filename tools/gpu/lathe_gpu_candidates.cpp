// Prepares GPU tuning for the device check (tools/gpu/device_check.sh), here
// without a GPU: the heaviest cuda tasks of a model (FLOPs x weight), each
// with its untuned schedule first and then candidates drawn from the cuda
// template's space and the GPU sketches (tune/sketch_space_cuda.h), built
// and verified as the tuner builds them (cuda kernel objects: PTX + launch).
// The device measures them with lathe_device_tune in the same call as the
// zoo, because the device machine has no LLVM to build candidates with and
// no network to fetch the build from.
//
//   lathe_gpu_candidates MODEL OUT_DIR [--tasks N] [--candidates K]
//                        [--target "cuda -arch=sm_90"] [--seed S] [--simulate]
//
// --simulate runs every candidate once on the GPU simulator here
// (codegen/gpu_simulator.h) against the task's reference kernels, records
// its error in task.json ("simulated_error") and counts the mismatches:
// the tuning space checked for correctness before a GPU measures it.
//
// OUT_DIR/task_<i>/task.json names the task (model, kernel, workload, weight,
// FLOPs), its buffers (dtype, shape; inputs first) and each candidate (file,
// space, config, schedule text, and its tuning record without costs, which
// the device fills in); cand_<k>.obj are the kernel objects. Only
// the kernels travel: the device fills the inputs with seeded values and
// checks every candidate against the untuned schedule's outputs there.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "driver/kernel_workbench.h"
#include "driver/tuning.h"
#include "frontend/onnx/onnx_import.h"
#include "support/error.h"
#include "tune/gpu_task.h"
#include "tune/kernel_fixture.h"
#include "tune/measure.h"
#include "tune/records.h"
#include "tune/search_task.h"

using namespace lathe;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::string model, out, target = "cuda -arch=sm_90";
  int tasks = 3, candidates = 32;
  uint64_t seed = 1;
  bool simulate = false;
};

Options parse(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      LATHE_CHECK(i + 1 < argc, a, " needs a value");
      return argv[++i];
    };
    if (a == "--tasks")
      o.tasks = std::stoi(next());
    else if (a == "--candidates")
      o.candidates = std::stoi(next());
    else if (a == "--target")
      o.target = next();
    else if (a == "--seed")
      o.seed = std::stoull(next());
    else if (a == "--simulate")
      o.simulate = true;
    else if (a.rfind("--", 0) == 0)
      fail("unknown option " + a);
    else
      positional.push_back(a);
  }
  LATHE_CHECK(positional.size() == 2 && o.tasks > 0 && o.candidates > 0,
              "usage: lathe_gpu_candidates MODEL OUT_DIR [--tasks N] [--candidates K] "
              "[--target T] [--seed S] [--simulate]");
  o.model = positional[0];
  o.out = positional[1];
  return o;
}

// Up to `count` distinct points of `space` the constraint keeps, at random.
std::vector<topi::Config> draw(const topi::SearchSpace& space, int count, std::mt19937_64& rng) {
  std::vector<topi::Config> configs;
  for (int tries = 0; tries < count * 200 && static_cast<int>(configs.size()) < count; ++tries) {
    topi::Config c;
    for (const topi::Knob& k : space.knobs)
      c.push_back(static_cast<int>(rng() % std::max<size_t>(1, k.options.size())));
    if (space.valid(c) && std::find(configs.begin(), configs.end(), c) == configs.end())
      configs.push_back(c);
  }
  return configs;
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  LATHE_CHECK(f, "cannot write ", path.string());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const codegen::Target target = codegen::Target::parse(o.target);
    LATHE_CHECK(target.is_gpu(), "--target must be a GPU, got '", o.target, "'");
    const Graph graph = onnx_frontend::import_model_file(o.model);
    passes::PassOptions passes;
    passes.alter_layout = false;
    passes.record_snapshots = false;
    passes.vector_unit = target.vector_unit();
    const driver::TuningPlan plan = driver::plan_tuning(graph, passes);

    std::vector<size_t> order(plan.tasks.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto work = [&](size_t i) { return double(plan.tasks[i].flops) * plan.tasks[i].weight(); };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return work(a) > work(b); });
    order.resize(std::min<size_t>(order.size(), static_cast<size_t>(o.tasks)));

    std::mt19937_64 rng(o.seed);
    const std::string model_name = fs::path(o.model).stem().string();
    int index = 0;
    for (size_t ti : order) {
      const tune::KernelTask& task = plan.tasks[ti];
      const fs::path dir = fs::path(o.out) / ("task_" + std::to_string(index++));
      fs::create_directories(dir);
      const tune::SearchTask templ = tune::make_search_task(
          plan.optimized.graph, plan.optimized.groups, task, tune::SpaceKind::Template, target);
      const tune::SearchTask sketch = tune::make_search_task(
          plan.optimized.graph, plan.optimized.groups, task, tune::SpaceKind::Sketch, target);

      // The untuned schedule first: the device's reference and baseline.
      struct Item {
        const topi::SearchSpace* space;
        topi::Config config;
      };
      std::vector<Item> items = {{&templ.baseline, templ.baseline.default_config}};
      const int from_sketch = sketch.space.name == "sketch.cuda" ? o.candidates / 2 : 0;
      if (from_sketch) items.push_back({&sketch.space, sketch.space.default_config});
      for (const topi::Config& c : draw(templ.space, o.candidates - from_sketch, rng))
        if (c != templ.baseline.default_config) items.push_back({&templ.space, c});
      if (from_sketch)
        for (const topi::Config& c : draw(sketch.space, from_sketch - 1, rng))
          items.push_back({&sketch.space, c});

      std::vector<tune::Candidate> built(items.size());
      tune::parallel_for_each(items.size(), 0, [&](size_t k) {
        // A space applies to its own task's computation (the ops it names).
        const tune::SearchTask& owner =
            items[k].space == &templ.space || items[k].space == &templ.baseline ? templ : sketch;
        built[k] = tune::build_candidate(owner, *items[k].space, items[k].config, target);
      });
      LATHE_CHECK(built[0].ok(), "task ", task.id,
                  ": the untuned schedule does not build: ", built[0].error_message);

      nlohmann::json j = {{"model", model_name},
                          {"task", task.id},
                          {"kernel", task.func_name},
                          {"workload", tune::task_workload_id(task)},
                          {"signature", task.signature},
                          {"weight", task.weight()},
                          {"flops", task.flops},
                          {"target", target.to_string()},
                          {"num_inputs", templ.data.num_inputs}};
      j["buffers"] = nlohmann::json::array();
      for (const tune::BufferData& b : tune::measure_buffers(templ.data))
        j["buffers"].push_back({{"dtype", b.dtype}, {"shape", b.shape}});
      j["candidates"] = nlohmann::json::array();
      int kept = 0, refused = 0, mismatched = 0;
      double worst_match = 0;
      // One worker runs the task's candidates on the simulator, each in turn:
      // a kernel that crashes it costs that candidate, and the next starts
      // another.
      std::unique_ptr<tune::MeasureWorker> simulator;
      if (o.simulate) {
        simulator = std::make_unique<tune::MeasureWorker>();
        simulator->set_buffers(tune::measure_buffers(templ.data),
                               static_cast<int>(templ.data.num_inputs));
      }
      std::string first_refusal, first_mismatch;
      for (size_t k = 0; k < built.size(); ++k) {
        if (!built[k].ok()) {
          if (!refused++)
            first_refusal = items[k].space->name + ": " +
                            built[k].error_message.substr(0, built[k].error_message.find('\n'));
          continue;
        }
        const std::string file = "cand_" + std::to_string(kept++) + ".obj";
        write_bytes(dir / file, built[k].object);
        // The tuning record the device completes with its measurement, so
        // that `lathe compile --tuning-records` can build the tuned model.
        tune::TuningRecord r;
        r.workload = tune::task_workload_id(task);
        r.task_key = task.key;
        r.ops = task.ops;
        r.signature = task.signature;
        r.flops = task.flops;
        r.target = target.to_string();
        r.space = items[k].space->name;
        r.config = items[k].config;
        for (size_t n = 0; n < items[k].space->knobs.size(); ++n)
          r.knobs.emplace_back(
              items[k].space->knobs[n].name,
              items[k].space->value(items[k].config, items[k].space->knobs[n].name));
        r.schedule = built[k].schedule_text;
        r.tuner = "device-check";
        r.build_ms = built[k].build_ms;
        nlohmann::json candidate = {{"file", file},
                                    {"space", items[k].space->name},
                                    {"config", items[k].space->describe(items[k].config)},
                                    {"schedule", built[k].schedule_text},
                                    {"record", nlohmann::json::parse(tune::to_json_line(r))}};
        if (o.simulate) {
          std::string problem;
          double error = 0;
          try {
            error = tune::simulated_output_error(*simulator, templ.data, built[k].func, target);
            if (!(error <= driver::KernelMeasurement::kReferenceTolerance))
              problem = "max error " + std::to_string(error);
          } catch (const std::exception& e) {
            problem = e.what();
          }
          candidate["simulated_error"] = problem.empty() ? nlohmann::json(error) : nullptr;
          if (problem.empty()) {
            worst_match = std::max(worst_match, error);
          } else if (!mismatched++) {
            first_mismatch = items[k].space->name + " " +
                             items[k].space->describe(items[k].config) + ": " + problem;
          }
        }
        j["candidates"].push_back(candidate);
      }
      std::ofstream(dir / "task.json") << j.dump(1) << "\n";
      std::printf(
          "%s task %d (%s, %s x%d, %.1f MFLOP): %d candidates, %d refused before "
          "measuring\n",
          model_name.c_str(), task.id, task.func_name.c_str(), templ.baseline.name.c_str(),
          task.weight(), double(task.flops) / 1e6, kept, refused);
      if (refused) std::printf("  first refused: %s\n", first_refusal.substr(0, 300).c_str());
      if (o.simulate)
        std::printf("  on the GPU simulator: %d of %d match the reference (largest error %.1e)%s\n",
                    kept - mismatched, kept, worst_match, mismatched ? "; first mismatch:" : "");
      if (mismatched) std::printf("    %s\n", first_mismatch.substr(0, 400).c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lathe_gpu_candidates: %s\n", e.what());
    return 1;
  }
}
