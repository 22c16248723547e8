// What a GPU kernel needs from its launch, and the checks that refuse what
// the device cannot run: both read from a lowered PrimFunc's thread-bound
// loops, without LLVM (the NVPTX code generator and, later, a package's
// launch records use them).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "codegen/target.h"
#include "support/error.h"
#include "tir/stmt.h"

namespace lathe::codegen {

// TVM splits a function at its bound loops into a host part that launches
// and a device kernel; a Lathe kernel does no host work before its loops, so
// the host part is this record: the grid and block the bound loops span.
struct GpuLaunch {
  std::string kernel;
  std::array<int64_t, 3> grid{1, 1, 1};   // blockIdx.x/y/z extents
  std::array<int64_t, 3> block{1, 1, 1};  // threadIdx.x/y/z extents
  int64_t shared_bytes = 0;               // static shared memory of the block
  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// What verify_gpu_func throws: its message, and what in the kernel the
// problem is about, so that a schedule editor can point at the line that made
// it (driver/gpu_schedule_check.h). Each part is empty when it does not apply.
class GpuVerifyError : public Error {
 public:
  struct Subject {
    std::string loop;        // the loop's variable: "xo"
    std::string thread_tag;  // "threadIdx" for threads per block, else a full tag "blockIdx.y"
    std::string scope;       // "shared", or a buffer's scope
    std::string buffer;      // a buffer, by its stage's name: "conv_pad_shared"
    static Subject of_loop(std::string name) {
      Subject s;
      s.loop = std::move(name);
      return s;
    }
    static Subject of_threads(std::string tag) {
      Subject s;
      s.thread_tag = std::move(tag);
      return s;
    }
    static Subject of_scope(std::string scope) {
      Subject s;
      s.scope = std::move(scope);
      return s;
    }
    static Subject of_buffer(std::string name) {
      Subject s;
      s.buffer = std::move(name);
      return s;
    }
  };
  GpuVerifyError(const std::string& message, Subject subject)
      : Error(message), subject_(std::move(subject)) {}
  const Subject& subject() const { return subject_; }

 private:
  Subject subject_;
};

// The launch of `func` for a GPU `target`, after checking that the device can
// run it. Throws lathe::Error naming the kernel, and the loop or allocation,
// for: a target that is not a GPU; a thread tag other than blockIdx/threadIdx
// .x/.y/.z; a bound loop of non-constant extent, or whose minimum is not 0;
// threads per block over -max_threads_per_block; blockIdx.y/z over 65535
// (x over 2^31-1); static shared memory over -max_shared_memory_per_block; a
// shared allocation of non-constant size; a parallel loop; and a serial loop
// or a memory access outside every bound loop (it would run whole in every
// thread: TVM's "did you forget to bind?"). A kernel that binds no loop at
// all is a scalar's and runs as one thread of one block: its loop nests may
// run up to 1024 iterations and its scratch buffers hold up to 1 KiB.
// Throws GpuVerifyError for the kernel's problems.
GpuLaunch verify_gpu_func(const tir::PrimFunc& func, const Target& target);

}  // namespace lathe::codegen
