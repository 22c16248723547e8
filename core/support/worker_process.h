// A child process that talks over two pipes on fixed descriptors: what the
// parent writes to to_child() arrives on the child's kWorkerRequestFd (3),
// and what the child writes to its kWorkerReplyFd (4) comes out of
// from_child().
// The child inherits the environment (LATHE_NUM_THREADS), stdout and stderr.
// Used for the tuner's measurement workers and the studio's layout workers.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <string>

namespace lathe {

inline constexpr int kWorkerRequestFd = 3;
inline constexpr int kWorkerReplyFd = 4;

class WorkerProcess {
 public:
  // Throws lathe::Error when the executable cannot be started.
  explicit WorkerProcess(const std::string& executable);
  ~WorkerProcess();  // kills the child if it still runs, and reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // The parent's ends, non-blocking (protocol reads and writes poll them).
  int to_child() const { return to_child_; }
  int from_child() const { return from_child_; }

  // Reaps a child that is ending (its pipe closed), killing it if it has not
  // ended by `deadline`, and says how it ended: "exited with status 3",
  // "killed by signal 11 (SIGSEGV: Segmentation fault)".
  std::string wait(std::chrono::steady_clock::time_point deadline);
  // SIGKILL now, then reap.
  void kill();
  // Closes the parent's writing end: the child reads end of file.
  void close_to_child();

 private:
  void close_pipes();

  pid_t pid_ = -1;  // -1 once reaped
  int to_child_ = -1;
  int from_child_ = -1;
};

// Keeps SIGPIPE from the calling thread while it writes to a worker: a write
// to a pipe whose reader died then fails with EPIPE instead of ending the
// process. The signal a failed write raises is thread-directed, so it is
// taken off this thread's pending set before the old mask returns, unless one
// was already pending when we came (then it is not ours to swallow).
class SigpipeBlocked {
 public:
  SigpipeBlocked();
  ~SigpipeBlocked();
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t sigpipe_;
  sigset_t old_mask_;
  bool was_pending_ = false;
};

// How a wait status reads in a message.
std::string describe_exit(int wait_status);

}  // namespace lathe
