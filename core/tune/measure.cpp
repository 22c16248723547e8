// The tuner's side of measuring: start lathe-measure-worker, keep it fed with
// the task's buffers, send each candidate with a deadline, and turn whatever
// happens to the worker into a MeasureResult (worker_process.cpp owns the
// process, measure_protocol.cpp the frames).
#include "tune/measure.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "runtime/ndarray.h"
#include "support/error.h"
#include "support/program_files.h"
#include "support/timer.h"
#include "support/worker_process.h"
#include "tune/measure_protocol.h"

namespace lathe::tune {

namespace {

using protocol::ChannelError;
using protocol::Clock;

constexpr const char* kWorkerName = "lathe-measure-worker";
// Starting the worker (loading LLVM) and taking the buffers is no candidate's
// time; it gets a deadline of its own, generous for a loaded machine.
constexpr auto kStartupTimeout = std::chrono::seconds(60);
// How long a worker whose pipe closed may take to finish dying before SIGKILL.
constexpr auto kExitGrace = std::chrono::seconds(1);

const char* const kErrorKindNames[] = {"none",    "instantiation", "compile",
                                       "runtime", "timeout",       "wrong_answer"};

protocol::Deadline deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

std::string to_string(ErrorKind kind) {
  return kErrorKindNames[static_cast<int>(kind)];
}

ErrorKind error_kind_from_string(const std::string& text) {
  for (int i = 0; i < static_cast<int>(std::size(kErrorKindNames)); ++i)
    if (text == kErrorKindNames[i]) return static_cast<ErrorKind>(i);
  fail(str("unknown measurement error kind '", text,
           "' (none, instantiation, compile, runtime, timeout, wrong_answer)"));
}

std::string find_measure_worker() {
  return find_program_file(kWorkerName, "LATHE_MEASURE_WORKER", ProgramFileKind::Helper);
}

MeasureWorker::MeasureWorker(std::string executable) : executable_(std::move(executable)) {}

MeasureWorker::~MeasureWorker() = default;

void MeasureWorker::set_buffers(std::vector<BufferData> buffers, int num_inputs) {
  LATHE_CHECK(num_inputs >= 0 && num_inputs <= static_cast<int>(buffers.size()),
              "set_buffers: ", num_inputs, " inputs among ", buffers.size(), " buffers");
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferData& b = buffers[i];
    int64_t nbytes = 0;
    try {
      nbytes = runtime::num_elements(b.shape) * runtime::DataType::parse(b.dtype).bytes();
    } catch (const runtime::Error& e) {
      fail(str("set_buffers: buffer ", i, ": ", e.what()));
    }
    if (static_cast<int>(i) < num_inputs)
      LATHE_CHECK(static_cast<int64_t>(b.bytes.size()) == nbytes, "set_buffers: input ", i, " (",
                  b.dtype, runtime::shape_to_string(b.shape), ") takes ", nbytes, " bytes, got ",
                  b.bytes.size());
  }
  buffers_ = std::move(buffers);
  num_inputs_ = num_inputs;
  buffers_sent_ = false;
}

void MeasureWorker::ensure_ready() {
  if (process_ && buffers_sent_) return;
  const protocol::Deadline deadline = Clock::now() + kStartupTimeout;
  try {
    if (!process_) {
      buffers_sent_ = false;
      process_ = std::make_unique<WorkerProcess>(executable_);
      ++restarts_;
      const protocol::Frame hello = protocol::read_frame(process_->from_child(), deadline);
      if (protocol::field<std::string>(hello.header, "type") != "ready" ||
          protocol::field<int>(hello.header, "protocol") != protocol::kVersion)
        throw ChannelError(ChannelError::Kind::Malformed,
                           str("not a lathe-measure-worker of protocol version ",
                               protocol::kVersion, ": ", hello.header.dump()));
    }
    nlohmann::json header = {{"type", "buffers"}, {"num_inputs", num_inputs_}};
    header["buffers"] = nlohmann::json::array();
    std::vector<std::span<const char>> inputs;
    for (int i = 0; i < static_cast<int>(buffers_.size()); ++i) {
      header["buffers"].push_back({{"dtype", buffers_[i].dtype}, {"shape", buffers_[i].shape}});
      if (i < num_inputs_) inputs.emplace_back(buffers_[i].bytes);
    }
    protocol::write_frame(process_->to_child(), header, inputs, deadline);
    const protocol::Frame reply = protocol::read_frame(process_->from_child(), deadline);
    if (protocol::field<std::string>(reply.header, "type") != "ok")
      throw ChannelError(ChannelError::Kind::Malformed,
                         "it refused the buffers: " + reply.header.value("message", ""));
    buffers_sent_ = true;
  } catch (const ChannelError& e) {
    std::string why = e.what();
    if (e.kind() == ChannelError::Kind::Closed)
      why = "it " + process_->wait(Clock::now() + kExitGrace);
    else if (e.kind() == ChannelError::Kind::Timeout)
      why = str("no answer after ", kStartupTimeout.count(), " s");
    process_.reset();
    fail(str("the measure worker '", executable_, "' did not start: ", why));
  }
}

MeasureResult MeasureWorker::failure(ErrorKind kind, std::string message) {
  process_.reset();  // kills it: the next measure starts a fresh one
  MeasureResult result;
  result.error = kind;
  result.message = std::move(message);
  return result;
}

MeasureResult MeasureWorker::measure(const MeasureRequest& request, const MeasureOptions& options) {
  LATHE_CHECK(options.number >= 1 && options.repeat >= 1,
              "measure: number and repeat must be at least 1, got ", options.number, " and ",
              options.repeat);
  LATHE_CHECK(options.timeout_s > 0 && options.min_repeat_ms >= 0,
              "measure: timeout_s must be positive and min_repeat_ms not negative");
  const Timer timer;
  ensure_ready();

  const protocol::Deadline deadline = deadline_after(options.timeout_s);
  MeasureResult result;
  try {
    const nlohmann::json header = {{"type", "measure"},
                                   {"func_name", request.func_name},
                                   {"number", options.number},
                                   {"repeat", options.repeat},
                                   {"min_repeat_ms", options.min_repeat_ms},
                                   {"flush_cache", options.flush_cache},
                                   {"return_outputs", request.return_outputs}};
    protocol::write_frame(process_->to_child(), header, {request.object}, deadline);
    protocol::Frame reply = protocol::read_frame(process_->from_child(), deadline);
    const std::string type = protocol::field<std::string>(reply.header, "type");
    if (type == "error") {
      // The worker caught it (an object that does not load) and lives on.
      const std::string kind = protocol::field<std::string>(reply.header, "kind");
      result.message = protocol::field<std::string>(reply.header, "message");
      try {
        result.error = error_kind_from_string(kind);
      } catch (const Error& e) {
        throw ChannelError(ChannelError::Kind::Malformed, str("protocol: ", e.what()));
      }
      if (result.error == ErrorKind::None)
        throw ChannelError(ChannelError::Kind::Malformed, "protocol: an error of kind 'none'");
      // A worker whose GPU context a kernel broke ends after this answer.
      if (reply.header.value("ends", false)) {
        process_.reset();
        buffers_sent_ = false;
      }
    } else if (type == "result") {
      result.costs_ms = protocol::field<std::vector<double>>(reply.header, "costs_ms");
      result.runs = protocol::field<std::vector<int>>(reply.header, "runs");
      const size_t num_outputs = request.return_outputs ? buffers_.size() - num_inputs_ : 0;
      if (static_cast<int>(result.costs_ms.size()) != options.repeat ||
          result.runs.size() != result.costs_ms.size() || reply.blobs.size() != num_outputs)
        throw ChannelError(
            ChannelError::Kind::Malformed,
            str("protocol: a result of ", result.costs_ms.size(), " costs and ", reply.blobs.size(),
                " outputs for ", options.repeat, " repeats and ", num_outputs, " outputs"));
      result.outputs = std::move(reply.blobs);
    } else {
      throw ChannelError(ChannelError::Kind::Malformed,
                         str("protocol: a reply of type '", type, "'"));
    }
  } catch (const ChannelError& e) {
    switch (e.kind()) {
      case ChannelError::Kind::Timeout:
        result = failure(ErrorKind::Timeout, str("no result after ", options.timeout_s, " s"));
        break;
      case ChannelError::Kind::Closed:
        result = failure(ErrorKind::Runtime, "worker " + process_->wait(Clock::now() + kExitGrace));
        break;
      case ChannelError::Kind::Malformed:
        result = failure(ErrorKind::Runtime, e.what());
        break;
    }
  }
  result.wall_ms = timer.milliseconds();
  return result;
}

}  // namespace lathe::tune
