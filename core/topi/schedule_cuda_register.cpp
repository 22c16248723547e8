// Which ops take which cuda template (schedule_cuda_templates.h).
#include "topi/op_compute.h"
#include "topi/schedule_cuda_templates.h"

namespace lathe::topi {

void register_cuda_templates(OpStrategyRegistry& registry) {
  for (const char* op :
       {"ReduceSum", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceProd", "ReduceMean",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMin", "GlobalAveragePool",
        "GlobalMaxPool", "Softmax", "LogSoftmax", "LayerNormalization", "InstanceNormalization",
        "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"})
    registry.define_template(op, "cuda", cuda_reduce_template);
  for (const char* op : {"Gemm", "MatMul"})
    registry.define_template(op, "cuda", cuda_dense_template);
  registry.define_template("Conv", "cuda", cuda_conv2d_template);
}

}  // namespace lathe::topi
