// What a Lathe plugin implements: one C entry point, lathe_plugin_entry, that
// returns a descriptor, and a registration function that adds the plugin's
// ops, reference kernels and computes through a Registrar. As LLVM's pass
// plugins (llvmGetPassPluginInfo), the plugin is C++ built against Lathe's
// headers and resolves Lathe's symbols from the program that loads it; the ABI
// version below names that contract and changes whenever these headers or
// the registries they reach change incompatibly.
#pragma once

#include <cstdint>

#include "plugin/registrar.h"

// The plugin ABI this Lathe implements. 2: the Registrar stages definitions
// and commits them once the registration function returns (defined_ops and
// defined_codegens return copies, no longer references into it).
#define LATHE_PLUGIN_ABI_VERSION 2u
#define LATHE_PLUGIN_ENTRY_SYMBOL "lathe_plugin_entry"

extern "C" {

struct LathePluginDescriptor {
  // LATHE_PLUGIN_ABI_VERSION as the plugin was built; the loader refuses others.
  uint32_t abi_version;
  const char* name;         // the name --plugin takes ("contrib_gelu")
  const char* version;      // the plugin's own version, for messages
  const char* description;  // one line saying what it adds
  // Adds the plugin's definitions; may throw (lathe::Error, or any
  // std::exception), which fails the load and leaves Lathe's registries as
  // they were: the registrar commits the definitions only once it returns.
  void (*register_plugin)(lathe::plugin::Registrar& registrar);
};

// `host_abi_version` is the loading program's LATHE_PLUGIN_ABI_VERSION. The
// plugin returns its descriptor whatever that version is (the loader reports
// a mismatch naming both), or nullptr when it cannot describe itself.
using LathePluginEntry = const LathePluginDescriptor* (*)(uint32_t host_abi_version);
}

// Defines the entry point: LATHE_PLUGIN(descriptor) in one file of the plugin.
#define LATHE_PLUGIN(descriptor)                                                 \
  extern "C" __attribute__((visibility("default"))) const LathePluginDescriptor* \
  lathe_plugin_entry(uint32_t) {                                                 \
    return &(descriptor);                                                        \
  }
