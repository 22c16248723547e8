// The persistent thread pool and the global instance generated code launches
// on. Workers spin briefly after each launch because kernels usually come back
// to back, then sleep so that an idle pool costs nothing.
#include "runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace lathe::runtime {

namespace {

// About 10-50 microseconds of polling: long enough to catch the next launch of
// a kernel sequence, short enough not to steal cores from other processes.
constexpr int kSpinIterations = 4000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

thread_local bool tls_in_parallel_region = false;

struct Range {
  int64_t begin, end;
};

// Part `i` of [0, n) cut into `parts` contiguous parts, the first n % parts
// one longer: written without n * i so that no extent can overflow.
Range part_of(int64_t n, int64_t parts, int64_t i) {
  const int64_t q = n / parts, r = n % parts;
  const int64_t begin = i * q + std::min(i, r);
  return {begin, begin + q + (i < r ? 1 : 0)};
}

int64_t chunks_of(Range share) {
  return std::min(share.end - share.begin, kChunksPerThread);
}

}  // namespace

// The unclaimed chunks [front, back) of one thread's share, packed in one
// word (front in the high half), on a cache line of its own. The owner claims
// half of what is left at a time (its share in a few calls, the last ones
// small enough to even out the end); another thread takes one chunk at a time
// from the back, so that a late or slow owner still finds the rows it would
// reach first.
struct alignas(64) ThreadPool::Share {
  std::atomic<uint64_t> unclaimed{0};

  // The chunks [first, last) that the owner (half of those left, rounded up)
  // or another thread (the last one) claims; empty when none are left.
  std::pair<int64_t, int64_t> claim(bool owner) {
    uint64_t seen = unclaimed.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t front = seen >> 32, back = seen & 0xffffffffu;
      if (front >= back) return {0, 0};
      if (owner) {
        const uint64_t last = front + (back - front + 1) / 2;
        if (unclaimed.compare_exchange_weak(seen, (last << 32) | back, std::memory_order_relaxed))
          return {static_cast<int64_t>(front), static_cast<int64_t>(last)};
      } else if (unclaimed.compare_exchange_weak(seen, (front << 32) | (back - 1),
                                                 std::memory_order_relaxed)) {
        return {static_cast<int64_t>(back - 1), static_cast<int64_t>(back)};
      }
    }
  }
};

struct ThreadPool::Job {
  LatheParallelBody body;
  void* closure;
  int64_t n;
  int threads;
  Share* shares;
  // Workers that picked up this job and may still touch it; the launcher
  // waits for zero before the job (on its stack) goes away.
  std::atomic<int> users{0};
};

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(std::max(1, num_threads)),
      shares_(std::make_unique<Share[]>(static_cast<size_t>(num_threads_))) {
  workers_.reserve(num_threads_ - 1);
  for (int i = 1; i < num_threads_; ++i) {
    workers_.emplace_back([this, i] { worker_loop(i); });
    pthread_setname_np(workers_.back().native_handle(), "lathe-worker");
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ThreadPool::in_parallel_region() {
  return tls_in_parallel_region;
}

void ThreadPool::run_chunks(Job& job, int index) {
  const bool was_parallel = tls_in_parallel_region;
  tls_in_parallel_region = true;
  // The thread's own share, then what is left of the others' in turn.
  for (int k = 0; k < job.threads; ++k) {
    const int owner = (index + k) % job.threads;
    const Range share = part_of(job.n, job.threads, owner);
    const int64_t length = share.end - share.begin, chunks = chunks_of(share);
    for (;;) {
      const auto [first, last] = job.shares[owner].claim(k == 0);
      if (first >= last) break;
      job.body(share.begin + part_of(length, chunks, first).begin,
               share.begin + part_of(length, chunks, last - 1).end, job.closure);
    }
  }
  tls_in_parallel_region = was_parallel;
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    for (int i = 0; i < kSpinIterations && generation_.load(std::memory_order_acquire) == seen; ++i)
      cpu_relax();
    Job* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock,
                 [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      job = job_;
      if (!job) continue;  // that launch already finished without us
      job->users.fetch_add(1, std::memory_order_relaxed);
    }
    run_chunks(*job, index);
    if (job->users.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The job may be gone from here on; only the pool's own members are touched.
      std::lock_guard lock(mutex_);
      finished_.notify_all();
    }
  }
}

void ThreadPool::parallel_for(LatheParallelBody body, void* closure, int64_t n) {
  if (n <= 0) return;
  if (num_threads_ == 1 || n == 1 || tls_in_parallel_region) {
    body(0, n, closure);
    return;
  }
  std::lock_guard launch(launch_mutex_);
  Job job;
  job.body = body;
  job.closure = closure;
  job.n = n;
  // Shares of several chunks, which the others take over: a worker that wakes
  // late (a futex wake-up on a busy host can take milliseconds) finds its
  // share done or started instead of holding up the launch.
  job.threads = num_threads_;
  job.shares = shares_.get();
  for (int t = 0; t < num_threads_; ++t)
    shares_[t].unclaimed.store(static_cast<uint64_t>(chunks_of(part_of(n, num_threads_, t))),
                               std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  run_chunks(job, 0);
  // Every chunk is claimed now; no worker may pick the job up any more, and
  // those that did are waited for.
  {
    std::lock_guard lock(mutex_);
    job_ = nullptr;
  }
  for (int i = 0; i < kSpinIterations && job.users.load(std::memory_order_acquire) > 0; ++i)
    cpu_relax();
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return job.users.load(std::memory_order_acquire) == 0; });
}

void ThreadPool::wake_workers() {
  if (num_threads_ == 1 || tls_in_parallel_region) return;
  // One chunk a thread, each waiting for all the others: no thread can take a
  // second chunk, so every worker has run one when the launch returns.
  struct Barrier {
    std::atomic<int> arrived{0};
    int expected;
  } barrier{.expected = num_threads_};
  parallel_for(
      [](int64_t, int64_t, void* closure) {
        auto* b = static_cast<Barrier*>(closure);
        b->arrived.fetch_add(1, std::memory_order_acq_rel);
        while (b->arrived.load(std::memory_order_acquire) < b->expected) cpu_relax();
      },
      &barrier, num_threads_);
}

int default_num_threads() {
  if (const char* env = std::getenv("LATHE_NUM_THREADS"); env && *env) {
    char* end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end == '\0' && value > 0 && value <= 4096) return static_cast<int>(value);
    std::fprintf(stderr, "lathe: ignoring LATHE_NUM_THREADS='%s': not a positive thread count\n",
                 env);
  }
  unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

namespace {

std::mutex g_pool_mutex;
std::shared_ptr<ThreadPool> g_pool;

// A forked child (a measurement worker) has none of the parent's worker
// threads: it drops the inherited pool without joining and makes a new one on
// first use. The pool object is leaked on purpose; its threads do not exist.
void register_fork_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork([] { g_pool_mutex.lock(); }, [] { g_pool_mutex.unlock(); },
                   [] {
                     new std::shared_ptr<ThreadPool>(std::move(g_pool));
                     g_pool_mutex.unlock();
                   });
  });
}

}  // namespace

std::shared_ptr<ThreadPool> global_thread_pool() {
  std::lock_guard lock(g_pool_mutex);
  if (!g_pool) {
    register_fork_handlers_once();
    g_pool = std::make_shared<ThreadPool>(default_num_threads());
  }
  return g_pool;
}

void reset_global_thread_pool(int num_threads) {
  auto fresh = std::make_shared<ThreadPool>(num_threads > 0 ? num_threads : default_num_threads());
  std::shared_ptr<ThreadPool> old;
  {
    std::lock_guard lock(g_pool_mutex);
    register_fork_handlers_once();
    old = std::exchange(g_pool, std::move(fresh));
  }
  // `old` joins its workers here, outside the lock, once no launch holds it.
}

void prefer_passive_openmp() {
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
}

}  // namespace lathe::runtime
