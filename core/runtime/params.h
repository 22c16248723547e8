// TVM's parameter blob (mod.params, tvm.runtime.save_param_dict), byte for
// byte, little endian:
//   u64 kTVMNDArrayListMagic, u64 reserved = 0,
//   u64 name count, then per name: u64 length, bytes,
//   u64 array count, then per array (TVM's SaveDLTensor):
//     u64 kTVMNDArrayMagic, u64 reserved = 0,
//     DLDevice {i32 device_type = 1 (kDLCPU), i32 device_id = 0},
//     i32 ndim, DLDataType {u8 code, u8 bits, u16 lanes},
//     i64 shape[ndim], i64 data byte size, data.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "runtime/ndarray.h"

namespace lathe::runtime {

inline constexpr uint64_t kTVMNDArrayListMagic = 0xF7E58D4F05049CB7ULL;
inline constexpr uint64_t kTVMNDArrayMagic = 0xDD5E40F096B4A13FULL;

using ParamMap = std::map<std::string, NDArray>;

// Names in the map's (sorted) order.
std::string save_params(const ParamMap& params);

// `what` names the blob in errors: "mod.params: not a TVM parameter file
// (magic 0x...)", "mod.params: truncated in array 'fc.weight'" ...
ParamMap load_params(const std::string& bytes, const std::string& what = "mod.params");

}  // namespace lathe::runtime
