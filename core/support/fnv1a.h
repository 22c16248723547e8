// FNV-1a, 64 bits, as 16 hex digits: the short, stable names the project
// gives things by their content (tuning workloads, the machine-roof file).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace lathe {

inline constexpr uint64_t kFnv1aOffsetBasis = 14695981039346656037ull;

inline std::string fnv1a_hex(std::string_view text, uint64_t basis = kFnv1aOffsetBasis) {
  uint64_t hash = basis;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace lathe
