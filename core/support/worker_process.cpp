// posix_spawn rather than fork: the tuner is multi-threaded (and the studio a
// Qt application), and a spawn runs nothing of this process in the child
// before exec. Every pipe end is close-on-exec, so no other child started
// meanwhile holds one open and hides the end of file a dying worker causes.
#include "support/worker_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "support/error.h"

extern char** environ;

namespace lathe {

namespace {

void set_non_blocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

}  // namespace

SigpipeBlocked::SigpipeBlocked() {
  sigemptyset(&sigpipe_);
  sigaddset(&sigpipe_, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &sigpipe_, &old_mask_);
}

SigpipeBlocked::~SigpipeBlocked() {
  if (!was_pending_) {
    const timespec no_wait{0, 0};
    while (sigtimedwait(&sigpipe_, nullptr, &no_wait) == -1 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(sig);
    const char* description = sigdescr_np(sig);
    return str("killed by signal ", sig, " (SIG", abbrev ? abbrev : "?", ": ",
               description ? description : "unknown signal", ")");
  }
  if (WIFEXITED(wait_status)) return str("exited with status ", WEXITSTATUS(wait_status));
  return str("ended with wait status ", wait_status);
}

WorkerProcess::WorkerProcess(const std::string& executable) {
  int requests[2];  // parent writes [1], child reads [0]
  int replies[2];   // child writes [1], parent reads [0]
  if (pipe2(requests, O_CLOEXEC) != 0)
    fail(str(executable, ": cannot create a pipe: ", std::strerror(errno)));
  if (pipe2(replies, O_CLOEXEC) != 0) {
    const int saved_errno = errno;
    ::close(requests[0]);
    ::close(requests[1]);
    fail(str(executable, ": cannot create a pipe: ", std::strerror(saved_errno)));
  }
  to_child_ = requests[1];
  from_child_ = replies[0];
  // The child's ends move to 10 and above: sitting on 3 or 4, one would be
  // overwritten by placing the other there before it is placed itself.
  const int child_in = fcntl(requests[0], F_DUPFD_CLOEXEC, 10);
  const int child_out = fcntl(replies[1], F_DUPFD_CLOEXEC, 10);
  const int dup_errno = errno;
  ::close(requests[0]);
  ::close(replies[1]);
  if (child_in < 0 || child_out < 0) {
    if (child_in >= 0) ::close(child_in);
    if (child_out >= 0) ::close(child_out);
    close_pipes();
    fail(str(executable, ": cannot duplicate a pipe: ", std::strerror(dup_errno)));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 leaves the copies on 3 and 4 without close-on-exec; the originals close.
  posix_spawn_file_actions_adddup2(&actions, child_in, kWorkerRequestFd);
  posix_spawn_file_actions_adddup2(&actions, child_out, kWorkerReplyFd);
  // The child starts with no signal blocked and SIGPIPE at its default,
  // whatever the calling thread had.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::string program = executable;
  char* argv[] = {program.data(), nullptr};
  const int error = posix_spawn(&pid_, program.c_str(), &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(child_in);
  ::close(child_out);
  if (error != 0) {
    pid_ = -1;
    close_pipes();
    fail(str("cannot start '", executable, "': ", std::strerror(error)));
  }
  set_non_blocking(to_child_);
  set_non_blocking(from_child_);
}

WorkerProcess::~WorkerProcess() {
  kill();
}

std::string WorkerProcess::wait(std::chrono::steady_clock::time_point deadline) {
  close_pipes();
  if (pid_ < 0) return "had already ended";
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) {
      pid_ = -1;
      return str("could not be waited for: ", std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill();
      return "closed its pipe without exiting, and was killed";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  pid_ = -1;
  return describe_exit(status);
}

void WorkerProcess::kill() {
  close_pipes();
  if (pid_ < 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void WorkerProcess::close_to_child() {
  if (to_child_ >= 0) ::close(to_child_);
  to_child_ = -1;
}

void WorkerProcess::close_pipes() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  to_child_ = from_child_ = -1;
}

}  // namespace lathe
