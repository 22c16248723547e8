// The GPU simulator in the measure worker (tune/simulated_kernel_object.h):
// a cuda kernel built for the host runs there once and its outputs come
// back; a kernel a GPU could not run is a runtime error the worker survives;
// a kernel that writes far out of bounds ends the worker, not the caller,
// and the next simulation runs in a fresh one.
#include <QtTest>

#include <cstring>

#include "../codegen/gpu_test_kernels.h"
#include "codegen/gpu_simulator.h"
#include "tir/transform/inject_storage_sync.h"
#include "tune/measure.h"
#include "tune/simulated_kernel_object.h"

using namespace lathe;
using codegen::Target;
using testing::kH100;
using tune::ErrorKind;
using tune::MeasureOptions;
using tune::MeasureResult;
using tune::MeasureWorker;

namespace {

constexpr int64_t kRows = 64, kCols = 1000;
const te::DataType f32 = te::DataType::Float(32);

// The row sum with each row's columns over 256 threads of a block: warp
// shuffles, then the warps' partial sums through shared memory.
tir::PrimFunc row_sum() {
  return testing::lower_text(testing::row_sum_env(kRows, kCols), testing::cross_thread_row_sum(256),
                             {"A", "R"}, "row_sum");
}

// A kernel with the row sum's parameters, one block of `threads` threads on
// x running `body(tx, R)`.
tir::PrimFunc kernel_with_body(
    const std::string& name, int64_t threads,
    const std::function<tir::Stmt(const te::Var&, const te::Var&)>& body) {
  const te::Var tx("tx");
  const te::Var a("A", te::DataType::Handle()), r("R", te::DataType::Handle());
  tir::PrimFunc f;
  f.name = name;
  f.params = {tir::Buffer{a, "A", f32, {kRows, kCols}}, tir::Buffer{r, "R", f32, {kRows}}};
  f.body = tir::make_for(tx, te::make_int(0), te::make_int(threads), tir::ForKind::ThreadBinding,
                         body(tx, r), "threadIdx.x");
  f.target = kH100;
  return f;
}

tune::MeasureRequest simulated(const tir::PrimFunc& f) {
  return {tune::encode_simulated_kernel_object(
              codegen::emit_simulated_gpu_object({f}, Target::parse(kH100))),
          f.name, true};
}

std::vector<float> row_major_values() {
  std::vector<float> v(size_t(kRows * kCols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float((i * 7) % 13) * 0.25f - 1.5f;
  return v;
}

std::string error_of(const MeasureResult& r) {
  return tune::to_string(r.error) + ": " + r.message;
}

MeasureOptions once() {
  MeasureOptions options;
  options.repeat = 1;
  options.timeout_s = 60;
  return options;
}

}  // namespace

class TestSimulatedMeasure : public QObject {
  Q_OBJECT

 private:
  std::vector<float> a_ = row_major_values();

  void give_buffers(MeasureWorker& worker) {
    tune::BufferData input{"float32", {kRows, kCols}, {}};
    input.bytes.resize(a_.size() * sizeof(float));
    std::memcpy(input.bytes.data(), a_.data(), input.bytes.size());
    worker.set_buffers({input, {"float32", {kRows}, {}}}, 1);
  }

  // The row sum simulated in `worker`: every row's sum, exactly (quarters).
  void check_row_sum(MeasureWorker& worker) {
    const MeasureResult r = worker.measure(simulated(row_sum()), once());
    QVERIFY2(r.error == ErrorKind::None, error_of(r).c_str());
    QCOMPARE(r.outputs.size(), size_t{1});
    QCOMPARE(r.outputs[0].size(), kRows * sizeof(float));
    const auto* sums = reinterpret_cast<const float*>(r.outputs[0].data());
    for (int64_t i = 0; i < kRows; ++i) {
      double expected = 0;
      for (int64_t k = 0; k < kCols; ++k) expected += a_[size_t(i * kCols + k)];
      QCOMPARE(double(sums[i]), expected);
    }
  }

 private slots:
  void objectKeepsEachKernelsLaunch() {
    const codegen::SimulatedGpuObject object =
        codegen::emit_simulated_gpu_object({row_sum()}, Target::parse(kH100));
    const codegen::SimulatedGpuObject back =
        tune::decode_simulated_kernel_object(tune::encode_simulated_kernel_object(object));
    QCOMPARE(back.object, object.object);
    QCOMPARE(back.kernels.size(), size_t{1});
    const codegen::SimulatedKernelInfo& k = back.kernels[0];
    QCOMPARE(k.name, std::string("row_sum"));
    QCOMPARE(k.launch.grid, (std::array<int64_t, 3>{kRows, 1, 1}));
    QCOMPARE(k.launch.block, (std::array<int64_t, 3>{256, 1, 1}));
    QVERIFY(k.synchronizes);
    QCOMPARE(k.shared_buffer_bytes, object.kernels[0].shared_buffer_bytes);
    QCOMPARE(k.launch.shared_bytes, object.kernels[0].launch.shared_bytes);
    QCOMPARE(k.num_params, size_t{2});
    QVERIFY(!tune::is_simulated_kernel_object(std::vector<char>(64, 'x')));
  }

  void kernelRunsInTheWorker() {
    MeasureWorker worker;
    give_buffers(worker);
    check_row_sum(worker);
    QCOMPARE(worker.restarts(), 1);
  }

  void barrierHalfTheBlockSkipsIsARuntimeErrorTheWorkerSurvives() {
    // for tx in threadIdx.x (64): if tx < 32: barrier; R[tx] = 1
    const tir::PrimFunc diverges =
        kernel_with_body("diverges", 64, [](const te::Var& tx, const te::Var& r) {
          return tir::make_seq({tir::make_if(te::Expr(tx) < te::make_int(32),
                                             tir::make_attr(tir::kStorageSyncAttr, te::make_int(0),
                                                            tir::make_evaluate(te::make_int(0)))),
                                tir::make_store(r, te::make_const(f32, 1.0), tx)});
        });
    MeasureWorker worker;
    give_buffers(worker);
    const MeasureResult r = worker.measure(simulated(diverges), once());
    QCOMPARE(r.error, ErrorKind::Runtime);
    QVERIFY2(r.message.find("kernel 'diverges'") != std::string::npos &&
                 r.message.find("32 wait at a barrier") != std::string::npos,
             r.message.c_str());
    check_row_sum(worker);
    QCOMPARE(worker.restarts(), 1);
  }

  void kernelWritingOutOfBoundsEndsOnlyTheWorker() {
    // R[2^40] = 1: far past any mapping.
    const tir::PrimFunc wild = kernel_with_body("wild", 32, [](const te::Var&, const te::Var& r) {
      return tir::make_store(r, te::make_const(f32, 1.0), te::Expr(int64_t{1} << 40));
    });
    MeasureWorker worker;
    give_buffers(worker);
    const MeasureResult r = worker.measure(simulated(wild), once());
    QCOMPARE(r.error, ErrorKind::Runtime);
    QVERIFY2(r.message.find("signal 11 (SIGSEGV") != std::string::npos, r.message.c_str());
    check_row_sum(worker);
    QCOMPARE(worker.restarts(), 2);
  }

  void malformedObjectIsACompileError() {
    const std::string magic = "LATHE-SIMULATED-CUDA-KERNEL 1\n{\"kernels\": 3}\nELF";
    MeasureWorker worker;
    give_buffers(worker);
    const MeasureResult r =
        worker.measure({std::vector<char>(magic.begin(), magic.end()), "row_sum", true}, once());
    QCOMPARE(r.error, ErrorKind::Compile);
    QVERIFY2(r.message.find("simulated cuda kernel object") != std::string::npos,
             r.message.c_str());
    check_row_sum(worker);
    QCOMPARE(worker.restarts(), 1);
  }
};

QTEST_GUILESS_MAIN(TestSimulatedMeasure)
#include "tst_simulated_measure.moc"
