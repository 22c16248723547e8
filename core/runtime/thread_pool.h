// The persistent thread pool behind parallel loops: workers wait between
// launches, the launching thread takes part, and chunks are contiguous ranges.
// Each thread owns one contiguous share of every loop (the launcher the
// first, worker i the (i+1)-th) and runs it in a few calls; a thread that is
// done takes the chunks its owner has not reached yet. So a thread keeps the
// same rows from kernel to kernel, and the caches that hold them, and claims
// its chunks on a cache line no other thread writes, while a late worker
// holds nothing up. Chunks claimed in turn from one shared counter made small
// kernels pay for cache lines moving between the cores.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/backend_api.h"

namespace lathe::runtime {

// A thread's share of a parallel loop is cut into up to this many chunks: the
// unit in which the other threads take over the share of one that is late.
inline constexpr int64_t kChunksPerThread = 8;

// Every Lathe tensor and scratch buffer starts on this boundary.
constexpr int64_t kTensorAlignment = 64;

class ThreadPool {
 public:
  // num_threads counts the launching thread: 1 means no workers at all.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Runs body over [0, n) in at most num_threads() contiguous chunks and
  // returns when all are done. Launches from several threads take turns; a
  // launch from inside a chunk runs serially on the calling thread.
  void parallel_for(LatheParallelBody body, void* closure, int64_t n);

  // Returns once every worker is awake and spinning, as after a launch: the
  // state the next kernel of a model finds. A measurement that flushed the
  // caches first (long enough for the workers to fall asleep) calls this, so
  // that it times the kernel and not a futex wake-up.
  void wake_workers();

  // Whether the calling thread is running a chunk of some parallel loop.
  static bool in_parallel_region();

 private:
  struct Job;
  struct Share;
  void worker_loop(int index);
  static void run_chunks(Job& job, int index);

  const int num_threads_;
  std::vector<std::thread> workers_;

  std::mutex launch_mutex_;  // one launch at a time
  // The unclaimed chunks of each thread's share of the current launch.
  std::unique_ptr<Share[]> shares_;

  std::mutex mutex_;  // guards job_, stop_, Job::users
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::atomic<uint64_t> generation_{0};  // bumped by each launch; workers spin on it briefly
  Job* job_ = nullptr;
  bool stop_ = false;
};

// LATHE_NUM_THREADS when it holds a positive integer, else every core.
int default_num_threads();

// The pool lathe_parallel_for uses, created on first use.
std::shared_ptr<ThreadPool> global_thread_pool();

// Before a library with external kernels loads (a plugin, a package's
// mod.so that links one): makes the OpenMP runtime it may bring (oneDNN's
// libgomp) wait passively, unless OMP_WAIT_POLICY says otherwise. OpenMP's
// default spins between its parallel regions against this pool's workers;
// on 2 cores ResNet-18 with oneDNN ran 129 ms (median) spinning, 32 ms
// passive. libgomp reads the variable once, when it loads.
void prefer_passive_openmp();
// Replaces the global pool by one of num_threads threads (0: default_num_threads(),
// which re-reads LATHE_NUM_THREADS). Launches already running finish on the old pool.
void reset_global_thread_pool(int num_threads = 0);

}  // namespace lathe::runtime
