// lathe inspect MODEL [--input-shapes S] [--print]
#include <iostream>

#include "args.h"
#include "commands.h"
#include "driver/model_info.h"
#include "driver/model_loader.h"
#include "ir/printer.h"
#include "support/error.h"

namespace lathe::cli {

int inspect_command(int argc, char** argv) {
  Args args(argc, argv, 2, {"input-shapes"}, {"print"});
  LATHE_CHECK(args.positional().size() == 1,
              "usage: lathe inspect MODEL [--input-shapes S] [--print]");
  driver::LoadOptions options;
  if (args.has("input-shapes"))
    options.input_shapes = driver::parse_input_shapes(args.get("input-shapes"));
  Graph graph = driver::load_model(args.positional()[0], options);
  std::cout << "Model: " << args.positional()[0] << "\n";
  std::cout << driver::format_model_info(driver::inspect_graph(graph));
  if (args.has("print")) std::cout << "\n" << print_graph(graph);
  return 0;
}

}  // namespace lathe::cli
