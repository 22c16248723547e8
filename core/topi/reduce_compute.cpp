#include "topi/op_compute.h"

namespace lathe::topi {

void register_reduce_computes(OpStrategyRegistry& registry) { (void)registry; }

}  // namespace lathe::topi
