// Reference kernels for the shape op family.
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {

void register_shape_kernels(OpRegistry& r) { (void)r; }

}  // namespace lathe::reference
