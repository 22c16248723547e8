// A plugin built for another plugin ABI than this Lathe's: the loader must
// refuse it, naming both versions, before calling anything else in it.
#include "plugin/plugin_api.h"

namespace {

void register_nothing(lathe::plugin::Registrar&) {}

const LathePluginDescriptor descriptor = {LATHE_PLUGIN_ABI_VERSION + 1, "old_abi", "0.1",
                                          "built for the next plugin ABI", register_nothing};

}  // namespace

LATHE_PLUGIN(descriptor)
