# Lathe's install layout (docs/ARCHITECTURE.md, "Install layout"): where each
# kind of file goes, relative to the install prefix, after GNUInstallDirs.
# Included before any target is defined, so that every folder's CMakeLists
# (the plugins' too) installs into these places:
#   install(TARGETS my_plugin LIBRARY DESTINATION ${LATHE_INSTALL_PLUGINDIR})
include(GNUInstallDirs)
foreach(dir BINDIR LIBDIR LIBEXECDIR INCLUDEDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    message(FATAL_ERROR "CMAKE_INSTALL_${dir} is absolute (${CMAKE_INSTALL_${dir}}): Lathe's "
                        "installed programs find their files relative to themselves, so give "
                        "it relative to CMAKE_INSTALL_PREFIX")
  endif()
endforeach()

# Executables the programs start (the measure and layout workers): not on the PATH.
set(LATHE_INSTALL_HELPERDIR "${CMAKE_INSTALL_LIBEXECDIR}/lathe")
# Shared libraries the programs dlopen() (the XGBoost cost model).
set(LATHE_INSTALL_MODULEDIR "${CMAKE_INSTALL_LIBDIR}/lathe")
# Plugins (issue 20): one shared library each.
set(LATHE_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/lathe/plugins")

# The install component of every install() that names none: the files of the
# main package, lathe. A plugin with dependencies of its own installs into a
# component of its own, which CPack makes a package of its own
# (packaging/deb.cmake): lathe_add_plugin(... COMPONENT plugin_dnnl).
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME lathe)
# The runtime SDK: c_api.h as <prefix>/include/lathe/runtime/c_api.h, so that
# `#include "runtime/c_api.h"` reads the same in the tree and installed.
set(LATHE_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/lathe")
set(LATHE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/LatheRuntime")
set(LATHE_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# `out` = the path of install folder `to` relative to install folder `from`.
# Relative paths keep an install relocatable: a staging root, a .deb and
# `cmake --install --prefix` all give working programs.
function(lathe_install_relative_path out from to)
  file(RELATIVE_PATH relative "/${from}" "/${to}")
  string(REGEX REPLACE "/$" "" relative "${relative}")
  if(relative STREQUAL "")
    set(relative ".")
  endif()
  set(${out} "${relative}" PARENT_SCOPE)
endfunction()

# Installed programs find liblathe_runtime.so relative to themselves ($ORIGIN),
# wherever the prefix is; `destination` is the folder `target` installs to.
function(lathe_install_rpath target destination)
  lathe_install_relative_path(to_libdir "${destination}" "${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_libdir}")
endfunction()
