// A file the readers that take a path (read_npz, read_package_members) are fed
// from: one per fuzzing process, rewritten with every input, removed at exit.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace lathe::fuzz {

class ScratchFile {
 public:
  explicit ScratchFile(const char* suffix) {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/lathe-fuzz-XXXXXX" + suffix;
    const int fd = mkstemps(path_.data(), static_cast<int>(std::string(suffix).size()));
    if (fd < 0) std::abort();
    close(fd);
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Replaces the file's contents; returns its path.
  const std::string& write(const uint8_t* data, size_t size) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) std::abort();
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace lathe::fuzz
