// Loading a model for any client (CLI, studio, tests): the one entry point
// that knows about file formats.
#pragma once

#include <map>
#include <string>

#include "ir/graph.h"

namespace lathe::driver {

struct LoadOptions {
  std::map<std::string, Shape> input_shapes;  // --input-shapes
};

// Throws DiagnosticError listing every problem, or Error for unreadable files.
Graph load_model(const std::string& path, const LoadOptions& options = {});
// Parses tvmc's --input-shapes text.
std::map<std::string, Shape> parse_input_shapes(const std::string& text);

}  // namespace lathe::driver
