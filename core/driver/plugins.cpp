#include "driver/plugins.h"

#include "support/error.h"

namespace lathe::driver {

std::vector<LoadedPlugin> load_plugins(const std::string& list) {
  std::vector<LoadedPlugin> loaded;
  for (size_t begin = 0; begin <= list.size();) {
    size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    const std::string name = list.substr(begin, end - begin);
    LATHE_CHECK(!name.empty(), "empty plugin name in '", list, "'");
    loaded.push_back(load_plugin(name));
    begin = end + 1;
  }
  return loaded;
}

}  // namespace lathe::driver
