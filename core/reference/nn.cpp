// Reference kernels for the nn op family.
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {

void register_nn_kernels(OpRegistry& r) { (void)r; }

}  // namespace lathe::reference
