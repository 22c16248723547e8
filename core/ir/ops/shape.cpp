// Inference for the shape op family.
#include "ir/ops/infer_util.h"

namespace lathe {

void register_shape_ops(OpRegistry& r) { (void)r; }

}  // namespace lathe
