#include "topi/op_compute.h"

namespace lathe::topi {

void register_indexing_computes(OpStrategyRegistry& registry) { (void)registry; }

}  // namespace lathe::topi
