// Inference for the nn op family.
#include "ir/ops/infer_util.h"

namespace lathe {

void register_nn_ops(OpRegistry& r) { (void)r; }

}  // namespace lathe
