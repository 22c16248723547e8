# The .debs (CPack's DEB generator, one package per install component) of
# everything packaging/CMakeLists.txt and the plugins install, under /usr:
#   cmake --build build --target package
#     -> lathe_<version>_<arch>.deb              component lathe: the CLI, the studio,
#                                                 the runtime SDK, the contrib_gelu plugin
#     -> lathe-plugin-dnnl_<version>_<arch>.deb  component plugin_dnnl, when oneDNN was
#                                                 found: the dnnl plugin and its runtime
# so that installing Lathe does not pull in oneDNN (and its OpenMP runtime).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME lathe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Lathe developers <lathe@lathe.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>_<arch>.deb, for each component
# dpkg-shlibdeps reads the libraries every ELF file links (Qt, LLVM, libonnx,
# libxgboost for the cost model's module, Graphviz for the layout worker,
# libdnnl for the dnnl plugin's runtime ...), per package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Installed binaries carry no debug info, as Debian ships them.
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lathe)
if(TARGET lathe_plugin_dnnl)
  list(APPEND CPACK_COMPONENTS_ALL plugin_dnnl)
endif()

# The main package. Its name is CPack's package name, not lathe-lathe.
set(CPACK_DEBIAN_LATHE_PACKAGE_NAME lathe)
set(CPACK_COMPONENT_LATHE_DESCRIPTION
    "deep-learning compiler workbench (ONNX to native kernels)\n\
Lathe compiles ONNX models to native x86 kernels in the style of Apache TVM \
(graph passes, operator fusion, tensor expressions and schedules, loop IR, LLVM) \
and shows every stage in a desktop workbench.\n\
\n\
This package holds the lathe command (inspect, compile, run, tune), the \
lathe-studio workbench, the runtime SDK (liblathe_runtime.so with its C \
interface, a CMake package, find_package(LatheRuntime), and a pkg-config file, \
lathe-runtime) and the contrib_gelu plugin (ONNX Runtime's com.microsoft Gelu \
and FastGelu). oneDNN's kernels come in lathe-plugin-dnnl.")
# What no ELF file names: `lathe compile` links each package's mod.so with the
# system C compiler (driver/package_writer), the studio needs a Qt platform
# plugin to open a window, and the menu finds the studio's icon through the
# hicolor theme, whose index.theme names the size folders the icons are in
# (without it a clean system's menu shows no icon: packaging/test-clean-install.sh).
set(CPACK_DEBIAN_LATHE_PACKAGE_DEPENDS
    "gcc | c-compiler, libc6-dev | libc-dev, qt6-qpa-plugins, hicolor-icon-theme")
# liblathe_runtime.so.0.1 for other packages' dpkg-shlibdeps. Written by hand:
# CPack's own shlibs generation (CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS) also
# looks at the cost model's module, which has no SONAME, and warns. CPack's
# postinst and postrm run ldconfig for the library in /usr/lib.
get_target_property(LATHE_RUNTIME_SOVERSION lathe_runtime SOVERSION)
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/shlibs.in ${CMAKE_CURRENT_BINARY_DIR}/deb/shlibs @ONLY)
set(CPACK_DEBIAN_LATHE_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_BINARY_DIR}/deb/shlibs)

# The dnnl plugin: dnnl.so resolves Lathe's symbols from the program that
# loads it, under one plugin ABI, so it needs exactly this version of lathe.
set(CPACK_DEBIAN_PLUGIN_DNNL_PACKAGE_NAME lathe-plugin-dnnl)
set(CPACK_DEBIAN_PLUGIN_DNNL_PACKAGE_DEPENDS "lathe (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_PLUGIN_DNNL_DESCRIPTION
    "oneDNN kernels for Lathe (the dnnl plugin)\n\
The dnnl plugin hands Conv (grouped, depthwise, strided, dilated), \
ConvTranspose, Gemm/MatMul and pooling, with their bias, ReLU and sum \
post-ops, to oneDNN, as TVM's bring-your-own-codegen does: \
`lathe compile|run --plugin dnnl`, or Plugins > Load Plugins in lathe-studio. \
Compiled packages that call oneDNN link liblathe_dnnl_runtime.so from this package.")
include(CPack)
