#include "te/data_type.h"

#include "support/error.h"

namespace lathe::te {

std::string DataType::to_string() const {
  std::string s;
  switch (code) {
    case Code::Int:
      s = "int" + std::to_string(bits);
      break;
    case Code::UInt:
      s = bits == 1 ? "bool" : "uint" + std::to_string(bits);
      break;
    case Code::Float:
      s = "float" + std::to_string(bits);
      break;
    case Code::Handle:
      s = "handle";
      break;
    case Code::BFloat:
      s = "bfloat" + std::to_string(bits);
      break;
  }
  if (lanes > 1) s += "x" + std::to_string(lanes);
  return s;
}

DataType DataType::parse(const std::string& text) {
  std::string base = text;
  int lanes = 1;
  if (auto x = text.find('x'); x != std::string::npos) {
    base = text.substr(0, x);
    lanes = std::stoi(text.substr(x + 1));
  }
  auto bits_after = [&](size_t prefix) { return std::stoi(base.substr(prefix)); };
  try {
    if (base == "bool") return Bool(lanes);
    if (base == "handle") return Handle();
    if (base.rfind("float", 0) == 0) return Float(bits_after(5), lanes);
    if (base.rfind("bfloat", 0) == 0) return BFloat(bits_after(6), lanes);
    if (base.rfind("uint", 0) == 0) return UInt(bits_after(4), lanes);
    if (base.rfind("int", 0) == 0) return Int(bits_after(3), lanes);
  } catch (const std::exception&) {
  }
  fail(str("unknown data type '", text, "'"));
}

}  // namespace lathe::te
