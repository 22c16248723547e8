// The GPU simulator (gpu_simulator.h): the kernels compiled for the host by
// CodeGenGpuSimulation, and the scheduler that runs a block's threads as
// fibers (fiber.h) which switch only where the device's threads wait for
// each other.
#include "codegen/gpu_simulator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "codegen/codegen_gpu_simulation.h"
#include "codegen/fiber.h"
#include "codegen/gpu_simulator_abi.h"
#include "codegen/llvm_codegen.h"
#include "runtime/backend_api.h"

namespace lathe::codegen {

namespace {

using SimulatedKernel = void (*)(void** buffers, LatheGpuThread* thread);

struct KernelCode {
  SimulatedKernelInfo info;
  SimulatedKernel function = nullptr;
};

constexpr int kWarpSize = 32;
// A kernel's frame holds its local arrays (register tiles, a scalar kernel's
// scratch of up to 1 KiB): far below this.
constexpr size_t kFiberStackBytes = 128 * 1024;

// The stacks of a block's fibers, each above a guard page so that an
// overflow faults instead of writing over its neighbour.
class FiberStacks {
 public:
  FiberStacks() = default;
  FiberStacks(const FiberStacks&) = delete;
  FiberStacks& operator=(const FiberStacks&) = delete;
  ~FiberStacks() { release(); }

  void reserve(size_t count) {
    if (count <= count_) return;
    release();
    const size_t bytes = count * stride();
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) fail(str("GPU simulator: cannot map stacks for ", count, " threads"));
    base_ = static_cast<char*>(base);
    count_ = count;
    for (size_t i = 0; i < count; ++i)
      if (mprotect(base_ + i * stride(), page(), PROT_NONE) != 0)
        fail("GPU simulator: cannot protect a fiber stack's guard page");
  }
  void* stack(size_t i) const { return base_ + i * stride() + page(); }

 private:
  static size_t page() { return size_t(sysconf(_SC_PAGESIZE)); }
  static size_t stride() { return kFiberStackBytes + page(); }
  void release() {
    if (base_) munmap(base_, count_ * stride());
    base_ = nullptr;
    count_ = 0;
  }
  char* base_ = nullptr;
  size_t count_ = 0;
};

enum class Waiting : uint8_t { Ready, Barrier, Shuffle, Done };

struct ShuffleCall {
  int32_t value = 0, result = 0;
  uint32_t lane_mask = 0, offset = 0;
};

// Runs blocks on one host thread: one per host thread (thread_local), so
// that blocks run on several at once, each with its own shared memory.
class BlockScheduler {
 public:
  static BlockScheduler& of_this_thread() {
    thread_local BlockScheduler scheduler;
    return scheduler;
  }
  static BlockScheduler& running() { return *running_scheduler_; }

  void run_block(const std::string& name, const KernelCode& kernel, void** buffers, int64_t block) {
    const GpuLaunch& l = kernel.info.launch;
    const int64_t threads = l.threads_per_block();
    const int32_t block_index[3] = {int32_t(block % l.grid[0]),
                                    int32_t(block / l.grid[0] % l.grid[1]),
                                    int32_t(block / (l.grid[0] * l.grid[1]))};
    // Shared memory is uninitialised on a GPU: 0xff bytes (a NaN in every
    // float) make a block that reads what it never wrote visibly wrong,
    // rather than right by the previous block's data.
    const size_t shared_bytes = size_t(kernel.info.shared_buffer_bytes);
    if (shared_.size() < shared_bytes) shared_.resize(shared_bytes);
    std::memset(shared_.data(), 0xff, shared_bytes);
    threads_.resize(size_t(threads));
    for (int64_t t = 0; t < threads; ++t) {
      LatheGpuThread& thread = threads_[size_t(t)];
      thread.index[0] = int32_t(t % l.block[0]);
      thread.index[1] = int32_t(t / l.block[0] % l.block[1]);
      thread.index[2] = int32_t(t / (l.block[0] * l.block[1]));
      for (int d = 0; d < 3; ++d) thread.index[3 + d] = block_index[d];
      thread.shared = shared_.data();
    }
    if (!kernel.info.synchronizes) {
      // Nothing crosses threads: one after another, no fibers.
      for (LatheGpuThread& thread : threads_) kernel.function(buffers, &thread);
      return;
    }
    run_fibers(name, kernel, buffers, threads, block_index);
  }

  void wait(LatheGpuThread* thread, Waiting why) {
    const size_t t = size_t(thread - threads_.data());
    waiting_[t] = why;
    detail::fiber_switch(fibers_[t], scheduler_);
  }
  ShuffleCall& shuffle_of(LatheGpuThread* thread) {
    return shuffles_[size_t(thread - threads_.data())];
  }

 private:
  BlockScheduler() = default;

  static void fiber_main(void* thread) {
    BlockScheduler& s = running();
    auto* me = static_cast<LatheGpuThread*>(thread);
    s.kernel_(s.buffers_, me);
    s.wait(me, Waiting::Done);  // never resumed
  }

  void run_fibers(const std::string& name, const KernelCode& kernel, void** buffers,
                  int64_t threads, const int32_t block_index[3]) {
    stacks_.reserve(size_t(threads));
    fibers_.resize(size_t(threads));
    waiting_.assign(size_t(threads), Waiting::Ready);
    shuffles_.assign(size_t(threads), ShuffleCall{});
    kernel_ = kernel.function;
    buffers_ = buffers;
    BlockScheduler* outer = running_scheduler_;
    running_scheduler_ = this;
    struct Restore {
      BlockScheduler*& slot;
      BlockScheduler* value;
      ~Restore() { slot = value; }
    } restore{running_scheduler_, outer};
    for (size_t t = 0; t < size_t(threads); ++t)
      detail::fiber_prepare(fibers_[t], stacks_.stack(t), kFiberStackBytes,
                            &BlockScheduler::fiber_main, &threads_[t]);
    for (;;) {
      // Every ready thread runs until it waits or ends.
      for (size_t t = 0; t < size_t(threads); ++t)
        if (waiting_[t] == Waiting::Ready) detail::fiber_switch(scheduler_, fibers_[t]);
      if (release_shuffles(name, threads, block_index)) continue;
      int64_t done = 0, at_barrier = 0;
      for (Waiting w : waiting_) {
        done += w == Waiting::Done;
        at_barrier += w == Waiting::Barrier;
      }
      if (done == threads) return;
      if (at_barrier == threads) {
        waiting_.assign(size_t(threads), Waiting::Ready);
        continue;
      }
      throw GpuSimulationError(stuck_message(name, threads, block_index));
    }
  }

  // Completes the shuffles of every warp whose lanes have all arrived;
  // false when none could be.
  bool release_shuffles(const std::string& name, int64_t threads, const int32_t block_index[3]) {
    bool released = false;
    for (int64_t first = 0; first < threads; first += kWarpSize) {
      const int64_t lanes = std::min<int64_t>(kWarpSize, threads - first);
      int64_t caller = -1;
      for (int64_t lane = 0; lane < lanes && caller < 0; ++lane)
        if (waiting_[size_t(first + lane)] == Waiting::Shuffle) caller = lane;
      if (caller < 0) continue;
      const ShuffleCall& call = shuffles_[size_t(first + caller)];
      bool complete = true;
      for (int64_t lane = 0; lane < kWarpSize; ++lane) {
        if (!(call.lane_mask >> lane & 1u)) continue;
        if (lane >= lanes)
          throw GpuSimulationError(str(where(name, block_index), ": a warp shuffle's lane mask 0x",
                                       hex(call.lane_mask), " names lane ", lane, " of warp ",
                                       first / kWarpSize, ", which the block's ", threads,
                                       " threads do not have"));
        const size_t t = size_t(first + lane);
        if (waiting_[t] != Waiting::Shuffle) {
          complete = false;
          continue;
        }
        const ShuffleCall& other = shuffles_[t];
        if (other.lane_mask != call.lane_mask || other.offset != call.offset)
          throw GpuSimulationError(str(where(name, block_index), ": lanes ", caller, " and ", lane,
                                       " of warp ", first / kWarpSize,
                                       " shuffle with different masks or offsets"));
        if (!(call.lane_mask >> (uint32_t(lane) ^ call.offset) & 1u))
          throw GpuSimulationError(str(where(name, block_index), ": lane ", lane, " of warp ",
                                       first / kWarpSize, " shuffles with lane ",
                                       uint32_t(lane) ^ call.offset, ", outside the lane mask 0x",
                                       hex(call.lane_mask)));
      }
      if (!complete) continue;
      for (int64_t lane = 0; lane < lanes; ++lane) {
        if (!(call.lane_mask >> lane & 1u)) continue;
        ShuffleCall& mine = shuffles_[size_t(first + lane)];
        mine.result = shuffles_[size_t(first + (uint32_t(lane) ^ call.offset))].value;
      }
      for (int64_t lane = 0; lane < lanes; ++lane)
        if (call.lane_mask >> lane & 1u) waiting_[size_t(first + lane)] = Waiting::Ready;
      released = true;
    }
    return released;
  }

  std::string thread_name(size_t t) const {
    const LatheGpuThread& thread = threads_[t];
    return str("(", thread.index[0], ", ", thread.index[1], ", ", thread.index[2], ")");
  }

  // Which threads wait where, when no thread can go on.
  std::string stuck_message(const std::string& name, int64_t threads,
                            const int32_t block_index[3]) const {
    std::map<Waiting, std::vector<size_t>> by_state;
    for (size_t t = 0; t < size_t(threads); ++t) by_state[waiting_[t]].push_back(t);
    auto list = [&](Waiting w, const char* what) -> std::string {
      const auto it = by_state.find(w);
      if (it == by_state.end()) return {};
      std::string text = str(it->second.size(), " ", what, " (threadIdx ");
      for (size_t i = 0; i < it->second.size() && i < 4; ++i)
        text += (i ? ", " : "") + thread_name(it->second[i]);
      return text + (it->second.size() > 4 ? ", ...)" : ")");
    };
    std::string message = where(name, block_index) +
                          ": its threads cannot go on, as on a GPU they would hang or read "
                          "undefined values:";
    for (const auto& [state, what] : {std::pair{Waiting::Barrier, "wait at a barrier"},
                                      std::pair{Waiting::Shuffle, "wait at a warp shuffle"},
                                      std::pair{Waiting::Done, "have finished"}})
      if (std::string part = list(state, what); !part.empty()) message += " " + part + ";";
    message.back() = '.';
    return message;
  }

  static std::string where(const std::string& name, const int32_t block_index[3]) {
    return str("kernel '", name, "', block (", block_index[0], ", ", block_index[1], ", ",
               block_index[2], ")");
  }
  static std::string hex(uint32_t v) {
    std::ostringstream os;
    os << std::hex << v;
    return os.str();
  }

  static thread_local BlockScheduler* running_scheduler_;

  // The kernels take their shared arrays as 16-byte aligned (vector loads).
  static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16);
  std::vector<unsigned char> shared_;
  std::vector<LatheGpuThread> threads_;
  std::vector<detail::FiberContext> fibers_;
  std::vector<Waiting> waiting_;
  std::vector<ShuffleCall> shuffles_;
  FiberStacks stacks_;
  detail::FiberContext scheduler_;
  SimulatedKernel kernel_ = nullptr;
  void** buffers_ = nullptr;
};

thread_local BlockScheduler* BlockScheduler::running_scheduler_ = nullptr;

// The kernels built for the host by the simulation's code generator.
detail::BuiltModule build_simulated(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                    std::vector<SimulatedKernelInfo>& kernels) {
  if (!target.is_gpu()) fail(str("GPU simulator: target '", target.to_string(), "' is not a GPU"));
  const Target host = Target::host();
  return detail::build_module(
      funcs, host,
      [&](llvm::Module& module) {
        return std::make_unique<detail::CodeGenGpuSimulation>(module, target, host, kernels);
      },
      /*optimize=*/true);
}

std::vector<std::string> names_of(const std::vector<SimulatedKernelInfo>& kernels) {
  std::vector<std::string> names;
  for (const SimulatedKernelInfo& k : kernels) names.push_back(k.name);
  return names;
}

}  // namespace

struct SimulatedGpuModule::Impl {
  Impl(const std::vector<SimulatedKernelInfo>& infos, detail::LinkedFunctions linked)
      : code(std::move(linked.owner)) {
    for (size_t i = 0; i < infos.size(); ++i)
      kernels[infos[i].name] = {infos[i], reinterpret_cast<SimulatedKernel>(linked.addresses[i])};
  }
  std::map<std::string, KernelCode> kernels;
  std::shared_ptr<JitModule> code;
};

SimulatedGpuObject emit_simulated_gpu_object(const std::vector<tir::PrimFunc>& funcs,
                                             const Target& target) {
  SimulatedGpuObject result;
  detail::BuiltModule built = build_simulated(funcs, target, result.kernels);
  result.object = detail::emit_file(built, llvm::CodeGenFileType::ObjectFile);
  return result;
}

SimulatedGpuModule::SimulatedGpuModule(const std::vector<tir::PrimFunc>& funcs,
                                       const Target& target) {
  std::vector<SimulatedKernelInfo> kernels;
  detail::BuiltModule built = build_simulated(funcs, target, kernels);
  impl_ = std::make_shared<Impl>(kernels, detail::jit_link(std::move(built), names_of(kernels)));
}

SimulatedGpuModule::SimulatedGpuModule(const SimulatedGpuObject& object)
    : impl_(std::make_shared<Impl>(
          object.kernels, detail::jit_link_object(object.object, names_of(object.kernels)))) {}

bool SimulatedGpuModule::has_kernel(const std::string& name) const {
  return impl_->kernels.count(name) > 0;
}

const GpuLaunch& SimulatedGpuModule::launch(const std::string& name) const {
  const auto it = impl_->kernels.find(name);
  if (it == impl_->kernels.end()) fail(str("GPU simulator: no kernel '", name, "'"));
  return it->second.info.launch;
}

namespace {

struct GridRun {
  const std::string* name;
  const KernelCode* kernel;
  void** buffers;
  std::mutex mutex;
  std::exception_ptr error;
};

void run_blocks(int64_t begin, int64_t end, void* closure) {
  auto& run = *static_cast<GridRun*>(closure);
  try {
    BlockScheduler& scheduler = BlockScheduler::of_this_thread();
    for (int64_t b = begin; b < end; ++b)
      scheduler.run_block(*run.name, *run.kernel, run.buffers, b);
  } catch (...) {
    std::lock_guard lock(run.mutex);
    if (!run.error) run.error = std::current_exception();
  }
}

}  // namespace

void SimulatedGpuModule::run(const std::string& name, void* const* buffers, size_t count) const {
  const auto it = impl_->kernels.find(name);
  if (it == impl_->kernels.end()) fail(str("GPU simulator: no kernel '", name, "'"));
  const KernelCode& kernel = it->second;
  if (count != kernel.info.num_params)
    fail(str("GPU simulator: kernel '", name, "' takes ", kernel.info.num_params, " buffers, got ",
             count));
  const GpuLaunch& l = kernel.info.launch;
  GridRun run{&name, &kernel, const_cast<void**>(buffers), {}, {}};
  lathe_parallel_for(&run_blocks, &run, l.grid[0] * l.grid[1] * l.grid[2]);
  if (run.error) std::rethrow_exception(run.error);
}

}  // namespace lathe::codegen

extern "C" void lathe_gpusim_barrier(LatheGpuThread* thread) {
  lathe::codegen::BlockScheduler::running().wait(thread, lathe::codegen::Waiting::Barrier);
}

extern "C" int32_t lathe_gpusim_shuffle_xor(LatheGpuThread* thread, int32_t value,
                                            uint32_t lane_mask, uint32_t offset) {
  using lathe::codegen::BlockScheduler;
  BlockScheduler& scheduler = BlockScheduler::running();
  lathe::codegen::ShuffleCall& call = scheduler.shuffle_of(thread);
  call = {value, 0, lane_mask, offset};
  scheduler.wait(thread, lathe::codegen::Waiting::Shuffle);
  return call.result;
}
