// views::JobTracker, the studio's one "latest request wins" background job,
// on jobs the test holds at gates: the newest result wins whatever order jobs
// end in, superseded and dropped outcomes never arrive, streamed events arrive
// in order, stop() still delivers, a serial tracker runs one job at a time,
// busy follows the newest request, and nothing arrives once the context is gone.
#include <QSemaphore>
#include <QSignalSpy>
#include <QThreadPool>
#include <QtTest>
#include <atomic>
#include <memory>
#include <vector>

#include "views/job_tracker.h"

using lathe::views::JobTracker;

namespace {

constexpr int kTimeoutMs = 10000;

// A job waits at its gate until the test opens it.
class Gate {
 public:
  void open() const { semaphore_->release(); }
  void pass() const { semaphore_->acquire(); }
  // Lets every job through, however many wait (the cleanup after a failure).
  void openForGood() const { semaphore_->release(1 << 20); }

 private:
  std::shared_ptr<QSemaphore> semaphore_ = std::make_shared<QSemaphore>();
};

// A job that passes `gate` and returns `value`.
auto heldJob(Gate gate, int value) {
  return [gate, value] {
    gate.pass();
    return value;
  };
}

}  // namespace

class TestJobTracker : public QObject {
  Q_OBJECT

 private:
  Gate gate() {
    gates_.emplace_back();
    return gates_.back();
  }

  std::vector<Gate> gates_;

 private slots:
  void initTestCase() {
    // Jobs block at their gates; the pool must hold them all at once.
    QThreadPool::globalInstance()->setMaxThreadCount(8);
  }

  void cleanup() {
    for (const Gate& g : gates_) g.openForGood();
    gates_.clear();
    QVERIFY(QThreadPool::globalInstance()->waitForDone(kTimeoutMs));
  }

  void newestResultWinsWhenJobsEndOutOfOrder() {
    QObject context;
    JobTracker tracker(&context);
    std::vector<int> results;
    int dropped = 0;
    const Gate older = gate(), newer = gate();
    tracker.start(
        heldJob(older, 1), [&](int r) { results.push_back(r); }, [&] { ++dropped; });
    tracker.start(
        heldJob(newer, 2), [&](int r) { results.push_back(r); }, [&] { ++dropped; });
    newer.open();
    QTRY_COMPARE_WITH_TIMEOUT(results, std::vector<int>{2}, kTimeoutMs);
    older.open();
    QTRY_COMPARE_WITH_TIMEOUT(dropped, 1, kTimeoutMs);
    QCOMPARE(results, std::vector<int>{2});
  }

  void supersededResultIsDropped() {
    QObject context;
    JobTracker tracker(&context);
    std::vector<int> results;
    int dropped = 0;
    auto olderSawStop = std::make_shared<std::atomic<bool>>(false);
    const Gate older = gate(), newer = gate();
    tracker.start(
        [older, olderSawStop](const std::atomic<bool>& stop) {
          older.pass();
          olderSawStop->store(stop.load());
          return 1;
        },
        [&](int r) { results.push_back(r); }, [&] { ++dropped; });
    tracker.start(
        heldJob(newer, 2), [&](int r) { results.push_back(r); }, [&] { ++dropped; });
    older.open();
    QTRY_COMPARE_WITH_TIMEOUT(dropped, 1, kTimeoutMs);
    QVERIFY2(olderSawStop->load(), "the superseded job was asked to stop");
    QVERIFY(results.empty());
    QVERIFY(tracker.isBusy());
    newer.open();
    QTRY_COMPARE_WITH_TIMEOUT(results, std::vector<int>{2}, kTimeoutMs);
    QCOMPARE(dropped, 1);
  }

  void streamedEventsArriveInOrder() {
    QObject context;
    JobTracker tracker(&context);
    constexpr int kEvents = 2000;
    std::vector<int> events;
    std::vector<bool> finishes;
    tracker.startStreaming<int>(
        [](QPromise<int>& promise) {
          for (int i = 0; i < kEvents; ++i) promise.addResult(i);
        },
        [&](int e) { events.push_back(e); }, [&](bool stopped) { finishes.push_back(stopped); });
    QTRY_COMPARE_WITH_TIMEOUT(finishes, std::vector<bool>{false}, kTimeoutMs);
    QCOMPARE(static_cast<int>(events.size()), kEvents);
    for (int i = 0; i < kEvents; ++i) QCOMPARE(events[static_cast<size_t>(i)], i);
  }

  void dropDiscardsTheOutcome() {
    QObject context;
    JobTracker tracker(&context);
    int results = 0, dropped = 0, events = 0, finishes = 0;
    const Gate single = gate(), streamed = gate();
    tracker.start(
        heldJob(single, 1), [&](int) { ++results; }, [&] { ++dropped; });
    tracker.drop();
    QVERIFY(!tracker.isBusy());
    single.open();
    QTRY_COMPARE_WITH_TIMEOUT(dropped, 1, kTimeoutMs);

    tracker.startStreaming<int>(
        [streamed](QPromise<int>& promise) {
          streamed.pass();
          promise.addResult(1);
        },
        [&](int) { ++events; }, [&](bool) { ++finishes; });
    tracker.drop();
    streamed.open();
    QVERIFY(QThreadPool::globalInstance()->waitForDone(kTimeoutMs));
    QTest::qWait(50);  // the job's queued reports, were any left
    QCOMPARE(results, 0);
    QCOMPARE(events, 0);
    QCOMPARE(finishes, 0);
  }

  void stopStillDeliversTheOutcome() {
    QObject context;
    JobTracker tracker(&context);
    std::vector<bool> finishes;
    tracker.startStreaming<int>(
        [](QPromise<int>& promise) {
          while (!promise.isCanceled()) QThread::msleep(1);
        },
        [](int) {}, [&](bool stopped) { finishes.push_back(stopped); });
    QVERIFY(!tracker.isStopRequested());
    tracker.stop();
    QVERIFY(tracker.isStopRequested());
    QVERIFY(tracker.isBusy());
    QTRY_COMPARE_WITH_TIMEOUT(finishes, std::vector<bool>{true}, kTimeoutMs);
    QVERIFY(!tracker.isBusy());

    std::vector<int> results;
    tracker.start(
        [](const std::atomic<bool>& stop) {
          while (!stop.load()) QThread::msleep(1);
          return 7;
        },
        [&](int r) { results.push_back(r); });
    tracker.stop();
    QTRY_COMPARE_WITH_TIMEOUT(results, std::vector<int>{7}, kTimeoutMs);
  }

  void busyFollowsTheNewestRequest() {
    QObject context;
    JobTracker tracker(&context);
    QSignalSpy busy(&tracker, &JobTracker::busyChanged);
    bool busyWhenDelivered = true;
    const Gate older = gate(), newer = gate();
    QVERIFY(!tracker.isBusy());
    tracker.start(heldJob(older, 1), [](int) {});
    QVERIFY(tracker.isBusy());
    tracker.start(heldJob(newer, 2), [&](int) { busyWhenDelivered = tracker.isBusy(); });
    older.open();
    QTest::qWait(50);
    QVERIFY2(tracker.isBusy(), "the newest request is still running");
    newer.open();
    QTRY_VERIFY_WITH_TIMEOUT(!tracker.isBusy(), kTimeoutMs);
    QVERIFY2(!busyWhenDelivered, "busy ends before the outcome arrives");
    QCOMPARE(busy.count(), 2);
    QCOMPARE(busy.at(0).at(0).toBool(), true);
    QCOMPARE(busy.at(1).at(0).toBool(), false);
  }

  // A serial tracker runs one job at a time: the newest request waits for the
  // running one, and a request replaced while waiting never runs.
  void serialJobsRunOneAtATime() {
    QObject context;
    JobTracker tracker(&context, JobTracker::Overlap::Serial);
    QSignalSpy busy(&tracker, &JobTracker::busyChanged);
    auto running = std::make_shared<std::atomic<int>>(0);
    auto mostAtOnce = std::make_shared<std::atomic<int>>(0);
    auto runs = std::make_shared<std::atomic<int>>(0);
    auto job = [running, mostAtOnce, runs](Gate g, int value) {
      return [=](QPromise<int>& promise) {
        ++*runs;
        const int now = ++*running;
        if (now > mostAtOnce->load()) mostAtOnce->store(now);
        g.pass();
        QThread::msleep(20);
        promise.addResult(value);
        --*running;
      };
    };
    std::vector<int> events;
    std::vector<bool> finishes;
    const Gate first = gate(), second = gate(), third = gate();
    auto request = [&](Gate g, int value) {
      tracker.startStreaming<int>(
          job(g, value), [&](int e) { events.push_back(e); },
          [&](bool stopped) { finishes.push_back(stopped); });
    };
    request(first, 1);
    QTRY_COMPARE_WITH_TIMEOUT(runs->load(), 1, kTimeoutMs);  // the first holds its gate
    request(second, 2);
    request(third, 3);
    second.openForGood();
    third.open();
    QTest::qWait(50);
    QCOMPARE(runs->load(), 1);  // the third waits for the first
    first.open();
    QTRY_COMPARE_WITH_TIMEOUT(finishes, std::vector<bool>{false}, kTimeoutMs);
    QCOMPARE(events, std::vector<int>{3});
    QCOMPARE(runs->load(), 2);  // the second, replaced while waiting, never ran
    QCOMPARE(mostAtOnce->load(), 1);
    QCOMPARE(busy.count(), 2);  // busy from the first request to the third's end
  }

  // stop() on a request still waiting: it starts stopped, and its end arrives.
  void serialStopReachesTheWaitingRequest() {
    QObject context;
    JobTracker tracker(&context, JobTracker::Overlap::Serial);
    std::vector<int> events;
    std::vector<bool> finishes;
    const Gate first = gate();
    auto firstStarted = std::make_shared<std::atomic<bool>>(false);
    tracker.startStreaming<int>(
        [first, firstStarted](QPromise<int>& promise) {
          firstStarted->store(true);
          first.pass();
          promise.addResult(1);
        },
        [&](int e) { events.push_back(e); }, [&](bool stopped) { finishes.push_back(stopped); });
    QTRY_VERIFY_WITH_TIMEOUT(firstStarted->load(), kTimeoutMs);
    tracker.startStreaming<int>(
        [](QPromise<int>& promise) {
          if (!promise.isCanceled()) promise.addResult(2);
        },
        [&](int e) { events.push_back(e); }, [&](bool stopped) { finishes.push_back(stopped); });
    tracker.stop();
    first.open();
    QTRY_COMPARE_WITH_TIMEOUT(finishes, std::vector<bool>{true}, kTimeoutMs);
    QVERIFY(events.empty());
    QVERIFY(!tracker.isBusy());
  }

  void noCallbackAfterTheContextIsDestroyed() {
    auto* context = new QObject;
    auto* tracker = new JobTracker(context);
    int delivered = 0;
    auto sawStop = std::make_shared<std::atomic<bool>>(false);
    const Gate g = gate();
    tracker->start(
        [g, sawStop](const std::atomic<bool>& stop) {
          g.pass();
          sawStop->store(stop.load());
          return 1;
        },
        [&](int) { ++delivered; }, [&] { ++delivered; });
    delete context;
    g.open();
    QVERIFY(QThreadPool::globalInstance()->waitForDone(kTimeoutMs));
    QTest::qWait(50);  // the job's queued end, were it still connected
    QCOMPARE(delivered, 0);
    QVERIFY2(sawStop->load(), "the tracker asks its job to stop as it goes");
  }
};

QTEST_MAIN(TestJobTracker)
#include "tst_job_tracker.moc"
