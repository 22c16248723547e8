// lathe-measure-worker: runs tuning candidates for the tuner's MeasureWorker
// (tune/measure.h), so that a candidate that crashes or hangs takes down only
// this process. Requests arrive on descriptor 3 and replies leave on 4 in the
// frames of tune/measure_protocol.h; stdout and stderr stay free for anything
// that prints. The tuner starts it; it serves until its request pipe closes.
#include <fcntl.h>
#include <immintrin.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

#include "codegen/codegen.h"
#include "codegen/gpu_simulator.h"
#include "runtime/cpu_features.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "tune/cuda_kernel_object.h"
#include "tune/measure_protocol.h"
#include "tune/simulated_kernel_object.h"
#include "tune/worker/cuda_measure.h"

namespace {

using namespace lathe;
using namespace lathe::tune;
using codegen::KernelFunction;
using protocol::field;

// No batch runs more often than this, however fast the kernel.
constexpr int kMaxNumber = 1 << 30;
constexpr size_t kCacheLine = 64;

struct Reply {
  nlohmann::json header;
  std::vector<std::vector<char>> blobs;
};

Reply error_reply(const char* kind, const std::string& message) {
  return {{{"type", "error"}, {"kind", kind}, {"message", message}}, {}};
}

// The cache lines of [bytes, bytes + nbytes) out of every cache level.
// clflushopt, where the CPU has it, is clflush without the ordering among
// flushes: the lines of a buffer leave in parallel rather than one after the
// other (the fence after all of them still orders them before the run).
__attribute__((target("clflushopt"))) void flush_lines_unordered(const char* bytes, size_t nbytes) {
  for (size_t offset = 0; offset < nbytes; offset += kCacheLine)
    _mm_clflushopt(const_cast<char*>(bytes + offset));
}

void flush_lines(const char* bytes, size_t nbytes) {
  static const bool unordered = runtime::host_cpu_features().count("clflushopt") > 0;
  if (unordered) return flush_lines_unordered(bytes, nbytes);
  for (size_t offset = 0; offset < nbytes; offset += kCacheLine) _mm_clflush(bytes + offset);
}

// Evicts every kernel buffer but the first from all cache levels before a
// run, as TVM's cache_flush_cpu_non_first_arg: in a model the first argument
// (the activation) was just written by the kernel before, while the weights,
// the other inputs and the outputs come from memory. Without it a kernel timed
// in a loop finds its weights in cache, and the tuner prefers schedules that
// only win then.
void flush_non_first_buffers(const std::vector<runtime::NDArray>& buffers) {
  for (size_t i = 1; i < buffers.size(); ++i)
    flush_lines(buffers[i].data_as<char>(), buffers[i].nbytes());
  _mm_mfence();
}

class Worker {
 public:
  Reply handle(protocol::Frame& request) {
    try {
      const std::string type = field<std::string>(request.header, "type");
      if (type == "buffers") return set_buffers(request);
      if (type == "measure") return measure(request);
      return error_reply("runtime", "unknown request '" + type + "'");
    } catch (const std::exception& e) {
      return error_reply("runtime", e.what());
    }
  }

  // Whether a cuda kernel broke the GPU context: the worker ends after its answer.
  bool poisoned() const { return poisoned_; }

 private:
  Reply set_buffers(protocol::Frame& request) {
    buffers_.clear();
    pointers_.clear();
    num_inputs_ = field<int>(request.header, "num_inputs");
    const auto specs = field<std::vector<nlohmann::json>>(request.header, "buffers");
    if (num_inputs_ < 0 || num_inputs_ > static_cast<int>(specs.size()) ||
        request.blobs.size() != static_cast<size_t>(num_inputs_))
      return error_reply("runtime", "buffers: inputs and blobs do not match");
    for (size_t i = 0; i < specs.size(); ++i) {
      runtime::NDArray array(field<std::vector<int64_t>>(specs[i], "shape"),
                             runtime::DataType::parse(field<std::string>(specs[i], "dtype")));
      if (i < request.blobs.size())
        array.copy_from(request.blobs[i].data(), request.blobs[i].size());
      pointers_.push_back(array.data());
      buffers_.push_back(std::move(array));
    }
    cuda_.set_buffers(&buffers_, num_inputs_);
    return {{{"type", "ok"}}, {}};
  }

  Reply measure(protocol::Frame& request) {
    const nlohmann::json& h = request.header;
    const auto name = field<std::string>(h, "func_name");
    const int repeat = std::max(1, field<int>(h, "repeat"));
    const double min_repeat_ms = field<double>(h, "min_repeat_ms");
    const bool return_outputs = field<bool>(h, "return_outputs");
    int number = std::clamp(field<int>(h, "number"), 1, kMaxNumber);
    flush_cache_ = field<bool>(h, "flush_cache");
    if (request.blobs.size() != 1) return error_reply("runtime", "measure: no object");
    if (is_cuda_kernel_object(request.blobs[0]))
      return measure_cuda(request.blobs[0], number, repeat, min_repeat_ms, return_outputs);
    if (is_simulated_kernel_object(request.blobs[0]))
      return simulate(request.blobs[0], name, repeat, return_outputs);

    // The previous candidate's code goes before the next one loads.
    module_ = codegen::CompiledModule();
    KernelFunction kernel = nullptr;
    try {
      module_ = codegen::load_object(request.blobs[0], {{name, static_cast<int>(buffers_.size())}});
      kernel = module_.kernel(name).function();
    } catch (const std::exception& e) {
      return error_reply("compile", e.what());
    }

    // A warm-up run, whose outputs are the ones returned, on outputs filled
    // with all-ones bytes (NaN as floats, -1 as integers): an element the
    // kernel never writes cannot pass for a computed zero.
    poison_outputs();
    kernel(pointers_.data());
    Reply reply{{{"type", "result"}}, {}};
    if (return_outputs) append_outputs(reply);

    std::vector<double> costs_ms;
    std::vector<int> runs;
    for (int r = 0; r < repeat; ++r) {
      const double batch_ms = timed_batch(kernel, number, min_repeat_ms);
      costs_ms.push_back(batch_ms / number);
      runs.push_back(number);
    }
    reply.header["costs_ms"] = costs_ms;
    reply.header["runs"] = runs;
    return reply;
  }

  // A cuda candidate: no cache flush (a GPU kernel reads its weights from
  // device memory through an L2 that a model's other kernels share).
  Reply measure_cuda(const std::vector<char>& object, int number, int repeat, double min_repeat_ms,
                     bool return_outputs) {
    CudaMeasurement m;
    try {
      m = cuda_.measure(object, number, repeat, min_repeat_ms, return_outputs);
    } catch (const std::exception& e) {
      // Before the run (no driver, the JIT's refusal): the worker lives on.
      if (!cuda_.loaded()) return error_reply("compile", e.what());
      // A launch error or fault leaves the CUDA context unusable: the
      // worker answers, says it ends, and ends; the tuner starts another.
      poisoned_ = true;
      Reply reply = error_reply("runtime", e.what());
      reply.header["ends"] = true;
      return reply;
    }
    Reply reply{{{"type", "result"}, {"costs_ms", m.costs_ms}, {"runs", m.runs}}, {}};
    reply.blobs = std::move(m.outputs);
    return reply;
  }

  // A cuda kernel on the GPU simulator: one run for its outputs, on poisoned
  // outputs. The `repeat` costs are copies of that run's time, which says
  // nothing of a GPU's. A kernel that could not run on a GPU (a barrier some
  // threads miss) is a runtime error, and the worker lives on.
  Reply simulate(const std::vector<char>& bytes, const std::string& name, int repeat,
                 bool return_outputs) {
    std::unique_ptr<codegen::SimulatedGpuModule> gpu;
    try {
      gpu = std::make_unique<codegen::SimulatedGpuModule>(decode_simulated_kernel_object(bytes));
      if (!gpu->has_kernel(name)) return error_reply("compile", "no kernel '" + name + "'");
    } catch (const std::exception& e) {
      return error_reply("compile", e.what());
    }
    poison_outputs();
    const auto start = std::chrono::steady_clock::now();
    gpu->run(name, pointers_.data(), pointers_.size());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    Reply reply{{{"type", "result"},
                 {"costs_ms", std::vector<double>(size_t(repeat), ms)},
                 {"runs", std::vector<int>(size_t(repeat), 1)}},
                {}};
    if (return_outputs) append_outputs(reply);
    return reply;
  }

  // All-ones bytes (NaN as floats, -1 as integers) in the outputs before a
  // run whose outputs are returned: an element the kernel never writes
  // cannot pass for a computed zero.
  void poison_outputs() {
    for (size_t i = num_inputs_; i < buffers_.size(); ++i)
      std::memset(buffers_[i].data(), 0xff, buffers_[i].nbytes());
  }

  void append_outputs(Reply& reply) const {
    for (size_t i = num_inputs_; i < buffers_.size(); ++i) {
      const char* bytes = buffers_[i].data_as<char>();
      reply.blobs.emplace_back(bytes, bytes + buffers_[i].nbytes());
    }
  }

  struct Batch {
    double kernel_ms = 0;  // the runs alone: the cost
    double wall_ms = 0;    // the runs and the flushes between them
  };

  // `number` back-to-back runs; with the cache flush, `number` runs each after
  // a flush, the flushes not in kernel_ms.
  Batch time_batch(KernelFunction kernel, int number) {
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) {
      return std::chrono::duration<double, std::milli>(d).count();
    };
    const auto batch_start = Clock::now();
    if (!flush_cache_) {
      for (int i = 0; i < number; ++i) kernel(pointers_.data());
      const double elapsed = ms(Clock::now() - batch_start);
      return {elapsed, elapsed};
    }
    Batch batch;
    for (int i = 0; i < number; ++i) {
      flush_non_first_buffers(buffers_);
      // Flushing megabytes outlasts the pool's spinning; between a model's
      // kernels the workers never sleep.
      runtime::global_thread_pool()->wake_workers();
      const auto start = Clock::now();
      kernel(pointers_.data());
      batch.kernel_ms += ms(Clock::now() - start);
    }
    batch.wall_ms = ms(Clock::now() - batch_start);
    return batch;
  }

  // Milliseconds of one batch that lasts at least min_repeat_ms, as TVM's
  // time_evaluator times each repeat: a batch that ends sooner is run again
  // with as many runs as its rate says are enough (and at least 1.618 times as
  // many). `number` keeps its growth for the repeats after.
  //
  // With the cache flush the batch is measured by its wall time, flushes
  // included. Each run is then timed on its own, so a long batch no longer
  // hides the timer's resolution; counting only the kernel's time would turn
  // a 0.1 us kernel's 10 ms into 100 000 flushes, seconds a repeat.
  double timed_batch(KernelFunction kernel, int& number, double min_repeat_ms) {
    auto length = [this](const Batch& b) { return flush_cache_ ? b.wall_ms : b.kernel_ms; };
    Batch batch = time_batch(kernel, number);
    while (length(batch) < min_repeat_ms && number < kMaxNumber) {
      const double per_run = length(batch) / number;
      const double enough = per_run > 0 ? min_repeat_ms / per_run + 1 : 2.0 * number;
      number = static_cast<int>(std::min<double>(kMaxNumber, std::max(enough, number * 1.618)));
      batch = time_batch(kernel, number);
    }
    return batch.kernel_ms;
  }

  std::vector<runtime::NDArray> buffers_;  // 64-byte aligned, as the kernels assume
  std::vector<void*> pointers_;            // the kernel's argument array
  int num_inputs_ = 0;
  codegen::CompiledModule module_;
  bool flush_cache_ = false;
  CudaMeasurer cuda_;
  bool poisoned_ = false;
};

bool protocol_fds_open() {
  return fcntl(protocol::kRequestFd, F_GETFD) != -1 && fcntl(protocol::kReplyFd, F_GETFD) != -1;
}

}  // namespace

int main(int argc, char** /*argv*/) {
  if (argc > 1 || !protocol_fds_open()) {
    std::fprintf(stderr,
                 "lathe-measure-worker runs tuning candidates for the tuner, which starts it\n"
                 "with requests on descriptor %d and replies on descriptor %d.\n",
                 protocol::kRequestFd, protocol::kReplyFd);
    return 2;
  }
  // Candidates that crash are expected here: no core file for each.
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);

  try {
    protocol::write_frame(protocol::kReplyFd, {{"type", "ready"}, {"protocol", protocol::kVersion}},
                          {}, protocol::kNoDeadline);
    Worker worker;
    for (;;) {
      protocol::Frame request;
      try {
        request = protocol::read_frame(protocol::kRequestFd, protocol::kNoDeadline);
      } catch (const protocol::ChannelError& e) {
        if (e.kind() == protocol::ChannelError::Kind::Closed) return 0;  // the tuner is done
        throw;
      }
      Reply reply = worker.handle(request);
      std::vector<std::span<const char>> blobs(reply.blobs.begin(), reply.blobs.end());
      protocol::write_frame(protocol::kReplyFd, std::move(reply.header), blobs,
                            protocol::kNoDeadline);
      if (worker.poisoned()) return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lathe-measure-worker: %s\n", e.what());
    return 3;
  }
}
