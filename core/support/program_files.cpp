#include "support/program_files.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "support/error.h"

namespace lathe {
namespace {

namespace fs = std::filesystem;

// Helpers are executed and need the execute bit; modules are mapped by
// dlopen(), which only reads them (installed libraries are mode 644).
bool is_usable_file(const fs::path& path, ProgramFileKind kind) {
  std::error_code error;
  return fs::is_regular_file(path, error) &&
         ::access(path.c_str(), kind == ProgramFileKind::Helper ? X_OK : R_OK) == 0;
}

const char* usable_file_description(ProgramFileKind kind) {
  return kind == ProgramFileKind::Helper ? "an executable file" : "a readable file";
}

// The install layout's folder for `kind`, relative to the programs' folder
// (bin/): computed by CMake from GNUInstallDirs (packaging/install_dirs.cmake).
const char* installed_dir_from_bin(ProgramFileKind kind) {
  switch (kind) {
    case ProgramFileKind::Helper:
      return LATHE_HELPER_DIR_FROM_BIN;
    case ProgramFileKind::Module:
      return LATHE_MODULE_DIR_FROM_BIN;
  }
  return ".";
}

// Whether `path` lies inside the folder `dir` (both absolute and normal).
bool is_inside(const fs::path& path, const fs::path& dir) {
  const fs::path relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

std::string find_program_file(const char* name, const char* env_variable, ProgramFileKind kind) {
  if (const char* variable = std::getenv(env_variable); variable && *variable) {
    if (is_usable_file(variable, kind)) return variable;
    fail(str(env_variable, " is '", variable, "', which is not ", usable_file_description(kind)));
  }
  std::vector<fs::path> places;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    places.push_back(self.parent_path() / name);
    places.push_back((self.parent_path() / installed_dir_from_bin(kind) / name).lexically_normal());
  }
  // An installed program never looks into the tree it was built in: that
  // tree may be gone, or hold another version.
  if (error || is_inside(self, LATHE_BUILD_DIR))
    places.push_back(fs::path(LATHE_BUILD_DIR) / "bin" / name);
  std::string tried;
  for (const fs::path& place : places) {
    if (is_usable_file(place, kind)) return place.string();
    tried += (tried.empty() ? "" : ", ") + place.string();
  }
  fail(str("cannot find ", name, " (tried ", tried, "); set ", env_variable, " to its path"));
}

}  // namespace lathe
