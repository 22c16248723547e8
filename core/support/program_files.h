// Files that ship beside Lathe's programs: the worker executables the tuner
// and the studio start, and modules loaded on first use (the XGBoost cost
// model), found the same way wherever the program runs from: the build tree
// or an install (docs/ARCHITECTURE.md, "Install layout").
#pragma once

#include <string>

namespace lathe {

// Where an installed program file lives: each kind has its own folder in the
// install layout (GNUInstallDirs), at a fixed place relative to bin/.
enum class ProgramFileKind {
  Helper,  // an executable the programs start: libexec/lathe/
  Module,  // a shared library they dlopen(): lib/lathe/
};

// Where the file `name` is: $`env_variable` when set, else next to the
// running program (/proc/self/exe: the build's bin/), else in the install
// layout's folder for `kind` relative to the running program (an installed
// lathe in <prefix>/bin finds <prefix>/libexec/lathe/), else in the build's
// bin dir when the running program lies in the build tree (tests run from
// their own folders). Throws lathe::Error naming the places tried and the
// variable to set.
std::string find_program_file(const char* name, const char* env_variable, ProgramFileKind kind);

}  // namespace lathe
