// The wire format between the tuner's MeasureWorker (measure.cpp) and the
// lathe-measure-worker process (worker/measure_worker.cpp). It travels on two
// pipes of its own, not stdin/stdout, so that whatever a kernel or a library
// prints cannot corrupt it.
//
// A frame is a 4-byte length in native byte order (both ends run on one
// machine), that many bytes of JSON — the header — and then the raw bytes of
// each blob whose size the header's "blobs" array lists, in order.
//
//   worker → tuner  {"type":"ready","protocol":1}                     once, on start
//   tuner → worker  {"type":"buffers","num_inputs":N,"buffers":[{"dtype","shape"}...]}
//                   blobs: the N inputs' bytes           reply {"type":"ok"}
//   tuner → worker  {"type":"measure","func_name","number","repeat","min_repeat_ms",
//                    "flush_cache","return_outputs"}  blob: the object
//                   reply {"type":"result","costs_ms":[...],"runs":[...]}
//                         blobs: the outputs when asked
//                      or {"type":"error","kind":"compile"|"runtime","message":"..."}
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "support/error.h"
#include "support/worker_process.h"

namespace lathe::tune::protocol {

// 2: the worker also runs simulated cuda kernel objects
// (tune/simulated_kernel_object.h); a version-1 worker would call them
// objects it cannot load.
inline constexpr int kVersion = 2;
// The worker's descriptors: requests come in on one, replies go out on the other.
inline constexpr int kRequestFd = kWorkerRequestFd;
inline constexpr int kReplyFd = kWorkerReplyFd;

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();

struct Frame {
  nlohmann::json header;
  std::vector<std::vector<char>> blobs;
};

// Why a frame could not be read or written.
class ChannelError : public Error {
 public:
  enum class Kind {
    Timeout,    // the deadline passed first
    Closed,     // the other end is gone (end of file, broken pipe)
    Malformed,  // bytes that are no frame, or a header that lacks what it must say
  };
  ChannelError(Kind kind, const std::string& message) : Error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Writes one frame, setting header["blobs"] to the blobs' sizes. A reader that
// is gone is ChannelError::Closed, never a SIGPIPE.
void write_frame(int fd, nlohmann::json header, const std::vector<std::span<const char>>& blobs,
                 Deadline deadline);
Frame read_frame(int fd, Deadline deadline);

// The header's value at `key` as T, or ChannelError::Malformed naming the key.
template <typename T>
T field(const nlohmann::json& header, const char* key) {
  try {
    return header.at(key).get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw ChannelError(ChannelError::Kind::Malformed,
                       str("protocol: message field '", key, "': ", e.what()));
  }
}

}  // namespace lathe::tune::protocol
