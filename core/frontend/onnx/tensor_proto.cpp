#include "frontend/onnx/tensor_proto.h"

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "frontend/onnx/onnx_import.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 34;  // beyond this a dims list is corrupt

// A non-negative decimal from external_data ("offset", "length"); std::stoll
// would throw std::invalid_argument past the importer.
int64_t external_int(const std::string& text, const std::string& tensor, const char* key) {
  int64_t v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  LATHE_CHECK(ec == std::errc() && end == text.data() + text.size() && v >= 0, tensor,
              ": external data ", key, " '", text, "' is not a non-negative integer");
  return v;
}

std::string read_external(const onnx::TensorProto& proto, const std::string& base_dir,
                          size_t expected_bytes) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  const std::string name = "tensor '" + proto.name() + "'";
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = external_int(entry.value(), name, "offset");
    else if (entry.key() == "length")
      length = external_int(entry.value(), name, "length");
  }
  LATHE_CHECK(!location.empty(), name, ": external data without a location");
  std::filesystem::path path = std::filesystem::path(base_dir) / location;
  std::ifstream in(path, std::ios::binary);
  LATHE_CHECK(in, name, ": cannot open external data file ", path.string());
  in.seekg(0, std::ios::end);
  int64_t file_size = in.tellg();
  if (length < 0) length = file_size - offset;
  // Compared without offset + length, which a model can make overflow.
  LATHE_CHECK(offset <= file_size && length <= file_size - offset, name, ": external data of ",
              length, " bytes at offset ", offset, " lies outside ", path.string(), " (", file_size,
              " bytes)");
  LATHE_CHECK(static_cast<size_t>(length) == expected_bytes, name, ": external data has ", length,
              " bytes, expected ", expected_bytes);
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  return bytes;
}

template <typename Src, typename Dst>
void copy_field(const Src& field, Dst* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (is_storage_float_v<Dst>)
      // ONNX keeps float16 and bfloat16 in int32_data as their bit patterns.
      out[i] = Dst::from_bits(static_cast<uint16_t>(field.Get(static_cast<int>(i))));
    else
      out[i] = static_cast<Dst>(field.Get(static_cast<int>(i)));
  }
}

// Calls f with the repeated field that holds the values of a tensor of this
// dtype when it has no raw data.
template <typename F>
void typed_field(const onnx::TensorProto& proto, DType dtype, F f) {
  switch (dtype) {
    case DType::Float32:
      return f(proto.float_data());
    case DType::Float64:
      return f(proto.double_data());
    case DType::Int64:
      return f(proto.int64_data());
    case DType::UInt32:
    case DType::UInt64:
      return f(proto.uint64_data());
    default:
      return f(proto.int32_data());
  }
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir) {
  const std::string& name = proto.name();
  auto dtype = dtype_from_onnx(proto.data_type());
  if (!dtype)
    fail_unsupported(
        str("tensor '", name, "' has unsupported dtype ", onnx_dtype_name(proto.data_type())));
  Shape shape;
  int64_t numel = 1;
  for (int64_t d : proto.dims()) {
    LATHE_CHECK(d >= 0, "tensor '", name, "' has negative dimension ", d);
    LATHE_CHECK(d == 0 || numel <= kMaxElements / d, "tensor '", name, "' is impossibly large");
    numel *= d;
    shape.push_back(d);
  }
  // The data is checked before the tensor is allocated: dims alone may ask
  // for gigabytes that the model does not hold.
  const size_t bytes = static_cast<size_t>(numel) * dtype_size(*dtype);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string data = read_external(proto, base_dir, bytes);
    Tensor t(*dtype, shape);
    std::memcpy(t.raw(), data.data(), bytes);
    return t;
  }
  if (proto.has_raw_data()) {
    LATHE_CHECK(proto.raw_data().size() == bytes, "tensor '", name, "': raw data has ",
                proto.raw_data().size(), " bytes, expected ", bytes, " for ",
                TensorType{*dtype, shape}.to_string());
    Tensor t(*dtype, shape);
    if (bytes) std::memcpy(t.raw(), proto.raw_data().data(), bytes);
    return t;
  }
  Tensor t;
  typed_field(proto, *dtype, [&](const auto& field) {
    LATHE_CHECK(field.size() == numel, "tensor '", name, "': has ", field.size(),
                " values, expected ", numel);
    t = Tensor(*dtype, shape);
    visit_dtype(*dtype, [&](auto tag) { copy_field(field, t.data<decltype(tag)>(), numel); });
  });
  return t;
}

Tensor read_tensor_pb_file(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  LATHE_CHECK(in, path, ": cannot open");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::TensorProto proto;
  LATHE_CHECK(proto.ParseFromString(bytes), path, ": not a serialized onnx.TensorProto");
  if (name) *name = proto.name();
  try {
    return tensor_from_proto(proto, std::filesystem::path(path).parent_path().string());
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(path + ": " + e.what());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace lathe::onnx_frontend
