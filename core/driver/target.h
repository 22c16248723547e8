// The compile target as the CLI and the studio name it: TVM's target text
// ("llvm -mcpu=skylake-avx512"), parsed, printed and compared.
#pragma once

#include "codegen/target.h"

namespace lathe::driver {

// An alias rather than a copy: the target is plain data (text options and
// what they mean) that the driver hands to the code generator unchanged, and
// codegen/target.h holds no JIT or TIR.
using codegen::Target;

}  // namespace lathe::driver
