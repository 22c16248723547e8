// Plugins for the driver's clients: the loader of core/plugin, aliased (its
// results are plain data), and the --plugin list the CLI and studio take.
#pragma once

#include <string>
#include <vector>

#include "plugin/plugin_loader.h"

namespace lathe::driver {

using plugin::available_plugins;
using plugin::AvailablePlugin;
using plugin::load_plugin;
using plugin::loaded_plugins;
using plugin::LoadedPlugin;
using plugin::plugin_search_path;

// Loads each plugin of a comma-separated list of names or paths, in order.
std::vector<LoadedPlugin> load_plugins(const std::string& list);

}  // namespace lathe::driver
