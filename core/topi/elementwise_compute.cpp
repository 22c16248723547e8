#include "topi/op_compute.h"

namespace lathe::topi {

void register_elementwise_computes(OpStrategyRegistry& registry) { (void)registry; }

}  // namespace lathe::topi
