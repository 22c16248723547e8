// The kernel runtime on its own (no LLVM): the thread pool covers every
// iteration once in contiguous chunks, nested launches run serially, the
// thread count follows LATHE_NUM_THREADS, and scratch memory is aligned.
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "runtime/backend_api.h"
#include "runtime/thread_pool.h"

using namespace lathe::runtime;

namespace {

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> chunks{0};
  std::atomic<bool> bad_order{false};
  explicit Coverage(int64_t n) : hits(static_cast<size_t>(n)) {}
};

void count_hits(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<Coverage*>(closure);
  c->chunks.fetch_add(1);
  if (begin >= end) c->bad_order = true;
  for (int64_t i = begin; i < end; ++i) c->hits[static_cast<size_t>(i)].fetch_add(1);
}

// Every call waits inside until `threads` calls have begun: no thread can
// finish early and take over another's share.
struct Meeting {
  int threads;
  std::atomic<int> arrived{0};
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> calls;
};

void meet(int64_t begin, int64_t end, void* closure) {
  auto* m = static_cast<Meeting*>(closure);
  {
    std::lock_guard lock(m->mutex);
    m->calls.emplace_back(begin, end);
  }
  m->arrived.fetch_add(1);
  while (m->arrived.load() < m->threads) std::this_thread::yield();
}

struct Nested {
  std::atomic<int> inner_calls{0};
  std::atomic<bool> inner_split{false};
  std::atomic<bool> region_flag_missing{false};
};

void inner_body(int64_t begin, int64_t end, void* closure) {
  auto* n = static_cast<Nested*>(closure);
  n->inner_calls.fetch_add(1);
  if (begin != 0 || end != 10) n->inner_split = true;
}

// Inside a chunk, waking the pool that runs it must return at once.
void wake_from_inside(int64_t begin, int64_t end, void* closure) {
  for (int64_t i = begin; i < end; ++i) global_thread_pool()->wake_workers();
  static_cast<std::atomic<int>*>(closure)->fetch_add(static_cast<int>(end - begin));
}

void outer_body(int64_t begin, int64_t end, void* closure) {
  auto* n = static_cast<Nested*>(closure);
  if (!ThreadPool::in_parallel_region()) n->region_flag_missing = true;
  for (int64_t i = begin; i < end; ++i) lathe_parallel_for(inner_body, closure, 10);
}

}  // namespace

class TestRuntime : public QObject {
  Q_OBJECT

 private slots:
  void everyIterationRunsOnce_data() {
    QTest::addColumn<int>("threads");
    QTest::addColumn<qint64>("n");
    for (int threads : {1, 2, 3, 8})
      for (qint64 n : {0, 1, 2, 7, 1000, 100003})
        QTest::addRow("%d threads, n=%lld", threads, static_cast<long long>(n)) << threads << n;
  }
  void everyIterationRunsOnce() {
    QFETCH(int, threads);
    QFETCH(qint64, n);
    ThreadPool pool(threads);
    QCOMPARE(pool.num_threads(), threads);
    for (int repeat = 0; repeat < 20; ++repeat) {
      Coverage c(n);
      pool.parallel_for(count_hits, &c, n);
      for (int64_t i = 0; i < n; ++i) QCOMPARE(c.hits[static_cast<size_t>(i)].load(), 1);
      QVERIFY(!c.bad_order);
      QVERIFY(c.chunks.load() <=
              std::max<int64_t>(1, std::min<int64_t>(n, threads * kChunksPerThread)));
    }
    QVERIFY(!ThreadPool::in_parallel_region());
  }

  // With every thread taking part, each runs its own contiguous share (the
  // launcher the first), so that a thread keeps its rows from launch to
  // launch: its first call is the first half of its share.
  void eachThreadRunsItsShareInOneCall() {
    for (int threads : {2, 3, 4}) {
      ThreadPool pool(threads);
      for (int repeat = 0; repeat < 5; ++repeat) {
        Meeting m;
        m.threads = threads;
        pool.parallel_for(meet, &m, 1001);
        // The first `threads` calls are each thread's first: none returns
        // before all have begun.
        QVERIFY(static_cast<int>(m.calls.size()) >= threads);
        m.calls.resize(static_cast<size_t>(threads));
        std::sort(m.calls.begin(), m.calls.end());
        int64_t begin = 0;
        for (int t = 0; t < threads; ++t) {
          const int64_t length = 1001 / threads + (t < 1001 % threads ? 1 : 0);
          // Half of its chunks, the first length % c of which are one longer.
          const int64_t c = kChunksPerThread;
          const int64_t half = c / 2 * (length / c) + std::min(c / 2, length % c);
          QCOMPARE(m.calls[static_cast<size_t>(t)], std::make_pair(begin, begin + half));
          begin += length;
        }
      }
    }
  }

  // Launches that find the workers asleep: the launcher takes over chunks of
  // the shares of workers that have not woken yet, and every iteration still
  // runs once.
  void lateWorkersShareIsTakenOver() {
    ThreadPool pool(2);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // workers asleep
    for (int repeat = 0; repeat < 20; ++repeat) {
      Coverage c(4096);
      pool.parallel_for(count_hits, &c, 4096);
      for (auto& h : c.hits) QCOMPARE(h.load(), 1);
    }
  }

  // The measurement worker wakes the pool after each cache flush; every
  // worker takes one chunk of a barrier, so a pool whose workers fell asleep
  // must come back from it, and launch as before afterwards.
  void wakeWorkersReturnsAndLaunchesGoOn() {
    for (int threads : {1, 2, 3, 8}) {
      ThreadPool pool(threads);
      for (int repeat = 0; repeat < 5; ++repeat) {
        std::this_thread::sleep_for(std::chrono::milliseconds(repeat));  // spinning ends
        pool.wake_workers();
        Coverage c(1000);
        pool.parallel_for(count_hits, &c, 1000);
        for (auto& h : c.hits) QCOMPARE(h.load(), 1);
      }
    }
    reset_global_thread_pool(4);
    std::atomic<int> woken{0};
    lathe_parallel_for(wake_from_inside, &woken, 64);
    QCOMPARE(woken.load(), 64);
  }

  void nestedLaunchesRunSerially() {
    reset_global_thread_pool(4);
    Nested n;
    lathe_parallel_for(outer_body, &n, 16);
    QCOMPARE(n.inner_calls.load(), 16);
    QVERIFY(!n.inner_split);
    QVERIFY(!n.region_flag_missing);
  }

  void launchesFromSeveralThreadsTakeTurns() {
    reset_global_thread_pool(3);
    std::vector<std::thread> callers;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t)
      callers.emplace_back([&] {
        for (int repeat = 0; repeat < 50; ++repeat) {
          Coverage c(257);
          lathe_parallel_for(count_hits, &c, 257);
          for (auto& h : c.hits)
            if (h.load() != 1) failures.fetch_add(1);
        }
      });
    for (auto& t : callers) t.join();
    QCOMPARE(failures.load(), 0);
  }

  void threadCountFollowsTheEnvironment() {
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    qputenv("LATHE_NUM_THREADS", "3");
    QCOMPARE(default_num_threads(), 3);
    reset_global_thread_pool();
    QCOMPARE(global_thread_pool()->num_threads(), 3);
    qputenv("LATHE_NUM_THREADS", "lots");
    QCOMPARE(default_num_threads(), cores);
    qputenv("LATHE_NUM_THREADS", "0");
    QCOMPARE(default_num_threads(), cores);
    qunsetenv("LATHE_NUM_THREADS");
    QCOMPARE(default_num_threads(), cores);
    reset_global_thread_pool();
    QCOMPARE(global_thread_pool()->num_threads(), cores);
  }

  void forkedChildGetsAFreshPool() {
    reset_global_thread_pool(4);
    Coverage warm(100);
    lathe_parallel_for(count_hits, &warm, 100);  // workers exist now
    pid_t child = fork();
    if (child == 0) {
      Coverage c(1000);
      lathe_parallel_for(count_hits, &c, 1000);
      for (auto& h : c.hits)
        if (h.load() != 1) _exit(1);
      _exit(global_thread_pool()->num_threads() == default_num_threads() ? 0 : 2);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
  }

  void scratchIsAligned() {
    for (int64_t bytes : {0, 1, 63, 64, 100, 1 << 20}) {
      void* p = lathe_alloc(bytes);
      QVERIFY(p != nullptr);
      QCOMPARE(reinterpret_cast<uintptr_t>(p) % kTensorAlignment, uintptr_t(0));
      if (bytes > 0) static_cast<char*>(p)[bytes - 1] = 1;
      lathe_free(p);
    }
  }
};

QTEST_GUILESS_MAIN(TestRuntime)
#include "tst_runtime.moc"
