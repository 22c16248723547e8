// Writing and reading TVM's parameter blob. Lathe runs on little-endian
// machines only, as TVM's quick path assumes, so values are copied as is.
#include "runtime/params.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <vector>

namespace lathe::runtime {

static_assert(std::endian::native == std::endian::little, "mod.params is little endian");

namespace {

constexpr int32_t kDLCPU = 1;
constexpr int32_t kMaxDims = 64;

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llX", static_cast<unsigned long long>(v));
  return text;
}

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& what) : bytes_(bytes), what_(what) {}

  // `context` says where a truncation happened: "in array 'w'".
  template <typename T>
  T get(const std::string& context) {
    need(sizeof(T), context);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  void read(void* dst, size_t n, const std::string& context) {
    need(n, context);
    if (n) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
  }
  std::string string(size_t n, const std::string& context) {
    need(n, context);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  [[noreturn]] void fail(const std::string& message) const { throw Error(what_ + ": " + message); }

 private:
  void need(size_t n, const std::string& context) const {
    if (remaining() < n) fail("truncated " + context);
  }
  const std::string& bytes_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace

std::string save_params(const ParamMap& params) {
  std::string out;
  put<uint64_t>(out, kTVMNDArrayListMagic);
  put<uint64_t>(out, 0);
  put<uint64_t>(out, params.size());
  for (const auto& [name, array] : params) {
    put<uint64_t>(out, name.size());
    out += name;
  }
  put<uint64_t>(out, params.size());
  for (const auto& [name, array] : params) {
    if (!array.defined()) throw Error("save_params: parameter '" + name + "' has no data");
    put<uint64_t>(out, kTVMNDArrayMagic);
    put<uint64_t>(out, 0);
    put<int32_t>(out, kDLCPU);
    put<int32_t>(out, 0);
    put<int32_t>(out, array.ndim());
    const DataType t = array.dtype();
    put<uint8_t>(out, t.code);
    put<uint8_t>(out, t.bits);
    put<uint16_t>(out, t.lanes);
    for (int64_t d : array.shape()) put<int64_t>(out, d);
    put<int64_t>(out, static_cast<int64_t>(array.nbytes()));
    out.append(static_cast<const char*>(array.data()), array.nbytes());
  }
  return out;
}

ParamMap load_params(const std::string& bytes, const std::string& what) {
  Reader in(bytes, what);
  if (bytes.size() < 8)
    in.fail("not a TVM parameter file (" + std::to_string(bytes.size()) +
            " bytes, too short for the magic number)");
  const uint64_t magic = in.get<uint64_t>("header");
  if (magic != kTVMNDArrayListMagic)
    in.fail("not a TVM parameter file (magic " + hex(magic) + ", expected " +
            hex(kTVMNDArrayListMagic) + ")");
  in.get<uint64_t>("header");
  const uint64_t num_names = in.get<uint64_t>("in the name list");
  // Each name takes at least its 8-byte length: a huge count is corruption.
  if (num_names > in.remaining() / 8) in.fail("truncated in the name list");
  std::vector<std::string> names;
  for (uint64_t i = 0; i < num_names; ++i) {
    const uint64_t length = in.get<uint64_t>("in the name list");
    if (length > in.remaining()) in.fail("truncated in the name list");
    names.push_back(in.string(length, "in the name list"));
  }
  const uint64_t num_arrays = in.get<uint64_t>("before the arrays");
  if (num_arrays != num_names)
    in.fail(std::to_string(num_names) + " names but " + std::to_string(num_arrays) + " arrays");

  ParamMap params;
  for (const std::string& name : names) {
    const std::string context = "in array '" + name + "'";
    const uint64_t array_magic = in.get<uint64_t>(context);
    if (array_magic != kTVMNDArrayMagic)
      in.fail("array '" + name + "' has magic " + hex(array_magic) + ", expected " +
              hex(kTVMNDArrayMagic));
    in.get<uint64_t>(context);
    const int32_t device_type = in.get<int32_t>(context);
    in.get<int32_t>(context);
    if (device_type != kDLCPU)
      in.fail("array '" + name + "' is saved for device type " + std::to_string(device_type) +
              "; only CPU arrays (1) can be loaded");
    const int32_t ndim = in.get<int32_t>(context);
    if (ndim < 0 || ndim > kMaxDims)
      in.fail("array '" + name + "' has " + std::to_string(ndim) + " dimensions");
    DataType dtype;
    dtype.code = in.get<uint8_t>(context);
    dtype.bits = in.get<uint8_t>(context);
    dtype.lanes = in.get<uint16_t>(context);
    const bool known_code = dtype.code <= DataType::kFloat || dtype.code == DataType::kBFloat;
    if (!known_code || dtype.bits == 0 || dtype.lanes == 0)
      in.fail("array '" + name + "' has an unsupported data type (code " +
              std::to_string(dtype.code) + ", bits " + std::to_string(dtype.bits) + ", lanes " +
              std::to_string(dtype.lanes) + ")");
    std::vector<int64_t> shape;
    for (int32_t d = 0; d < ndim; ++d) shape.push_back(in.get<int64_t>(context));
    int64_t expected = 0;
    try {
      expected = num_bytes(shape, dtype);
    } catch (const Error& e) {
      in.fail("array '" + name + "': " + e.what());
    }
    const int64_t data_bytes = in.get<int64_t>(context);
    if (data_bytes != expected)
      in.fail("array '" + name + "' (" + dtype.to_string() + shape_to_string(shape) + ") says " +
              std::to_string(data_bytes) + " data bytes; expected " + std::to_string(expected));
    if (static_cast<uint64_t>(data_bytes) > in.remaining()) in.fail("truncated " + context);
    NDArray array(shape, dtype);
    in.read(array.data(), static_cast<size_t>(data_bytes), context);
    if (!params.emplace(name, std::move(array)).second)
      in.fail("parameter '" + name + "' appears twice");
  }
  if (in.remaining() != 0)
    in.fail(std::to_string(in.remaining()) + " unexpected bytes after the last array");
  return params;
}

}  // namespace lathe::runtime
