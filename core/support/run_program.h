// Running another program and collecting what it prints: the package
// writer's C compiler, the CUDA toolkit's ptxas and nvdisasm (found at run
// time, never a build dependency).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/error.h"

namespace lathe {

// Thrown when argv[0] does not exist (so callers can say how to get it).
class ProgramNotFound : public Error {
 public:
  using Error::Error;
};

// Runs argv (argv[0] searched on PATH), returning its exit status and
// everything it wrote to stdout and stderr in `output`.
int run_program(const std::vector<std::string>& argv, std::string& output);

// The path of a CUDA toolkit program (ptxas, nvdisasm, cuobjdump): on PATH,
// else in $CUDA_HOME/bin, else in /usr/local/cuda/bin; nothing when none has
// it (the toolkit is not a Debian package).
std::optional<std::string> find_cuda_tool(const std::string& name);

}  // namespace lathe
