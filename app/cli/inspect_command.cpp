// lathe inspect MODEL [--input-shapes S] [--print]
#include <iostream>

#include "args.h"
#include "commands.h"
#include "driver/model_info.h"
#include "driver/model_loader.h"
#include "ir/printer.h"
#include "model_options.h"
#include "support/error.h"

namespace lathe::cli {

namespace {

int inspect(const Args& args) {
  Graph graph = load_model(args);
  std::cout << "Model: " << args.positional() << "\n";
  std::cout << driver::format_model_info(driver::inspect_graph(graph));
  if (args.has("print")) std::cout << "\n" << print_graph(graph);
  return 0;
}

}  // namespace

Command inspect_command(CLI::App& lathe) {
  auto args = std::make_shared<Args>(lathe, "inspect",
                                     "Show a model's inputs, outputs, ops, parameters and MACs");
  args->positional("MODEL", "ONNX model file")
      .input_shapes_option()
      .plugin_option()
      .flag("print", "also print the graph's text form");
  return {args, inspect};
}

}  // namespace lathe::cli
