#include "ir/attributes.h"

#include <cstring>
#include <sstream>

#include "support/error.h"

namespace lathe {
namespace {

template <typename T>
std::string list_to_string(const std::vector<T>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
  return os.str();
}

const char* kind_name(const Attribute& a) {
  static const char* names[] = {"int", "float", "string", "ints", "floats", "strings", "tensor"};
  return names[a.index()];
}

}  // namespace

std::string attribute_to_string(const Attribute& a) {
  struct Printer {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(float v) const { return str(v); }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(const std::vector<int64_t>& v) const { return list_to_string(v); }
    std::string operator()(const std::vector<float>& v) const { return list_to_string(v); }
    std::string operator()(const std::vector<std::string>& v) const { return list_to_string(v); }
    std::string operator()(const Tensor& t) const { return "tensor " + t.type().to_string(); }
  };
  return std::visit(Printer{}, a);
}

template <typename T>
const T* Attributes::find(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (!v) {
    Attribute probe = T{};
    fail(str("attribute '", name, "' is ", kind_name(it->second), ", expected ", kind_name(probe)));
  }
  return v;
}

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
  const int64_t* v = find<int64_t>(name);
  return v ? *v : fallback;
}

float Attributes::get_float(const std::string& name, float fallback) const {
  const float* v = find<float>(name);
  return v ? *v : fallback;
}

std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
  const std::string* v = find<std::string>(name);
  return v ? *v : fallback;
}

std::vector<int64_t> Attributes::get_ints(const std::string& name,
                                          const std::vector<int64_t>& fallback) const {
  const auto* v = find<std::vector<int64_t>>(name);
  return v ? *v : fallback;
}

std::vector<float> Attributes::get_floats(const std::string& name,
                                          const std::vector<float>& fallback) const {
  const auto* v = find<std::vector<float>>(name);
  return v ? *v : fallback;
}

std::vector<std::string> Attributes::get_strings(const std::string& name,
                                                 const std::vector<std::string>& fallback) const {
  const auto* v = find<std::vector<std::string>>(name);
  return v ? *v : fallback;
}

const Tensor& Attributes::get_tensor(const std::string& name) const {
  const Tensor* v = find<Tensor>(name);
  if (!v) fail(str("missing tensor attribute '", name, "'"));
  return *v;
}

bool Attributes::operator==(const Attributes& other) const {
  if (map_.size() != other.map_.size()) return false;
  for (const auto& [name, value] : map_) {
    auto it = other.map_.find(name);
    if (it == other.map_.end() || it->second.index() != value.index()) return false;
    bool same = std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          const A& b = std::get<A>(it->second);
          if constexpr (std::is_same_v<A, Tensor>)
            return a.type() == b.type() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
          else
            return a == b;
        },
        value);
    if (!same) return false;
  }
  return true;
}

}  // namespace lathe
