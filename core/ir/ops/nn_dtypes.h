// The element types the nn family accepts: inference checks them and the
// reference kernels dispatch on them, so both read this one list.
#pragma once

#include "ir/dtype.h"

namespace lathe {

constexpr DTypeSet kGemmTypes = kFloatTypes | dtype_bit(DType::Int32) | dtype_bit(DType::Int64) |
                                dtype_bit(DType::UInt32) | dtype_bit(DType::UInt64);
constexpr DTypeSet kMaxPoolTypes = kFloatTypes | dtype_bit(DType::Int8) | dtype_bit(DType::UInt8);

}  // namespace lathe
