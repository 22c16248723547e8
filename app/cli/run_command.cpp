// lathe run MODEL --executor reference --inputs in.npz --output out.npz
#include <iostream>

#include "args.h"
#include "commands.h"
#include "driver/model_loader.h"
#include "driver/tensor_files.h"
#include "reference/executor.h"
#include "support/error.h"
#include "support/timer.h"

namespace lathe::cli {

int run_command(int argc, char** argv) {
  Args args(argc, argv, 2, {"executor", "inputs", "output", "input-shapes"}, {"print-time"});
  LATHE_CHECK(args.positional().size() == 1,
              "usage: lathe run MODEL --executor reference --inputs in.npz --output out.npz");
  std::string executor = args.get("executor", "reference");
  LATHE_CHECK(executor == "reference", "unknown executor '", executor,
              "'; this build has: reference");
  driver::LoadOptions options;
  if (args.has("input-shapes"))
    options.input_shapes = driver::parse_input_shapes(args.get("input-shapes"));
  Graph graph = driver::load_model(args.positional()[0], options);

  std::map<std::string, Tensor> inputs;
  if (args.has("inputs")) {
    for (auto& [name, t] : driver::read_npz_tensors(args.get("inputs"))) {
      bool is_input = false;
      for (ValueId id : graph.inputs) is_input |= graph.value(id).name == name;
      // An .npz often carries reference outputs beside the inputs.
      if (is_input)
        inputs[name] = t;
      else
        std::cerr << "note: ignoring '" << name << "' in " << args.get("inputs")
                  << ": not an input of the model\n";
    }
  }
  Timer timer;
  std::vector<Tensor> outputs = reference::Executor(graph).run(inputs);
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

}  // namespace lathe::cli
