# The .deb (CPack's DEB generator) of everything packaging/CMakeLists.txt
# installs, under /usr: `cmake --build build --target package`.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME lathe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "deep-learning compiler workbench (ONNX to native kernels)")
set(CPACK_PACKAGE_DESCRIPTION
    "Lathe compiles ONNX models to native x86 kernels in the style of Apache TVM \
(graph passes, operator fusion, tensor expressions and schedules, loop IR, LLVM) \
and shows every stage in a desktop workbench.\n\
\n\
This package holds the lathe command (inspect, compile, run, tune), the \
lathe-studio workbench, and the runtime SDK: liblathe_runtime.so with its C \
interface, a CMake package (find_package(LatheRuntime)) and a pkg-config file \
(lathe-runtime).")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Lathe developers <lathe@lathe.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # lathe_<version>_<arch>.deb
# dpkg-shlibdeps reads the libraries every ELF file links (Qt, LLVM, libonnx,
# libxgboost for the cost model's module, Graphviz for the layout worker ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What no ELF file names: `lathe compile` links each package's mod.so with the
# system C compiler (driver/package_writer), and the studio needs a Qt platform
# plugin to open a window.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | c-compiler, libc6-dev | libc-dev, qt6-qpa-plugins")
# Installed binaries carry no debug info, as Debian ships them.
set(CPACK_STRIP_FILES ON)
# liblathe_runtime.so.0.1 for other packages' dpkg-shlibdeps. Written by hand:
# CPack's own shlibs generation (CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS) also
# looks at the cost model's module, which has no SONAME, and warns. CPack's
# postinst and postrm run ldconfig for the library in /usr/lib.
get_target_property(LATHE_RUNTIME_SOVERSION lathe_runtime SOVERSION)
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/shlibs.in ${CMAKE_CURRENT_BINARY_DIR}/deb/shlibs @ONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_BINARY_DIR}/deb/shlibs)
include(CPack)
