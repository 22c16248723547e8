#include "support/program_files.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "support/error.h"

namespace lathe {
namespace {

// Workers are executed and modules mapped: both need a readable, executable file.
bool is_executable_file(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_program_file(const char* name, const char* env_variable) {
  if (const char* variable = std::getenv(env_variable); variable && *variable) {
    if (is_executable_file(variable)) return variable;
    fail(str(env_variable, " is '", variable, "', which is not an executable file"));
  }
  std::vector<std::filesystem::path> places;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) places.push_back(self.parent_path() / name);
#ifdef LATHE_BUILD_BIN_DIR
  places.push_back(std::filesystem::path(LATHE_BUILD_BIN_DIR) / name);
#endif
  std::string tried;
  for (const std::filesystem::path& place : places) {
    if (is_executable_file(place)) return place.string();
    tried += (tried.empty() ? "" : ", ") + place.string();
  }
  fail(str("cannot find ", name, " (tried ", tried, "); set ", env_variable, " to its path"));
}

}  // namespace lathe
