#include "topi/op_compute.h"

namespace lathe::topi {

void register_nn_computes(OpStrategyRegistry& registry) { (void)registry; }

}  // namespace lathe::topi
