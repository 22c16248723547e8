// Where a buffer lives and a kernel runs: a device type (DLPack's values) and
// the device's ordinal, as TVM's Device (DLDevice).
#pragma once

#include <string>

namespace lathe::runtime {

enum class DeviceType : int { Host = 1, Cuda = 2 };
const char* device_type_name(DeviceType type);  // "host", "cuda"

struct Device {
  DeviceType type = DeviceType::Host;
  int id = 0;
  bool operator==(const Device&) const = default;
  std::string to_string() const;  // "host", "cuda:0"
};

}  // namespace lathe::runtime
