#include "support/byte_size.h"

#include <cstdio>

namespace lathe {

std::string format_bytes(double bytes) {
  char text[32];
  if (bytes >= 1 << 20)
    std::snprintf(text, sizeof text, "%.1f MB", bytes / (1 << 20));
  else if (bytes >= 1 << 10)
    std::snprintf(text, sizeof text, "%.1f KB", bytes / (1 << 10));
  else
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

}  // namespace lathe
