// lathe run MODEL|module.tar [--inputs in.npz] [--output out.npz]
//           [--print-time --repeat N --number M] [--profile [--measure-machine]]
//           [--executor compiled|reference] [--print-tasks]
//           [--target cuda [--check-each-kernel | --simulate-gpu]]
#include <iostream>
#include <memory>

#include "args.h"
#include "commands.h"
#include "driver/compiled_module.h"
#include "driver/executor.h"
#include "driver/gpu_module.h"
#include "driver/gpu_roof.h"
#include "driver/kernel_roofline.h"
#include "driver/model_loader.h"
#include "driver/reference_run.h"
#include "driver/target_device.h"
#include "driver/tensor_files.h"
#include "model_options.h"
#include "support/error.h"
#include "support/timer.h"
#include "task_list.h"

namespace lathe::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Feeds the .npz arrays named like the executor's inputs; reports the rest.
void set_inputs(driver::GraphExecutor& exec, const std::string& npz) {
  std::map<std::string, Tensor> given;
  if (!npz.empty())
    for (auto& [name, t] : driver::read_npz_tensors(npz)) given[name] = t;
  for (int i = 0; i < exec.num_inputs(); ++i) {
    std::string name = exec.input_name(i);
    auto it = given.find(name);
    if (it == given.end()) {
      std::cerr << "note: input '" << name << "' not given; using zeros\n";
      continue;
    }
    TensorType expected{*dtype_from_name(exec.input_dtype(i).to_string()), exec.input_shape(i)};
    const Tensor t = driver::as_input_dtype(it->second, expected.dtype);
    LATHE_CHECK(t.type() == expected, "input '", name, "' expects ", expected.to_string(), ", got ",
                t.type().to_string(), " from ", npz);
    exec.set_input(name, t.raw(), t.nbytes());
    given.erase(it);
  }
  for (const auto& [name, t] : given)
    std::cerr << "note: ignoring '" << name << "' in " << npz << ": not an input of the model\n";
}

// Outputs are named as the model names them when it is at hand, else as tvmc
// names a package's outputs: output_0, output_1 ...
// `compiled` is the in-memory compile the executor runs, when there is one:
// the profile then places each kernel on the machine's roofline (a package
// carries no loop IR to model, so its profile has the times only), with the
// machine's peak and bandwidths kept from an earlier run unless
// --measure-machine asks for them anew.
int run_compiled(driver::GraphExecutor& exec, const Args& args,
                 const std::vector<std::string>& output_names,
                 const driver::CompiledGraph* compiled = nullptr) {
  if (exec.device().type != runtime::DeviceType::Host) {
    std::cerr << "note: running on " << driver::device_description(exec.device()) << "\n";
    exec.set_check_each_kernel(args.has("check-each-kernel"));
  }
  set_inputs(exec, args.get("inputs"));
  exec.run();
  if (args.has("output")) {
    driver::NamedTensors named;
    for (int i = 0; i < exec.num_outputs(); ++i)
      named.emplace_back(i < static_cast<int>(output_names.size())
                             ? output_names[static_cast<size_t>(i)]
                             : "output_" + std::to_string(i),
                         driver::from_ndarray(exec.output(i)));
    driver::write_npz_tensors(args.get("output"), named);
  }
  if (args.has("print-time")) {
    driver::TimeSummary times =
        driver::benchmark(exec, args.get_int("repeat", 10), args.get_int("number", 1));
    std::cout << driver::format_time_summary(times) << "\n";
  }
  if (args.has("profile")) {
    const std::vector<driver::KernelProfile> profile = exec.profile(args.get_int("repeat", 10));
    if (!compiled) {
      std::cout << driver::GraphExecutor::format_profile(profile);
      return 0;
    }
    // On a GPU, the roof of the board it ran on, from the driver's attributes.
    const driver::MachineRoof machine =
        exec.device().type == runtime::DeviceType::Cuda
            ? driver::cuda_device_roof(exec.device().id)
            : driver::machine_roof(args.has("measure-machine") ? driver::Remeasure::Always
                                                               : driver::Remeasure::IfMissing);
    std::cout << driver::format_roofline_profile(
        driver::kernel_rooflines(*compiled, profile, machine), machine);
  }
  return 0;
}

// A cuda build runs where the package would: the PTX loaded by the driver,
// the graph's memory on the GPU. The profile has the kernels' times from
// CUDA events, placed on the GPU's roofline (driver/gpu_roof.h).
// With --simulate-gpu, the GPU simulator runs the kernels on the host instead.
int run_on_gpu(const driver::CompiledGraph& compiled, const driver::Target& target,
               const Args& args, const std::vector<std::string>& output_names) {
  if (args.has("simulate-gpu")) {
    std::cerr << "note: running the " << target.to_string()
              << " kernels on the host's GPU simulator\n";
    std::unique_ptr<runtime::GraphExecutor> exec =
        driver::make_simulated_gpu_executor(compiled, target);
    return run_compiled(*exec, args, output_names);
  }
  // Without a GPU the kernels can still be checked, not timed.
  if (const std::string why = driver::why_kernels_cannot_run(target); !why.empty())
    fail(str("--target ", target.to_string(), " runs on the GPU; ", why,
             "; --simulate-gpu runs the ", target.to_string(),
             " kernels on this CPU's GPU simulator instead (outputs, no times)"));
  std::unique_ptr<runtime::GraphExecutor> exec = driver::make_gpu_executor(compiled, target);
  return run_compiled(*exec, args, output_names, &compiled);
}

int run_reference(const Graph& graph, const Args& args) {
  std::map<std::string, Tensor> inputs;
  if (args.has("inputs")) {
    for (auto& [name, t] : driver::read_npz_tensors(args.get("inputs"))) {
      ValueId input = kNoValue;
      for (ValueId id : graph.inputs)
        if (graph.value(id).name == name) input = id;
      // An .npz often carries reference outputs beside the inputs.
      if (input != kNoValue)
        inputs[name] = driver::as_input_dtype(t, graph.type(input).dtype);
      else
        std::cerr << "note: ignoring '" << name << "' in " << args.get("inputs")
                  << ": not an input of the model\n";
    }
  }
  Timer timer;
  std::vector<Tensor> outputs = driver::run_reference(graph, inputs);
  double ms = timer.milliseconds();
  driver::NamedTensors named;
  for (size_t i = 0; i < outputs.size(); ++i)
    named.emplace_back(graph.value(graph.outputs[i]).name, outputs[i]);
  if (args.has("output")) {
    driver::write_npz_tensors(args.get("output"), named);
  } else {
    for (const auto& [name, t] : named) std::cout << name << ": " << t.type().to_string() << "\n";
  }
  if (args.has("print-time")) std::cout << "Reference run: " << ms << " ms\n";
  return 0;
}

int run(const Args& args) {
  const std::string& path = args.positional();
  std::string executor = args.get("executor", "compiled");
  LATHE_CHECK(executor == "compiled" || executor == "reference", "unknown executor '", executor,
              "'; expected compiled or reference");
  if (ends_with(path, ".tar")) {
    LATHE_CHECK(executor == "compiled", "a package runs on the compiled executor only");
    LATHE_CHECK(!args.has("print-tasks"),
                "--print-tasks needs a model: a package keeps its kernels, not their tasks");
    driver::Package package(path);
    return run_compiled(package.executor(), args, {});
  }
  LATHE_CHECK(!args.has("check-each-kernel") || target_of(args).is_gpu(),
              "--check-each-kernel is for a cuda target (or package)");
  LATHE_CHECK(!args.has("simulate-gpu") || target_of(args).is_gpu(),
              "--simulate-gpu runs a cuda target's kernels on the host; give --target cuda");
  LATHE_CHECK(!args.has("simulate-gpu") || (!args.has("print-time") && !args.has("profile")),
              "--simulate-gpu checks what the kernels compute; its times say nothing of a GPU's, "
              "so it takes neither --print-time nor --profile");
  Graph graph = load_model(args, args.get("inputs"));
  LATHE_CHECK(
      executor == "compiled" || !args.has("print-tasks"),
      "--print-tasks lists the compiled executor's kernels; the reference executor has none");
  if (executor == "reference") return run_reference(graph, args);
  driver::CompileOptions compile;
  compile.target = target_of(args);
  compile.passes.record_snapshots = false;
  driver::CompiledGraph compiled = driver::compile_graph(graph, compile);
  if (args.has("print-tasks")) print_task_list(std::cout, driver::all_tasks(compiled));
  std::vector<std::string> output_names;
  for (ValueId v : graph.outputs) output_names.push_back(graph.value(v).name);
  if (compile.target.is_gpu()) return run_on_gpu(compiled, compile.target, args, output_names);
  driver::JitGraphModule module(compiled, compile.target);
  return run_compiled(module.executor(), args, output_names, &compiled);
}

}  // namespace

Command run_command(CLI::App& lathe) {
  auto args = std::make_shared<Args>(
      lathe, "run", "Run a package or a model: outputs, time summary, per-kernel profile");
  args->positional("MODEL", "ONNX model file, or a package from `lathe compile` (.tar)")
      .value("inputs", "FILE.npz",
             "input tensors by name (missing ones are zeros); their shapes give the dimensions "
             "the model leaves symbolic")
      .value("output", "FILE.npz", "write the outputs")
      .flag("print-time", "print mean, median, max, min and std of the run time")
      .value("repeat", "N", "measurements for --print-time and --profile (default 10)")
      .value("number", "M", "runs per measurement for --print-time (default 1)")
      .flag("profile", "time each kernel")
      .flag("measure-machine",
            "with --profile: measure the machine's peak and bandwidths again (the best of these "
            "and the kept ones is kept) instead of using the ones kept from an earlier run")
      .value("executor", "compiled|reference",
             "compiled kernels (default) or the plain reference kernels")
      .flag("print-tasks",
            "list the kernels and the schedule each got, and why any fell back to the generic one")
      .flag("check-each-kernel",
            "on a GPU: wait after every kernel, so that a kernel's fault names it (slower)")
      .flag("simulate-gpu",
            "with --target cuda: run the kernels on the host's GPU simulator, thread by thread "
            "(slow), to check what a cuda build computes on a machine without a GPU")
      .target_option()
      .input_shapes_option()
      .plugin_option();
  return {args, run};
}

}  // namespace lathe::cli
