// The runtime's tensor: a shape, a DLPack data type and 64-byte aligned
// storage on a device (the host unless made on another). Copies share the
// storage, as TVM's NDArray does; clone() copies it. A device array's data()
// is the device's address: only kernels of that device and its DeviceAPI's
// copies may touch it; copy_from and copy_to cross to and from the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace lathe::runtime {

class DeviceAPI;

// Everything the runtime reports (bad package, wrong input size ...). The
// runtime links no other lathe library, so this is its own error type; like
// lathe::Error it is a std::runtime_error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// DLPack's DLDataType. Text as TVM writes it in mod.json: "float32", "int64",
// "uint8", "bool" (uint1), "float16", "bfloat16", "float16x4" for vectors.
struct DataType {
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBFloat = 4 };
  uint8_t code = kFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static DataType parse(const std::string& text);  // throws Error naming the text
  std::string to_string() const;
  // Bytes one element takes in memory and in mod.params: bool takes a byte.
  int64_t bytes() const { return (bits + 7) / 8 * lanes; }
  bool operator==(const DataType&) const = default;

  static DataType float32() { return {kFloat, 32, 1}; }
  static DataType int64() { return {kInt, 64, 1}; }
  static DataType boolean() { return {kUInt, 1, 1}; }
};

// NumPy's text for a shape: "(1, 3, 224, 224)", "(16,)", "()".
std::string shape_to_string(const std::vector<int64_t>& shape);
// Product of the extents; Error for a negative extent or an overflow.
int64_t num_elements(const std::vector<int64_t>& shape);
// Bytes an array of this shape and type takes: num_elements(shape) *
// dtype.bytes(), with the same errors. Shapes come from files (mod.json,
// mod.params), so the product is checked, never trusted.
int64_t num_bytes(const std::vector<int64_t>& shape, DataType dtype);

class NDArray {
 public:
  NDArray() = default;
  // Zero-filled storage of num_elements(shape) * dtype.bytes() bytes.
  NDArray(std::vector<int64_t> shape, DataType dtype);
  // Zero-filled storage on `device` (host_device_api() gives a host array).
  NDArray(std::vector<int64_t> shape, DataType dtype, const std::shared_ptr<DeviceAPI>& device);
  // An array of the given shape over `base`'s storage (which must be large
  // enough); shares base's lifetime. The executor's outputs are such views.
  static NDArray view(const NDArray& base, std::vector<int64_t> shape, DataType dtype);

  bool defined() const { return data_ != nullptr; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  DataType dtype() const { return dtype_; }
  int64_t numel() const { return num_elements(shape_); }
  size_t nbytes() const { return static_cast<size_t>(num_bytes(shape_, dtype_)); }
  Device device() const;
  bool is_host() const { return device().type == DeviceType::Host; }

  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* data_as() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data_);
  }

  // A copy with storage of its own, on the same device.
  NDArray clone() const;
  // Copies nbytes() bytes in from or out to host memory; Error when nbytes differs.
  void copy_from(const void* src, size_t nbytes);
  void copy_to(void* dst, size_t nbytes) const;

 private:
  std::shared_ptr<void> storage_;  // keeps data_ alive
  void* data_ = nullptr;
  std::vector<int64_t> shape_;
  DataType dtype_;
  std::shared_ptr<DeviceAPI> device_api_;  // null: plain host memory
};

}  // namespace lathe::runtime
