// Inference for the reduce op family.
#include "ir/ops/infer_util.h"

namespace lathe {

void register_reduce_ops(OpRegistry& r) { (void)r; }

}  // namespace lathe
