#include "plugin/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <exception>
#include <filesystem>

#include "plugin/plugin_api.h"
#include "runtime/thread_pool.h"
#include "support/error.h"

namespace lathe::plugin {
namespace {

namespace fs = std::filesystem;

// A deque, so that the references load_plugin returns stay valid.
std::deque<LoadedPlugin>& load_order() {
  static std::deque<LoadedPlugin> plugins;
  return plugins;
}

std::string resolve(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos) {
    std::error_code error;
    if (!fs::is_regular_file(name_or_path, error))
      fail(str("plugin library '", name_or_path, "' does not exist"));
    return name_or_path;
  }
  std::string tried;
  for (const std::string& folder : plugin_search_path()) {
    const fs::path candidate = fs::path(folder) / (name_or_path + ".so");
    std::error_code error;
    if (fs::is_regular_file(candidate, error)) return candidate.string();
    tried += (tried.empty() ? "" : ", ") + folder;
  }
  fail(str("cannot find plugin '", name_or_path, "': no ", name_or_path, ".so in ",
           tried.empty() ? std::string("any folder") : tried,
           " (set LATHE_PLUGIN_PATH to the folder holding it, or pass its path)"));
}

const LathePluginDescriptor& describe(const std::string& path) {
  // Its external kernels may bring an OpenMP runtime, configured as it loads.
  runtime::prefer_passive_openmp();
  // Never closed: the registries keep pointers into the library.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) fail(str("cannot load plugin library '", path, "': ", dlerror()));
  auto entry = reinterpret_cast<LathePluginEntry>(dlsym(library, LATHE_PLUGIN_ENTRY_SYMBOL));
  if (!entry)
    fail(str("'", path, "' is no Lathe plugin: it has no ", LATHE_PLUGIN_ENTRY_SYMBOL,
             " entry point"));
  const LathePluginDescriptor* descriptor = entry(LATHE_PLUGIN_ABI_VERSION);
  if (!descriptor) fail(str("plugin '", path, "' returned no descriptor from its entry point"));
  if (descriptor->abi_version != LATHE_PLUGIN_ABI_VERSION)
    fail(str("plugin '", path, "' was built for plugin ABI version ", descriptor->abi_version,
             ", but this Lathe has plugin ABI version ", LATHE_PLUGIN_ABI_VERSION,
             "; rebuild the plugin against this Lathe"));
  if (!descriptor->name || !*descriptor->name || !descriptor->register_plugin)
    fail(str("plugin '", path, "' has a descriptor without a name or a registration function"));
  return *descriptor;
}

}  // namespace

std::vector<std::string> plugin_search_path() {
  std::vector<std::string> folders;
  if (const char* variable = std::getenv("LATHE_PLUGIN_PATH")) {
    std::string list = variable;
    for (size_t begin = 0; begin <= list.size();) {
      size_t end = list.find(':', begin);
      if (end == std::string::npos) end = list.size();
      if (end > begin) folders.push_back(list.substr(begin, end - begin));
      begin = end + 1;
    }
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error)
    folders.push_back(
        (self.parent_path().parent_path() / LATHE_PLUGIN_LIBDIR / "lathe" / "plugins").string());
  folders.push_back(LATHE_BUILD_PLUGIN_DIR);
  folders.push_back(LATHE_INSTALL_PLUGIN_DIR);
  // In the build tree bin/../lib/lathe/plugins is the build's plugin folder.
  std::vector<std::string> distinct;
  for (const std::string& folder : folders) {
    bool seen = false;
    for (const std::string& earlier : distinct)
      seen |= fs::weakly_canonical(earlier, error) == fs::weakly_canonical(folder, error);
    if (!seen) distinct.push_back(folder);
  }
  return distinct;
}

const LoadedPlugin& load_plugin(const std::string& name_or_path) {
  for (const LoadedPlugin& plugin : load_order())
    if (plugin.name == name_or_path || plugin.path == name_or_path) return plugin;
  const std::string path = resolve(name_or_path);
  const std::string canonical = fs::weakly_canonical(path).string();
  for (const LoadedPlugin& plugin : load_order())
    if (plugin.path == canonical) return plugin;

  const LathePluginDescriptor& descriptor = describe(path);
  for (const LoadedPlugin& plugin : load_order())
    if (plugin.name == descriptor.name)
      fail(str("plugin '", descriptor.name, "' from '", path, "' is already loaded from '",
               plugin.path, "'"));
  // The registrar stages what the plugin defines, and only a registration
  // function that returns commits it: one that throws half-way leaves the
  // registries as they were, so a later load (of it, or of another plugin
  // defining the same names) is not refused for what it left behind. The
  // library stays mapped: what it threw may live in it.
  Registrar registrar(descriptor.name);
  const auto registration_failed = [&](const std::string& cause) {
    fail(str("plugin '", descriptor.name, "' (", path, ") failed to register: ", cause));
  };
  try {
    descriptor.register_plugin(registrar);
  } catch (const std::exception& e) {
    registration_failed(e.what());
  } catch (...) {
    registration_failed("it threw something that is not a std::exception");
  }
  registrar.commit();
  LoadedPlugin plugin{descriptor.name,
                      descriptor.version ? descriptor.version : "",
                      descriptor.description ? descriptor.description : "",
                      canonical,
                      registrar.defined_ops(),
                      registrar.defined_codegens()};
  load_order().push_back(std::move(plugin));
  return load_order().back();
}

std::vector<LoadedPlugin> loaded_plugins() {
  return {load_order().begin(), load_order().end()};
}

std::vector<AvailablePlugin> available_plugins() {
  std::vector<AvailablePlugin> found;
  auto loaded_from = [](const std::string& path) -> std::optional<LoadedPlugin> {
    std::error_code error;
    const std::string canonical = fs::weakly_canonical(path, error).string();
    for (const LoadedPlugin& plugin : load_order())
      if (plugin.path == canonical) return plugin;
    return std::nullopt;
  };
  for (const std::string& folder : plugin_search_path()) {
    std::error_code error;
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
      const std::string file = entry.path().filename().string();
      if (entry.path().extension() == ".so" && file.rfind("lib", 0) != 0 &&
          entry.is_regular_file(error))
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      AvailablePlugin plugin;
      plugin.name = file.stem().string();
      if (std::any_of(found.begin(), found.end(),
                      [&](const AvailablePlugin& p) { return p.name == plugin.name; }))
        continue;
      plugin.path = file.string();
      plugin.loaded = loaded_from(plugin.path);
      try {
        const LathePluginDescriptor& descriptor = describe(plugin.path);
        plugin.version = descriptor.version ? descriptor.version : "";
        plugin.description = descriptor.description ? descriptor.description : "";
      } catch (const Error& e) {
        plugin.error = e.what();
      }
      found.push_back(std::move(plugin));
    }
  }
  for (const LoadedPlugin& loaded : load_order()) {
    if (std::any_of(found.begin(), found.end(), [&](const AvailablePlugin& p) {
          return p.loaded && p.loaded->path == loaded.path;
        }))
      continue;
    found.push_back({loaded.name, loaded.path, loaded.version, loaded.description, {}, loaded});
  }
  return found;
}

}  // namespace lathe::plugin
