// Files that ship beside Lathe's programs: the worker executables the tuner
// and the studio start, and modules loaded on first use (the XGBoost cost
// model), found the same way wherever the program runs from.
#pragma once

#include <string>

namespace lathe {

// Where the file `name` is: $`env_variable` when set, else next to the
// running program (/proc/self/exe), else in the build's bin dir
// (LATHE_BUILD_BIN_DIR: tests run from their own folders). Throws
// lathe::Error naming the places tried and the variable to set.
std::string find_program_file(const char* name, const char* env_variable);

}  // namespace lathe
