// Finds and loads plugins: shared libraries named NAME.so on the plugin
// search path, each with a versioned entry point (plugin/plugin_api.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lathe::plugin {

struct LoadedPlugin {
  std::string name, version, description;
  std::string path;                   // the library it came from
  std::vector<std::string> ops;       // the ops it defined
  std::vector<std::string> codegens;  // the external codegens it defined
};

// Where plugins are looked for, in order: the folders of $LATHE_PLUGIN_PATH
// (colon-separated), the plugin folder of the installed layout next to the
// running program (bin/../lib/lathe/plugins), the build tree's plugin folder
// and the install prefix's.
std::vector<std::string> plugin_search_path();

// Loads the plugin `name_or_path`: a path when it contains a '/', else the
// first NAME.so on the search path. Loading a plugin twice returns the first
// load. Throws lathe::Error naming the file (or the folders searched) when
// the library is missing, cannot be loaded, has no entry point, was built for
// another plugin ABI (naming both versions), or fails to register.
// Not thread-safe: load plugins before compiling.
const LoadedPlugin& load_plugin(const std::string& name_or_path);

// The plugins loaded so far, in load order.
std::vector<LoadedPlugin> loaded_plugins();

// A plugin library on the search path, loaded or not: what a user picks
// plugins from (the studio's Plugins dialog).
struct AvailablePlugin {
  std::string name;  // NAME of NAME.so: what load_plugin takes
  std::string path;
  // From its descriptor, read without registering anything (the library
  // stays mapped, as a loaded one does); empty when `error` says why not.
  std::string version, description;
  std::string error;  // why it cannot load: not a plugin, another ABI, a missing library
  std::optional<LoadedPlugin> loaded;  // its ops and codegens, once loaded
};

// Every NAME.so of the search path's folders, in folder order and by name
// within one; a NAME found again in a later folder is left out, since
// load_plugin(NAME) never reaches it. Files named lib*.so are a plugin's own
// libraries (dnnl's runtime), not plugins. Plugins loaded by path from
// elsewhere come last. Not thread-safe, as load_plugin.
std::vector<AvailablePlugin> available_plugins();

}  // namespace lathe::plugin
