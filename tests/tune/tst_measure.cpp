// Measuring candidates in lathe-measure-worker: the costs and outputs of a
// good kernel, `number` and min_repeat_ms, and a crash, a hang and an object
// that does not load each costing one result, with the next measurement
// succeeding in a fresh worker (or in the same one, which a load error spares).
#include <unistd.h>

#include <QtTest>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "codegen/codegen.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "te/tensor.h"
#include "tir/lower.h"
#include "tune/measure.h"
#include "tune/measure_protocol.h"

using namespace lathe;
using tune::ErrorKind;
using tune::MeasureOptions;
using tune::MeasureRequest;
using tune::MeasureResult;
using tune::MeasureWorker;

namespace {

constexpr int64_t kSize = 1024;
const te::DataType kFloat32 = te::DataType::Float(32);

// C = A + B over kSize floats: a compute, its default schedule, lowered.
MeasureRequest vector_add(bool return_outputs = false) {
  te::Tensor a = te::placeholder({kSize}, kFloat32, "A");
  te::Tensor b = te::placeholder({kSize}, kFloat32, "B");
  te::Tensor c = te::compute(
      {kSize}, [&](const std::vector<te::Var>& i) { return a(i[0]) + b(i[0]); }, "C");
  schedule::Schedule sch({c.op()});
  tir::PrimFunc func = tir::lower(sch, {a, b, c}, "vadd").func;
  return {codegen::emit_object({func}, codegen::Target::host()), "vadd", return_outputs};
}

// A kernel with vector_add's parameters and the body `body(A, B, C)`.
template <typename Body>
MeasureRequest kernel_with_body(const std::string& name, Body body) {
  std::vector<tir::Buffer> params;
  for (const char* buffer : {"A", "B", "C"}) {
    tir::Buffer b;
    b.data = te::Var(buffer, te::DataType::Handle());
    b.name = buffer;
    b.dtype = kFloat32;
    b.shape = {kSize};
    params.push_back(b);
  }
  tir::PrimFunc func{name, params, body(params[0].data, params[1].data, params[2].data)};
  return {codegen::emit_object({func}, codegen::Target::host()), name, false};
}

// C[2^40] = 1: far past any mapping.
MeasureRequest crashing_kernel() {
  return kernel_with_body("crash", [](const te::Var&, const te::Var&, const te::Var& c) {
    return tir::make_store(c, te::Expr(1.0f), te::Expr(int64_t{1} << 40));
  });
}

// C[0] += 1, 2^50 times: a chain of float additions without -fast-math, which
// LLVM may neither reorder nor sum in closed form, so it runs for days.
MeasureRequest endless_kernel() {
  return kernel_with_body("endless", [](const te::Var&, const te::Var&, const te::Var& c) {
    te::Var i("i", te::DataType::Int(64));
    return tir::make_for(
        i, te::Expr(int64_t{0}), te::Expr(int64_t{1} << 50), tir::ForKind::Serial,
        tir::make_store(c, te::load(kFloat32, c, te::Expr(0)) + te::Expr(1.0f), te::Expr(0)));
  });
}

// A[0] += 1: counts its runs in an input, which stays in the worker between
// requests since set_buffers sends it once.
MeasureRequest counting_kernel() {
  return kernel_with_body("count", [](const te::Var& a, const te::Var&, const te::Var&) {
    return tir::make_store(a, te::load(kFloat32, a, te::Expr(0)) + te::Expr(1.0f), te::Expr(0));
  });
}

// C[0] = A[0].
MeasureRequest reporting_kernel() {
  return kernel_with_body("report", [](const te::Var& a, const te::Var&, const te::Var& c) {
    return tir::make_store(c, te::load(kFloat32, a, te::Expr(0)), te::Expr(0));
  });
}

tune::BufferData floats(const std::vector<float>& values) {
  tune::BufferData data{"float32", {static_cast<int64_t>(values.size())}, {}};
  data.bytes.resize(values.size() * sizeof(float));
  std::memcpy(data.bytes.data(), values.data(), data.bytes.size());
  return data;
}

std::vector<float> random_floats(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-10, 10);
  std::vector<float> v(kSize);
  for (float& x : v) x = dist(rng);
  return v;
}

std::string error_of(const MeasureResult& r) {
  return tune::to_string(r.error) + ": " + r.message;
}

}  // namespace

class TestMeasure : public QObject {
  Q_OBJECT

 private:
  std::vector<float> a_ = random_floats(1);
  std::vector<float> b_ = random_floats(2);

  void give_buffers(MeasureWorker& worker) {
    worker.set_buffers({floats(a_), floats(b_), {"float32", {kSize}, {}}}, 2);
  }

  // A measurement of vector_add that must succeed and return C = A + B.
  void check_vector_add(MeasureWorker& worker) {
    const MeasureResult r = worker.measure(vector_add(true), MeasureOptions{});
    QVERIFY2(r.error == ErrorKind::None, error_of(r).c_str());
    QCOMPARE(r.costs_ms.size(), size_t{3});
    QCOMPARE(r.outputs.size(), size_t{1});
    QCOMPARE(r.outputs[0].size(), kSize * sizeof(float));
    const auto* c = reinterpret_cast<const float*>(r.outputs[0].data());
    for (int64_t i = 0; i < kSize; ++i) QCOMPARE(c[i], a_[i] + b_[i]);
  }

 private slots:
  void vectorAddReportsCostsAndOutputs() {
    MeasureWorker worker;
    give_buffers(worker);
    MeasureOptions options;
    options.repeat = 4;
    const MeasureResult r = worker.measure(vector_add(true), options);
    QVERIFY2(r.error == ErrorKind::None, error_of(r).c_str());
    QVERIFY(r.message.empty());
    QCOMPARE(r.costs_ms.size(), size_t{4});
    double total_ms = 0;
    for (double cost : r.costs_ms) {
      QVERIFY(cost > 0);
      total_ms += cost;
    }
    QVERIFY(r.wall_ms >= total_ms);
    QCOMPARE(r.outputs.size(), size_t{1});
    const auto* c = reinterpret_cast<const float*>(r.outputs[0].data());
    for (int64_t i = 0; i < kSize; ++i) QCOMPARE(c[i], a_[i] + b_[i]);

    // The same worker serves the next candidate; outputs only when asked.
    const MeasureResult again = worker.measure(vector_add(false), options);
    QVERIFY2(again.error == ErrorKind::None, error_of(again).c_str());
    QVERIFY(again.outputs.empty());
    QCOMPARE(worker.restarts(), 1);
  }

  // Outputs the kernel never writes come back as NaN, not as zeros a
  // reference output could share: `report` writes C[0] only.
  void unwrittenOutputsComeBackAsNaN() {
    MeasureWorker worker;
    give_buffers(worker);
    MeasureRequest request = reporting_kernel();
    request.return_outputs = true;
    const MeasureResult r = worker.measure(request, MeasureOptions{});
    QVERIFY2(r.error == ErrorKind::None, error_of(r).c_str());
    const auto* c = reinterpret_cast<const float*>(r.outputs.at(0).data());
    QCOMPARE(c[0], a_[0]);
    for (int64_t i = 1; i < kSize; ++i) QVERIFY(std::isnan(c[i]));
  }

  void numberAndMinRepeatMsAreHonoured() {
    MeasureWorker worker;
    give_buffers(worker);
    // Each cost is a batch of `number` runs divided by `number`: the batches
    // together cannot have lasted longer than the whole request.
    MeasureOptions many;
    many.number = 2000;
    many.repeat = 2;
    const MeasureResult r = worker.measure(vector_add(), many);
    QVERIFY2(r.error == ErrorKind::None, error_of(r).c_str());
    QCOMPARE(r.costs_ms.size(), size_t{2});
    QVERIFY(r.costs_ms[0] > 0 && r.costs_ms[1] > 0);
    QVERIFY((r.costs_ms[0] + r.costs_ms[1]) * many.number <= r.wall_ms);

    // Every counted batch lasts at least min_repeat_ms (`number` grows until it does).
    MeasureOptions long_batches;
    long_batches.min_repeat_ms = 40;
    long_batches.repeat = 2;
    const MeasureResult slow = worker.measure(vector_add(), long_batches);
    QVERIFY2(slow.error == ErrorKind::None, error_of(slow).c_str());
    QCOMPARE(slow.costs_ms.size(), size_t{2});
    QVERIFY(slow.wall_ms >= long_batches.repeat * long_batches.min_repeat_ms);
    QVERIFY(slow.costs_ms[0] > 0 && slow.costs_ms[1] > 0);

    // One warm-up run, then `repeat` batches of `number` runs each.
    MeasureOptions counted;
    counted.number = 7;
    counted.repeat = 3;
    const MeasureResult count = worker.measure(counting_kernel(), counted);
    QVERIFY2(count.error == ErrorKind::None, error_of(count).c_str());
    MeasureRequest report = reporting_kernel();
    report.return_outputs = true;
    const MeasureResult reported = worker.measure(report, MeasureOptions{});
    QVERIFY2(reported.error == ErrorKind::None, error_of(reported).c_str());
    float expected = a_[0];
    for (int run = 0; run < 1 + counted.number * counted.repeat; ++run) expected += 1.0f;
    QCOMPARE(reinterpret_cast<const float*>(reported.outputs[0].data())[0], expected);

    MeasureOptions flushed;
    flushed.flush_cache = true;
    const MeasureResult cold = worker.measure(vector_add(), flushed);
    QVERIFY2(cold.error == ErrorKind::None, error_of(cold).c_str());
    QCOMPARE(cold.costs_ms.size(), size_t{3});
    QCOMPARE(cold.runs, std::vector<int>(3, 1));

    // Flushed, a batch lasts min_repeat_ms in wall time, the flushes counted:
    // a kernel of a few nanoseconds, each run after a clflush and a fence, is
    // timed far fewer times than its own time would ask for.
    MeasureOptions flushed_batches;
    flushed_batches.flush_cache = true;
    flushed_batches.min_repeat_ms = 20;
    const MeasureResult bounded = worker.measure(counting_kernel(), flushed_batches);
    QVERIFY2(bounded.error == ErrorKind::None, error_of(bounded).c_str());
    QVERIFY(bounded.runs.back() > 1);
    for (size_t r = 0; r < bounded.costs_ms.size(); ++r)
      QVERIFY2(
          bounded.costs_ms[r] * bounded.runs[r] < flushed_batches.min_repeat_ms,
          qPrintable(
              QStringLiteral("%1 runs of %2 ms").arg(bounded.runs[r]).arg(bounded.costs_ms[r])));
    QVERIFY(bounded.wall_ms >= flushed_batches.repeat * flushed_batches.min_repeat_ms);
    QCOMPARE(worker.restarts(), 1);
  }

  void crashIsARuntimeErrorAndTheNextCandidateRuns() {
    MeasureWorker worker;
    give_buffers(worker);
    const MeasureResult r = worker.measure(crashing_kernel(), MeasureOptions{});
    QCOMPARE(r.error, ErrorKind::Runtime);
    QVERIFY2(r.message.find("signal 11 (SIGSEGV") != std::string::npos, r.message.c_str());
    QVERIFY(r.costs_ms.empty());
    QCOMPARE(worker.restarts(), 1);
    // A fresh worker, given the buffers again.
    check_vector_add(worker);
    QCOMPARE(worker.restarts(), 2);
  }

  void hangTimesOutAndTheNextCandidateRuns() {
    MeasureWorker worker;
    give_buffers(worker);
    MeasureOptions options;
    options.timeout_s = 1;
    const MeasureResult r = worker.measure(endless_kernel(), options);
    QCOMPARE(r.error, ErrorKind::Timeout);
    QCOMPARE(r.message, std::string("no result after 1 s"));
    QVERIFY(r.wall_ms >= 1000);
    check_vector_add(worker);
    QCOMPARE(worker.restarts(), 2);
  }

  void objectThatDoesNotLoadIsACompileError() {
    MeasureWorker worker;
    give_buffers(worker);
    const MeasureResult r =
        worker.measure({std::vector<char>(4096, 'x'), "vadd", true}, MeasureOptions{});
    QCOMPARE(r.error, ErrorKind::Compile);
    QVERIFY(!r.message.empty());
    QVERIFY(r.costs_ms.empty() && r.outputs.empty());
    // A good object that lacks the kernel asked for.
    MeasureRequest misnamed = vector_add();
    misnamed.func_name = "no_such_kernel";
    const MeasureResult missing = worker.measure(misnamed, MeasureOptions{});
    QCOMPARE(missing.error, ErrorKind::Compile);
    QVERIFY2(missing.message.find("no_such_kernel") != std::string::npos, missing.message.c_str());
    // The worker survives a load error.
    check_vector_add(worker);
    QCOMPARE(worker.restarts(), 1);
  }

  void buffersThatDoNotFillTheirShapeAreRefused() {
    MeasureWorker worker;
    tune::BufferData short_input = floats(a_);
    short_input.bytes.resize(100);
    QVERIFY_THROWS_EXCEPTION(Error, worker.set_buffers({short_input, floats(b_)}, 1));
    QVERIFY_THROWS_EXCEPTION(Error, worker.set_buffers({{"float3x", {4}, {}}}, 0));
    QVERIFY_THROWS_EXCEPTION(Error, worker.set_buffers({floats(a_)}, 2));
  }

  void workerMustBeFoundAndMustStart() {
    const char* saved = std::getenv("LATHE_MEASURE_WORKER");
    const std::string saved_value = saved ? saved : "";
    const std::string missing = "/nonexistent/lathe-measure-worker";
    setenv("LATHE_MEASURE_WORKER", missing.c_str(), 1);
    QString message;
    try {
      tune::find_measure_worker();
    } catch (const Error& e) {
      message = e.what();
    }
    if (saved)
      setenv("LATHE_MEASURE_WORKER", saved_value.c_str(), 1);
    else
      unsetenv("LATHE_MEASURE_WORKER");
    QVERIFY2(message.contains(QString::fromStdString(missing)), qPrintable(message));
    QVERIFY(!tune::find_measure_worker().empty());

    // A program that is no worker ends before saying it is ready.
    MeasureWorker impostor("/bin/true");
    QVERIFY_THROWS_EXCEPTION(Error, impostor.measure(vector_add(), MeasureOptions{}));
  }

  void workerThatDiesWhileTakingBuffersLeavesTheTunerStanding() {
    // A fake worker that says it is ready and exits without reading: the
    // tuner's write of 4 MiB of inputs fills the pipe and then meets a closed
    // reader, which must be an error, not a SIGPIPE that ends this process.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string hello = R"({"blobs":[],"protocol":)" +
                              std::to_string(tune::protocol::kVersion) + R"(,"type":"ready"})";
    std::string length_escapes;
    for (int byte = 0; byte < 4; ++byte)
      length_escapes +=
          QString::asprintf("\\%03o", static_cast<unsigned>(hello.size() >> (8 * byte)) & 0xffu)
              .toStdString();
    const QString path = dir.filePath("quitter");
    QFile script(path);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(("#!/bin/sh\nprintf '" + length_escapes + hello + "' >&4\n").c_str());
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);

    MeasureWorker quitter(path.toStdString());
    quitter.set_buffers({floats(std::vector<float>(1 << 20, 1.0f)), {"float32", {1}, {}}}, 1);
    QString message;
    try {
      quitter.measure(vector_add(), MeasureOptions{});
    } catch (const Error& e) {
      message = e.what();
    }
    QVERIFY2(message.contains("did not start: it exited with status 0"), qPrintable(message));
  }

  void blobLargerThanTheStreamCostsNoMemory() {
    // A header claiming a 512 GiB blob followed by ten bytes and the end of
    // the stream: the reader must see the pipe close, not allocate the claim.
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const std::string header = R"({"type":"result","blobs":[549755813888]})";
    const auto length = static_cast<uint32_t>(header.size());
    QVERIFY(::write(fds[1], &length, sizeof length) == sizeof length);
    QVERIFY(::write(fds[1], header.data(), header.size()) == static_cast<ssize_t>(header.size()));
    QVERIFY(::write(fds[1], "0123456789", 10) == 10);
    ::close(fds[1]);
    bool closed = false;
    try {
      tune::protocol::read_frame(fds[0], tune::protocol::Clock::now() + std::chrono::seconds(10));
    } catch (const tune::protocol::ChannelError& e) {
      closed = e.kind() == tune::protocol::ChannelError::Kind::Closed;
    }
    ::close(fds[0]);
    QVERIFY(closed);
  }

  void errorKindsRoundTripThroughText() {
    for (ErrorKind kind : {ErrorKind::None, ErrorKind::Instantiation, ErrorKind::Compile,
                           ErrorKind::Runtime, ErrorKind::Timeout, ErrorKind::WrongAnswer})
      QCOMPARE(tune::error_kind_from_string(tune::to_string(kind)), kind);
    QCOMPARE(tune::to_string(ErrorKind::WrongAnswer), std::string("wrong_answer"));
    QVERIFY_THROWS_EXCEPTION(Error, tune::error_kind_from_string("segfault"));
  }
};

QTEST_GUILESS_MAIN(TestMeasure)
#include "tst_measure.moc"
