// DataType text, NumPy-style shape text and the aligned NDArray storage.
#include "runtime/ndarray.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "runtime/device_api.h"
#include "runtime/thread_pool.h"

namespace lathe::runtime {

namespace {

bool parse_unsigned(const std::string& text, unsigned long max, unsigned long& value) {
  if (text.empty() || text.size() > 6) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned long>(c - '0');
  }
  return value > 0 && value <= max;
}

}  // namespace

DataType DataType::parse(const std::string& text) {
  if (text == "bool") return boolean();
  std::string base = text;
  unsigned long lanes = 1;
  if (size_t x = text.find('x'); x != std::string::npos) {
    base = text.substr(0, x);
    if (!parse_unsigned(text.substr(x + 1), 65535, lanes))
      throw Error("unknown data type '" + text + "': bad lane count");
  }
  DataType t;
  std::string bits_text;
  if (base.rfind("uint", 0) == 0) {
    t.code = kUInt;
    bits_text = base.substr(4);
  } else if (base.rfind("int", 0) == 0) {
    t.code = kInt;
    bits_text = base.substr(3);
  } else if (base.rfind("float", 0) == 0) {
    t.code = kFloat;
    bits_text = base.substr(5);
  } else if (base.rfind("bfloat", 0) == 0) {
    t.code = kBFloat;
    bits_text = base.substr(6);
  } else {
    throw Error("unknown data type '" + text + "' (expected float32, int64, uint8, bool ...)");
  }
  unsigned long bits = 32;
  if (!bits_text.empty() && !parse_unsigned(bits_text, 255, bits))
    throw Error("unknown data type '" + text + "': bad bit width");
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

std::string DataType::to_string() const {
  std::string text;
  if (code == kUInt && bits == 1 && lanes == 1) return "bool";
  switch (code) {
    case kInt:
      text = "int";
      break;
    case kUInt:
      text = "uint";
      break;
    case kFloat:
      text = "float";
      break;
    case kBFloat:
      text = "bfloat";
      break;
    default:
      text = std::string("code") + std::to_string(code) + "_";
      break;
  }
  text += std::to_string(bits);
  if (lanes != 1) {
    text += 'x';
    text += std::to_string(lanes);
  }
  return text;
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw Error("negative extent in shape " + shape_to_string(shape));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      throw Error("shape " + shape_to_string(shape) + " has too many elements");
    n *= d;
  }
  return n;
}

int64_t num_bytes(const std::vector<int64_t>& shape, DataType dtype) {
  const int64_t n = num_elements(shape), element = dtype.bytes();
  // Room for NDArray's rounding up to its alignment, too.
  if (element > 0 && n > (std::numeric_limits<int64_t>::max() - kTensorAlignment) / element)
    throw Error("a " + dtype.to_string() + shape_to_string(shape) + " array has too many bytes");
  return n * element;
}

NDArray::NDArray(std::vector<int64_t> shape, DataType dtype)
    : shape_(std::move(shape)), dtype_(dtype) {
  const int64_t bytes = num_bytes(shape_, dtype_);
  // aligned_alloc wants a multiple of the alignment; an empty array still
  // gets a (valid, distinct) allocation so that data() is never null.
  const int64_t size = std::max<int64_t>(
      kTensorAlignment, (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment);
  void* p = std::aligned_alloc(kTensorAlignment, static_cast<size_t>(size));
  if (!p)
    throw Error("out of memory allocating " + std::to_string(bytes) + " bytes for a " +
                dtype_.to_string() + shape_to_string(shape_) + " array");
  std::memset(p, 0, static_cast<size_t>(size));
  storage_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  data_ = p;
}

NDArray::NDArray(std::vector<int64_t> shape, DataType dtype,
                 const std::shared_ptr<DeviceAPI>& device)
    : shape_(std::move(shape)), dtype_(dtype) {
  if (!device) throw Error("NDArray on a null device");
  const size_t bytes = std::max<size_t>(1, static_cast<size_t>(num_bytes(shape_, dtype_)));
  void* p = device->allocate(bytes);
  // The deleter keeps the device's API (its context) alive as long as the memory.
  storage_ = std::shared_ptr<void>(p, [device](void* q) { device->free(q); });
  data_ = p;
  // Copies of any other API's memory go through it.
  if (device != host_device_api()) device_api_ = device;
}

Device NDArray::device() const {
  return device_api_ ? device_api_->device() : Device{};
}

NDArray NDArray::view(const NDArray& base, std::vector<int64_t> shape, DataType dtype) {
  if (!base.defined()) throw Error("NDArray::view of an undefined array");
  NDArray v;
  v.shape_ = std::move(shape);
  v.dtype_ = dtype;
  if (v.nbytes() > base.nbytes())
    throw Error("a " + dtype.to_string() + shape_to_string(v.shape_) + " view needs " +
                std::to_string(v.nbytes()) + " bytes; the storage has " +
                std::to_string(base.nbytes()));
  v.storage_ = base.storage_;
  v.data_ = base.data_;
  v.device_api_ = base.device_api_;
  return v;
}

NDArray NDArray::clone() const {
  if (!defined()) return {};
  if (device_api_) {
    NDArray copy(shape_, dtype_, device_api_);
    device_api_->copy_within(copy.data_, data_, nbytes());
    return copy;
  }
  NDArray copy(shape_, dtype_);
  std::memcpy(copy.data_, data_, nbytes());
  return copy;
}

void NDArray::copy_from(const void* src, size_t bytes) {
  if (bytes != nbytes())
    throw Error("a " + dtype_.to_string() + shape_to_string(shape_) + " array takes " +
                std::to_string(nbytes()) + " bytes; got " + std::to_string(bytes));
  if (bytes && !src) throw Error("copy into an array from a null pointer");
  if (bytes && device_api_)
    device_api_->copy_from_host(data_, src, bytes);
  else if (bytes)
    std::memcpy(data_, src, bytes);
}

void NDArray::copy_to(void* dst, size_t bytes) const {
  if (bytes != nbytes())
    throw Error("a " + dtype_.to_string() + shape_to_string(shape_) + " array holds " +
                std::to_string(nbytes()) + " bytes; the destination has " + std::to_string(bytes));
  if (bytes && !dst) throw Error("copy out of an array into a null pointer");
  if (bytes && device_api_)
    device_api_->copy_to_host(dst, data_, bytes);
  else if (bytes)
    std::memcpy(dst, data_, bytes);
}

}  // namespace lathe::runtime
