// The frame of the kernel objects that are not a CPU's ELF object
// (cuda_kernel_object.h, simulated_kernel_object.h): a magic line naming the
// kind and its version, one JSON line describing the kernel, then the
// payload (PTX text, a host object). Header-only: the device tools that link
// only the runtime use it too.
#pragma once

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace lathe::tune::frame {

// `magic` ends with its newline.
inline std::vector<char> encode(std::string_view magic, const nlohmann::json& header,
                                const char* payload, size_t size) {
  const std::string head = std::string(magic) + header.dump() + "\n";
  std::vector<char> bytes(head.begin(), head.end());
  bytes.insert(bytes.end(), payload, payload + size);
  return bytes;
}

inline bool has_magic(const std::vector<char>& bytes, std::string_view magic) {
  return bytes.size() >= magic.size() && std::memcmp(bytes.data(), magic.data(), magic.size()) == 0;
}

struct Decoded {
  nlohmann::json header;
  std::vector<char>::const_iterator payload;  // to bytes.end()
};

// Throws lathe::Error naming `what` ("cuda kernel object") for bytes without
// the magic line or the header line, or whose header is not JSON.
inline Decoded decode(const std::vector<char>& bytes, std::string_view magic, const char* what) {
  LATHE_CHECK(has_magic(bytes, magic), "not a ", what, " (no '", magic.substr(0, magic.size() - 1),
              "' line)");
  const auto begin = bytes.begin() + static_cast<std::ptrdiff_t>(magic.size());
  const auto newline = std::find(begin, bytes.end(), '\n');
  LATHE_CHECK(newline != bytes.end(), what, ": no header line");
  try {
    return {nlohmann::json::parse(begin, newline), newline + 1};
  } catch (const nlohmann::json::exception& e) {
    fail(str(what, ": bad header: ", e.what()));
  }
}

}  // namespace lathe::tune::frame
