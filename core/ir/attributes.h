// Typed node attributes, as ONNX has them: int, float, string, their lists, and tensors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor.h"

namespace lathe {

using Attribute = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, Tensor>;

std::string attribute_to_string(const Attribute& a);

class Attributes {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  void set(const std::string& name, Attribute value) { map_[name] = std::move(value); }
  void erase(const std::string& name) { map_.erase(name); }
  const std::map<std::string, Attribute>& all() const { return map_; }
  bool empty() const { return map_.empty(); }

  // Getters fall back to the given default when absent and throw when the
  // attribute has another type.
  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name,
                                const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> get_floats(const std::string& name,
                                const std::vector<float>& fallback = {}) const;
  std::vector<std::string> get_strings(const std::string& name,
                                       const std::vector<std::string>& fallback = {}) const;
  const Tensor& get_tensor(const std::string& name) const;

  bool operator==(const Attributes& other) const;

 private:
  template <typename T>
  const T* find(const std::string& name) const;
  std::map<std::string, Attribute> map_;
};

}  // namespace lathe
