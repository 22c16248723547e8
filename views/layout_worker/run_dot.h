// Graphviz's dot on a DOT text, in the layout worker's process.
#pragma once

#include <string>

#include "views/dot_geometry.h"

namespace lathe::views {

// Lays out `dot_text` with dot; throws lathe::Error when Graphviz cannot
// parse or lay it out.
DotGeometry run_dot(const std::string& dot_text);

}  // namespace lathe::views
