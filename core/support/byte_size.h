// Byte counts as people read them.
#pragma once

#include <string>

namespace lathe {

// "1.3 MB", "48.0 KB", "512 B", in units of 1024.
std::string format_bytes(double bytes);

}  // namespace lathe
