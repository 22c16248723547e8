// Frames over pipes with a deadline: every wait is a poll() for the time left,
// so a worker that hangs (or a tuner that stops reading) never blocks the other
// end past its deadline. Compiled into both lathe_tune and the worker.
#include "tune/measure_protocol.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

namespace lathe::tune::protocol {

namespace {

// A header is a few hundred bytes and a blob at most a tensor or an object:
// sizes beyond these come from a stream out of step.
constexpr uint32_t kMaxHeaderBytes = 16u << 20;
constexpr uint64_t kMaxBlobBytes = uint64_t{1} << 40;
constexpr uint64_t kBlobChunkBytes = uint64_t{64} << 20;

using Kind = ChannelError::Kind;

// Waits until fd is ready for `events`; Timeout when the deadline passes first.
void wait_for(int fd, short events, Deadline deadline) {
  for (;;) {
    int timeout_ms = -1;
    if (deadline != kNoDeadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) throw ChannelError(Kind::Timeout, "protocol: deadline passed");
      timeout_ms = static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
    }
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, timeout_ms);
    if (n > 0) return;  // ready, or an error/hang-up the next read or write reports
    if (n < 0 && errno != EINTR)
      throw ChannelError(Kind::Closed, str("protocol: poll: ", std::strerror(errno)));
  }
}

void write_bytes(int fd, const char* data, size_t size, Deadline deadline) {
  while (size > 0) {
    wait_for(fd, POLLOUT, deadline);
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == EPIPE) throw ChannelError(Kind::Closed, "protocol: the reader is gone");
      throw ChannelError(Kind::Closed, str("protocol: write: ", std::strerror(errno)));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void read_bytes(int fd, char* data, size_t size, Deadline deadline) {
  while (size > 0) {
    wait_for(fd, POLLIN, deadline);
    const ssize_t n = ::read(fd, data, size);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw ChannelError(Kind::Closed, str("protocol: read: ", std::strerror(errno)));
    }
    if (n == 0) throw ChannelError(Kind::Closed, "protocol: end of file");
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

void write_frame(int fd, nlohmann::json header, const std::vector<std::span<const char>>& blobs,
                 Deadline deadline) {
  header["blobs"] = nlohmann::json::array();
  for (std::span<const char> blob : blobs) header["blobs"].push_back(blob.size());
  // Messages may quote bytes from anywhere (an LLVM diagnostic, a symbol name):
  // invalid UTF-8 is replaced rather than thrown over.
  const std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const auto length = static_cast<uint32_t>(text.size());
  SigpipeBlocked guard;
  write_bytes(fd, reinterpret_cast<const char*>(&length), sizeof length, deadline);
  write_bytes(fd, text.data(), text.size(), deadline);
  for (std::span<const char> blob : blobs) write_bytes(fd, blob.data(), blob.size(), deadline);
}

Frame read_frame(int fd, Deadline deadline) {
  uint32_t length = 0;
  read_bytes(fd, reinterpret_cast<char*>(&length), sizeof length, deadline);
  if (length > kMaxHeaderBytes)
    throw ChannelError(Kind::Malformed, str("protocol: a header of ", length, " bytes"));
  std::string text(length, '\0');
  read_bytes(fd, text.data(), text.size(), deadline);

  Frame frame;
  frame.header = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!frame.header.is_object())
    throw ChannelError(Kind::Malformed, "protocol: a header that is not a JSON object");
  for (uint64_t size : field<std::vector<uint64_t>>(frame.header, "blobs")) {
    if (size > kMaxBlobBytes)
      throw ChannelError(Kind::Malformed, str("protocol: a blob of ", size, " bytes"));
    // Grown as the bytes arrive, so a size out of step with the stream costs
    // no more memory than was sent; what cannot be held is a channel error,
    // which ends this worker, never the session reading it.
    std::vector<char>& blob = frame.blobs.emplace_back();
    try {
      while (blob.size() < size) {
        const size_t done = blob.size();
        const auto chunk = static_cast<size_t>(std::min<uint64_t>(kBlobChunkBytes, size - done));
        blob.resize(done + chunk);
        read_bytes(fd, blob.data() + done, chunk, deadline);
      }
    } catch (const std::bad_alloc&) {
      throw ChannelError(Kind::Malformed,
                         str("protocol: a blob of ", size, " bytes does not fit in memory"));
    }
  }
  return frame;
}

}  // namespace lathe::tune::protocol
