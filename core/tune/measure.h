// Measuring tuning candidates in a worker process (lathe-measure-worker), as
// TVM's RPC runner does locally: the tuner builds a candidate's object here,
// the worker loads it, runs it on the task's buffers and reports the costs. A
// candidate that crashes or hangs costs one record marked as an error, never
// the session: the worker dies or is killed, and the next call starts another.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lathe {
class WorkerProcess;
}

namespace lathe::tune {

struct MeasureOptions {
  int number = 1;  // runs averaged into one cost
  int repeat = 3;  // costs reported
  // Raise `number` until one repeat takes at least this long (with flush_cache,
  // this long in wall time, the flushes counted).
  double min_repeat_ms = 0;
  // Evict every buffer but the first (the activation) from the caches before
  // each run, as TVM's cache_flush_cpu_non_first_arg; flushes are not timed,
  // and the thread pool is woken after each, as a model's next kernel finds it.
  bool flush_cache = false;
  double timeout_s = 10;  // per candidate, loading and all runs included
};

// Instantiation and WrongAnswer are the tuner's to report (a schedule that does
// not apply; outputs that differ from the reference). MeasureWorker reports
// Compile for an object the worker cannot load or that lacks the kernel,
// Runtime for a worker that crashed or broke the protocol, Timeout for a kill.
enum class ErrorKind { None, Instantiation, Compile, Runtime, Timeout, WrongAnswer };
// "none", "instantiation", "compile", "runtime", "timeout", "wrong_answer"; and back
// (throws for unknown text).
std::string to_string(ErrorKind kind);
ErrorKind error_kind_from_string(const std::string& text);

struct BufferData {
  std::string dtype;  // "float32", "int64", "bool" ... (runtime DataType names)
  std::vector<int64_t> shape;
  std::vector<char> bytes;  // inputs: their contents; outputs: empty (the worker zero-fills)
};

struct MeasureRequest {
  std::vector<char> object;  // codegen::emit_object of the candidate
  std::string func_name;
  // Send back the output buffers after the first run (for the reference check).
  bool return_outputs = false;
};

struct MeasureResult {
  ErrorKind error = ErrorKind::None;
  // What went wrong, e.g. "worker killed by signal 11 (SIGSEGV: Segmentation fault)",
  // "no result after 10 s".
  std::string message;
  std::vector<double> costs_ms;            // `repeat` costs, each the mean of its runs
  std::vector<int> runs;                   // how many runs each cost is the mean of
  std::vector<std::vector<char>> outputs;  // when asked: bytes of each output buffer
  double wall_ms = 0;                      // time the whole request took
};

// Where the worker executable is: $LATHE_MEASURE_WORKER, else lathe-measure-worker next to
// /proc/self/exe, in the install's libexec/lathe/ or the build's bin dir
// (support/program_files.h). Throws naming the places tried.
std::string find_measure_worker();

// One worker process at a time, started on the first measure and after each
// failure that ended the last one. Used from one thread at a time.
class MeasureWorker {
 public:
  explicit MeasureWorker(std::string executable = find_measure_worker());
  ~MeasureWorker();  // ends the child
  MeasureWorker(const MeasureWorker&) = delete;
  MeasureWorker& operator=(const MeasureWorker&) = delete;

  // The kernel's buffers in parameter order (inputs first, then outputs): sent once to the
  // worker, and again after the worker had to be restarted. Throws lathe::Error for an
  // unknown dtype, or input bytes that do not fill their shape.
  void set_buffers(std::vector<BufferData> buffers, int num_inputs);

  // Never throws for a bad candidate: a crash (signal), a hang (timeout -> SIGKILL), an object that
  // does not load, a protocol error — each becomes a MeasureResult with its ErrorKind and message.
  // A crash, hang or protocol error ends the worker and the next call starts a fresh one (an
  // object that does not load leaves it running). Throws lathe::Error for options out of range
  // and when no worker can be started at all (a missing executable is no candidate's fault).
  // `timeout_s` starts once the worker is up and holds the buffers.
  MeasureResult measure(const MeasureRequest& request, const MeasureOptions& options);

  int restarts() const { return restarts_; }  // how many times a worker was (re)started

 private:
  // A running worker holding the current buffers.
  void ensure_ready();
  MeasureResult failure(ErrorKind kind, std::string message);

  std::string executable_;
  std::vector<BufferData> buffers_;
  int num_inputs_ = 0;
  std::unique_ptr<lathe::WorkerProcess> process_;
  bool buffers_sent_ = false;  // whether process_ holds buffers_
  int restarts_ = 0;
};

}  // namespace lathe::tune
