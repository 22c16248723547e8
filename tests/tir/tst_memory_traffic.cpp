// The roofline model over the loop IR: buffer footprints of hand-written loop
// nests computed by hand, the traffic a cache of each size lets through, the
// FLOPs counted from the IR, and the bound of two plainly different kernels
// lowered from TOPI (a 64 MB elementwise add is DRAM-bound, a tiled
// 512x512x512 matmul compute-bound) on a fixed machine description.
#include <QtTest>

#include "hand_written_tir.h"
#include "schedule/schedule.h"
#include "support/roofline.h"
#include "tir/analysis/flop_count.h"
#include "tir/analysis/memory_traffic.h"
#include "tir/lower.h"
#include "topi/default_schedule.h"
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"

using namespace lathe;
using namespace lathe::tir;
using te::DataType;

namespace {

const DataType f32 = testing::kF32;
constexpr auto buffer = testing::f32_buffer;
constexpr auto load = testing::f32_load;

double footprint_of(const LoopFootprint& loop, const std::string& buffer) {
  for (const BufferFootprint& b : loop.buffers)
    if (b.buffer == buffer) return b.bytes;
  return -1;
}

// A machine like the 2-core EPYC these tests were written on: 64-byte FMA
// vectors, a 2 KB register file, 32 KB L1, 1 MB L2, 32 MB L3.
MemoryBandwidth machine() {
  MemoryBandwidth m;
  m.threads = 2;
  m.levels = {{"L1", 32 << 10, 1, 32 << 10, 400, 250},
              {"L2", 1 << 20, 1, 1 << 20, 150, 100},
              {"L3", 32 << 20, 2, 32 << 20, 80, 50},
              {"DRAM", 0, 1, 128 << 20, 20, 15}};
  return m;
}
const std::vector<int64_t> kCapacities = {2 << 10, 32 << 10, 1 << 20, 32 << 20};
constexpr double kPeakGflops = 300;

Roofline roofline_of(const PrimFunc& func) {
  return classify_roofline(count_flops(func), memory_traffic(func, kCapacities), kPeakGflops,
                           machine());
}

}  // namespace

class TestMemoryTraffic : public QObject {
  Q_OBJECT

 private slots:
  void footprintsOfARowBroadcast() {
    // for i in [0, 64): for j in [0, 128): C[i*128 + j] = A[i*128 + j] + B[j]
    Buffer a = buffer("A", 64 * 128), b = buffer("B", 128), c = buffer("C", 64 * 128);
    Var i("i"), j("j");
    Stmt body =
        make_for(i, 0, 64, ForKind::Serial,
                 make_for(j, 0, 128, ForKind::Serial,
                          make_store(c.data, load(a, i * 128 + j) + load(b, j), i * 128 + j)));
    PrimFunc f{"add_row", {a, b, c}, body};

    std::vector<LoopFootprint> loops = loop_footprints(f);
    QCOMPARE(loops.size(), size_t{2});
    // One iteration of i: a row of A and C and all of B, 128 floats each.
    QCOMPARE(loops[0].loop_var, std::string("i"));
    QCOMPARE(footprint_of(loops[0], "A"), 512.0);
    QCOMPARE(footprint_of(loops[0], "B"), 512.0);
    QCOMPARE(footprint_of(loops[0], "C"), 512.0);
    QCOMPARE(loops[0].working_set_bytes, 1536.0);
    // One iteration of j: one float of each.
    QCOMPARE(loops[1].depth, 1);
    QCOMPARE(loops[1].working_set_bytes, 12.0);

    // A cache holding everything (65 KB) reads A and B once; one that holds a
    // row (1536 B) but not the kernel re-uses B across rows; one that holds
    // less re-reads B per row.
    std::vector<LevelTraffic> t = memory_traffic(f, {1 << 20, 2048, 1000});
    QCOMPARE(t[0].read_bytes, 32768.0 + 512);
    QCOMPARE(t[0].write_bytes, 32768.0);
    QCOMPARE(t[1].read_bytes, 32768.0 + 512);
    QCOMPARE(t[2].read_bytes, 64 * (512.0 + 512));
    QCOMPARE(t[2].write_bytes, 32768.0);
    QCOMPARE(count_flops(f), 64.0 * 128);

    // Warm, the cache that holds the whole kernel has nothing left to fetch;
    // the smaller ones still re-read what their loops evict.
    t = memory_traffic(f, {1 << 20, 1000}, {.warm = true});
    QCOMPARE(t[0].bytes(), 0.0);
    QCOMPARE(t[1].read_bytes, 64 * (512.0 + 512));
  }

  void slidingWindowAndUnrolledTapsCountOverlapOnce() {
    // for i in [0, 100): for k in [0, 3): B[i] = B[i] + A[i + k]
    Buffer a = buffer("A", 102), b = buffer("B", 100);
    Var i("i"), k("k");
    Stmt window = make_for(
        i, 0, 100, ForKind::Serial,
        make_for(k, 0, 3, ForKind::Serial, make_store(b.data, load(b, i) + load(a, i + k), i)));
    PrimFunc f{"window", {a, b}, window};
    // The whole kernel reads 102 floats of A (the hull), not 300.
    std::vector<LevelTraffic> t = memory_traffic(f, {1 << 20});
    QCOMPARE(t[0].read_bytes, (102.0 + 100) * 4);
    QCOMPARE(t[0].write_bytes, 100.0 * 4);
    std::vector<LoopFootprint> loops = loop_footprints(f);
    QCOMPARE(footprint_of(loops[0], "A"), 12.0);
    QCOMPARE(footprint_of(loops[1], "A"), 4.0);

    // The same taps unrolled: B[i] = A[i] + A[i + 1] + A[i + 2].
    Stmt unrolled = make_for(i, 0, 100, ForKind::Serial,
                             make_store(b.data, load(a, i) + load(a, i + 1) + load(a, i + 2), i));
    PrimFunc g{"taps", {a, b}, unrolled};
    QCOMPARE(memory_traffic(g, {1 << 20})[0].read_bytes, 102.0 * 4);
    QCOMPARE(footprint_of(loop_footprints(g)[0], "A"), 12.0);
    QCOMPARE(count_flops(g), 200.0);
  }

  void bufferAllocatedInAFittingLoopStaysInTheCache() {
    // for i in [0, 64): allocate T[128]; for j: T[j] = A[i*128 + j] * 2;
    //                                    for j: C[i*128 + j] = T[j] + 1
    Buffer a = buffer("A", 64 * 128), c = buffer("C", 64 * 128);
    Var t("T", DataType::Handle()), i("i"), j("j"), k("k");
    Stmt produce =
        make_for(j, 0, 128, ForKind::Serial, make_store(t, load(a, i * 128 + j) * Expr(2.0), j));
    Stmt consume = make_for(k, 0, 128, ForKind::Serial,
                            make_store(c.data, te::load(f32, t, k) + Expr(1.0), i * 128 + k));
    Stmt body = make_for(i, 0, 64, ForKind::Serial,
                         make_allocate(t, f32, {128}, make_seq({produce, consume})));
    PrimFunc f{"staged", {a, c}, body};
    // One iteration of i (1.5 KB) fits 2 KB: T is written and read there and
    // never leaves; A is read and C written once.
    LevelTraffic fits = memory_traffic(f, {2048})[0];
    QCOMPARE(fits.read_bytes, 32768.0);
    QCOMPARE(fits.write_bytes, 32768.0);
    QCOMPARE(footprint_of(loop_footprints(f)[0], "T"), 512.0);
  }

  void vectorAccessesAndFmaCount() {
    // for i in [0, 16): C[ramp(i*16, 1, 16)] = fma(A[ramp(i*16, 1, 16)], x16, C[...])
    Buffer a = buffer("A", 256), c = buffer("C", 256);
    Var i("i");
    Expr index = te::ramp(i * 16, 1, 16);
    Expr value = te::fma(te::load(f32.with_lanes(16), a.data, index), te::broadcast(Expr(2.0), 16),
                         te::load(f32.with_lanes(16), c.data, index));
    PrimFunc f{
        "axpy", {a, c}, make_for(i, 0, 16, ForKind::Serial, make_store(c.data, value, index))};
    QCOMPARE(footprint_of(loop_footprints(f)[0], "A"), 64.0);
    LevelTraffic t = memory_traffic(f, {1 << 20})[0];
    QCOMPARE(t.read_bytes, 2048.0);
    QCOMPARE(t.write_bytes, 1024.0);
    QCOMPARE(count_flops(f), 2.0 * 256);
  }

  void largeElementwiseAddIsDramBound() {
    const int64_t n = 16 << 20;  // 64 MB per tensor
    te::Tensor a = te::placeholder({n}, f32, "A"), b = te::placeholder({n}, f32, "B");
    te::Tensor c = te::compute(
        {n}, [&](const std::vector<Var>& i) { return a(i[0]) + b(i[0]); }, "C");
    schedule::Schedule sch({c.op()});
    topi::apply_default_schedule(sch);
    PrimFunc f = lower(sch, {a, b, c}, "add", {.record_ir = false}).func;

    QCOMPARE(count_flops(f), static_cast<double>(n));
    std::vector<LevelTraffic> t = memory_traffic(f, kCapacities);
    QCOMPARE(t.back().read_bytes, 2.0 * 4 * n);  // each input once from DRAM
    QCOMPARE(t.back().write_bytes, 4.0 * n);
    Roofline r = roofline_of(f);
    QCOMPARE(r.bound, std::string("DRAM"));
    QVERIFY(r.roof_gflops < 0.01 * kPeakGflops);
  }

  void tiledMatmulIsComputeBound() {
    const int64_t n = 512;
    te::Tensor a = te::placeholder({n, n}, f32, "A"), b = te::placeholder({n, n}, f32, "B");
    te::Tensor c = topi::matmul(a, b);
    topi::SearchSpace space = topi::matmul_template(c, {c}, VectorUnit::avx512());
    schedule::Schedule sch({c.op()});
    space.apply(sch, space.default_config);
    PrimFunc f = lower(sch, {a, b, c}, "matmul", {.record_ir = false}).func;

    QCOMPARE(count_flops(f), 2.0 * n * n * n);
    std::vector<LevelTraffic> t = memory_traffic(f, kCapacities);
    // 3 MB in all fits the 32 MB L3: DRAM sees each matrix once.
    QCOMPARE(t.back().read_bytes, 2.0 * 4 * n * n);
    QCOMPARE(t.back().write_bytes, 4.0 * n * n);
    // Each level nearer the core serves at least what the one beyond it does.
    for (size_t l = 1; l < t.size(); ++l) QVERIFY(t[l - 1].bytes() >= t[l].bytes());
    Roofline r = roofline_of(f);
    QCOMPARE(r.bound, std::string("compute"));
    QCOMPARE(r.roof_gflops, kPeakGflops);
  }

  void big3x3ConvIsComputeBound() {
    // ResNet's 3x3 conv at 56x56, 64 -> 64 channels, on NCHW16c data.
    te::Tensor data = te::placeholder({1, 4, 56, 56, 16}, f32, "data");
    te::Tensor kernel = te::placeholder({4, 4, 3, 3, 16, 16}, f32, "kernel");
    topi::Conv2dParams p;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    te::Tensor conv = topi::conv2d_nchwc(data, kernel, p, "conv");
    topi::SearchSpace space = topi::conv2d_nchwc_template(conv, {conv}, VectorUnit::avx512());
    schedule::Schedule sch({conv.op()});
    space.apply(sch, space.default_config);
    PrimFunc f = lower(sch, {data, kernel, conv}, "conv", {.record_ir = false}).func;

    // 2 x 64 x 64 x 9 MACs per output pixel.
    QCOMPARE(count_flops(f), 2.0 * 56 * 56 * 64 * 64 * 9);
    Roofline r = roofline_of(f);
    QCOMPARE(r.bound, std::string("compute"));
    // Input, weights and output (0.95 MB) come from DRAM once.
    const double compulsory = 4.0 * (56 * 56 * 64 * 2 + 64 * 64 * 9);
    QVERIFY(r.levels.back().bytes >= compulsory);
    QVERIFY(r.levels.back().bytes < 1.1 * compulsory);
  }
};

QTEST_GUILESS_MAIN(TestMemoryTraffic)
#include "tst_memory_traffic.moc"
