// onnx.TensorProto ⇄ Tensor, with every size checked against the declared dims.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "ir/tensor.h"

namespace lathe::onnx_frontend {

// `base_dir` resolves external-data locations; throws Error/UnsupportedError
// naming the tensor on any inconsistency.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir);

}  // namespace lathe::onnx_frontend
