#include "support/run_program.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace lathe {

int run_program(const std::vector<std::string>& argv, std::string& output) {
  int fds[2];
  LATHE_CHECK(pipe2(fds, O_CLOEXEC) == 0, "pipe: ", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    if (spawned == ENOENT) throw ProgramNotFound(str("no program '", argv[0], "' on PATH"));
    fail(str("cannot run ", argv[0], ": ", std::strerror(spawned)));
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::optional<std::string> find_cuda_tool(const std::string& name) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path& p) { return ::access(p.c_str(), X_OK) == 0; };
  std::vector<fs::path> places;
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      if (end > start) places.emplace_back(dirs.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    places.push_back(fs::path(home) / "bin");
  places.emplace_back("/usr/local/cuda/bin");
  for (const fs::path& dir : places)
    if (executable(dir / name)) return (dir / name).string();
  return std::nullopt;
}

}  // namespace lathe
