// lathe-layout-worker: lays out one DOT text with Graphviz's dot and exits.
// The DOT text comes on descriptor 3 (to its end), the geometry goes out on
// descriptor 4 (dot_geometry.h); an error is one line "error: ..." there and
// exit status 1. A process per layout, because dot cannot be interrupted:
// the studio cancels a layout by killing its worker, and two panes lay out
// in parallel without sharing Graphviz's global state.
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <string>

#include "views/dot_geometry.h"
#include "views/layout_worker/run_dot.h"

namespace {

constexpr int kRequestFd = 3;
constexpr int kReplyFd = 4;

bool read_all(int fd, std::string& out) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      return true;
    } else if (errno != EINTR) {
      return false;
    }
  }
}

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0)
      done += static_cast<size_t>(n);
    else if (n < 0 && errno != EINTR)
      return false;
  }
  return true;
}

}  // namespace

int main() {
  std::string dot;
  if (!read_all(kRequestFd, dot)) return 2;
  try {
    return write_all(kReplyFd, lathe::views::write_dot_geometry(lathe::views::run_dot(dot))) ? 0
                                                                                             : 2;
  } catch (const std::exception& e) {
    write_all(kReplyFd, std::string("error: ") + e.what() + "\n");
    return 1;
  }
}
