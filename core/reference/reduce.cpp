// Reference kernels for the reduce op family.
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {

void register_reduce_kernels(OpRegistry& r) { (void)r; }

}  // namespace lathe::reference
