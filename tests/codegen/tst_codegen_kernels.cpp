// JIT-compiled kernels against plain C++ loops: vector add, parallel matmul,
// floor division, expression chains, gathers, guarded loads, allocations, and
// what the CPU back end must reject.
#include <sys/mman.h>
#include <unistd.h>

#include <QtTest>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include "codegen/codegen.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "test_kernels.h"

using namespace lathe;
using namespace lathe::testing;
using codegen::CompiledKernel;
using codegen::jit_compile;
using codegen::Target;

namespace {

// Lathe tensors are 64-byte aligned, and the kernels are told so.
template <typename T>
struct AlignedBuffer {
  explicit AlignedBuffer(size_t n) : size(n) {
    data = static_cast<T*>(
        std::aligned_alloc(64, std::max<size_t>(64, (n * sizeof(T) + 63) / 64 * 64)));
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  T& operator[](size_t i) { return data[i]; }
  T* data;
  size_t size;
};

std::vector<float> random_floats(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floormod(int64_t a, int64_t b) {
  return a - floordiv(a, b) * b;
}

template <typename F>
QString error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// A float buffer whose last element ends a page followed by an inaccessible
// page: any read past its end faults, so a guarded load must not happen.
struct GuardedBuffer {
  explicit GuardedBuffer(size_t n) : count(n) {
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t bytes = n * sizeof(float);
    size_t pages = (bytes + page - 1) / page;
    base = static_cast<char*>(mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base + pages * page, page, PROT_NONE);
    data = reinterpret_cast<float*>(base + pages * page - bytes);
    total = (pages + 1) * page;
  }
  ~GuardedBuffer() { munmap(base, total); }
  char* base;
  float* data;
  size_t count, page, total;
};

}  // namespace

class TestCodegenKernels : public QObject {
  Q_OBJECT

 private slots:
  void vectorAddMatchesLoop() {
    const int64_t n = 1024;
    CompiledKernel kernel = jit_compile(vector_add(n), Target::host());
    QCOMPARE(kernel.num_params(), 3);
    AlignedBuffer<float> a(n), b(n), c(n);
    std::vector<float> va = random_floats(n, -10, 10, 1), vb = random_floats(n, -10, 10, 2);
    for (int64_t i = 0; i < n; ++i) a[i] = va[i], b[i] = vb[i], c[i] = -1;
    kernel.run({a.data, b.data, c.data});
    for (int64_t i = 0; i < n; ++i) QCOMPARE(c[i], va[i] + vb[i]);
  }

  void parallelMatmulMatchesLoop() {
    const int m = 37, n = 29, k = 41;  // odd sizes: uneven chunks
    CompiledKernel kernel = jit_compile(parallel_matmul(m, n, k), Target::host());
    AlignedBuffer<float> a(m * k), b(k * n), c(m * n);
    std::vector<float> va = random_floats(m * k, -1, 1, 3), vb = random_floats(k * n, -1, 1, 4);
    std::copy(va.begin(), va.end(), a.data);
    std::copy(vb.begin(), vb.end(), b.data);
    kernel.run({a.data, b.data, c.data});
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double expected = 0;
        for (int r = 0; r < k; ++r) expected += double(va[i * k + r]) * vb[r * n + j];
        QVERIFY2(std::abs(c[i * n + j] - expected) < 1e-4,
                 qPrintable(QString("C[%1,%2] = %3, expected %4")
                                .arg(i)
                                .arg(j)
                                .arg(c[i * n + j])
                                .arg(expected)));
      }
  }

  void parallelMatmulSameForOneThreadAndDefault() {
    const int m = 64, n = 48, k = 33;
    CompiledKernel kernel = jit_compile(parallel_matmul(m, n, k), Target::host());
    AlignedBuffer<float> a(m * k), b(k * n), c1(m * n), c_all(m * n);
    std::vector<float> va = random_floats(m * k, -1, 1, 5), vb = random_floats(k * n, -1, 1, 6);
    std::copy(va.begin(), va.end(), a.data);
    std::copy(vb.begin(), vb.end(), b.data);

    qputenv("LATHE_NUM_THREADS", "1");
    runtime::reset_global_thread_pool();
    QCOMPARE(runtime::global_thread_pool()->num_threads(), 1);
    kernel.run({a.data, b.data, c1.data});

    qunsetenv("LATHE_NUM_THREADS");
    runtime::reset_global_thread_pool();
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    QCOMPARE(runtime::global_thread_pool()->num_threads(), cores);
    kernel.run({a.data, b.data, c_all.data});
    // Each element is summed in the same order whatever thread runs its row.
    for (int i = 0; i < m * n; ++i) QCOMPARE(c_all[i], c1[i]);
  }

  void parallelBodyCapturesOuterLoopAndLetVariables() {
    // for b: let base = b * rows * cols; parallel i: Y[base + i*cols + j] = X[..] * scale(b)
    const int batches = 3, rows = 10, cols = 7;
    const DataType f32 = DataType::Float(32);
    Buffer x = make_buffer("X", f32, {batches, rows, cols});
    Buffer y = make_buffer("Y", f32, {batches, rows, cols});
    Var bi("b"), i("i"), j("j"), base("base");
    Expr offset = base + i * cols + j;
    Stmt store =
        tir::make_store(y.data, te::load(f32, x.data, offset) * te::cast(f32, bi + 1), offset);
    Stmt parallel = tir::make_for(i, 0, rows, ForKind::Parallel,
                                  tir::make_for(j, 0, cols, ForKind::Serial, store));
    Stmt body = tir::make_for(bi, 0, batches, ForKind::Serial,
                              tir::make_let(base, bi * (rows * cols), parallel));
    CompiledKernel kernel = jit_compile(PrimFunc{"scale_batches", {x, y}, body}, Target::host());
    const int total = batches * rows * cols;
    AlignedBuffer<float> xb(total), yb(total);
    for (int t = 0; t < total; ++t) xb[t] = float(t) * 0.5f;
    kernel.run({xb.data, yb.data});
    for (int t = 0; t < total; ++t) QCOMPARE(yb[t], xb[t] * float(t / (rows * cols) + 1));
  }

  void nestedParallelLoopsRunSerially() {
    const DataType i32 = DataType::Int(32);
    Buffer out = make_buffer("Out", i32, {16, 16});
    Var i("i"), j("j");
    Stmt body = tir::make_for(i, 0, 16, ForKind::Parallel,
                              tir::make_for(j, 0, 16, ForKind::Parallel,
                                            tir::make_store(out.data, i * 100 + j, i * 16 + j)));
    const std::string ir = codegen::emit_llvm_ir({PrimFunc{"nested", {out}, body}}, Target::host(),
                                                 codegen::IRStage::BeforeOptimization);
    // One launch (the outer loop), one outlined body.
    QVERIFY(ir.find("nested_parallel_0") != std::string::npos);
    QVERIFY(ir.find("nested_parallel_1") == std::string::npos);
    CompiledKernel kernel = jit_compile(PrimFunc{"nested", {out}, body}, Target::host());
    AlignedBuffer<int32_t> o(256);
    kernel.run({o.data});
    for (int a = 0; a < 16; ++a)
      for (int b = 0; b < 16; ++b) QCOMPARE(o[a * 16 + b], a * 100 + b);
  }

  void floorDivisionAndModuloOnNegatives() {
    const int n = 64;
    const DataType i32 = DataType::Int(32), i32x4 = DataType::Int(32, 4);
    Buffer x = make_buffer("X", i32, {n});
    Buffer y = make_buffer("Y", i32, {n});
    std::vector<Buffer> outs;
    for (const char* name : {"D", "M", "D4", "M4", "DN3", "MN3", "VD", "VM", "IDX"})
      outs.push_back(make_buffer(name, i32, {n}));
    Var i("i"), v("v");
    Expr xi = te::load(i32, x.data, i), yi = te::load(i32, y.data, i);
    Expr lanes = te::ramp(v * 4, 1, 4);
    Expr xv = te::load(i32x4, x.data, lanes), yv = te::load(i32x4, y.data, lanes);
    Stmt scalar = tir::make_seq({
        tir::make_store(outs[0].data, xi / yi, i),
        tir::make_store(outs[1].data, xi % yi, i),
        tir::make_store(outs[2].data, xi / 4, i),
        tir::make_store(outs[3].data, xi % 4, i),
        tir::make_store(outs[4].data, xi / -3, i),
        tir::make_store(outs[5].data, xi % -3, i),
        // i is provably non-negative here: the plain unsigned division path.
        tir::make_store(outs[8].data, i / 3 * 10 + i % 3, i),
    });
    Stmt vector = tir::make_seq({tir::make_store(outs[6].data, xv / yv, lanes),
                                 tir::make_store(outs[7].data, xv % yv, lanes)});
    std::vector<Buffer> params{x, y};
    params.insert(params.end(), outs.begin(), outs.end());
    Stmt body = tir::make_seq({tir::make_for(i, 0, n, ForKind::Serial, scalar),
                               tir::make_for(v, 0, n / 4, ForKind::Serial, vector)});
    CompiledKernel kernel = jit_compile(PrimFunc{"floor_ops", params, body}, Target::host());

    std::vector<AlignedBuffer<int32_t>*> bufs;
    for (size_t p = 0; p < params.size(); ++p) bufs.push_back(new AlignedBuffer<int32_t>(n));
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> values(-50, 50), divisors(1, 9);
    for (int t = 0; t < n; ++t) {
      (*bufs[0])[t] = values(rng);
      (*bufs[1])[t] = divisors(rng) * (t % 2 ? -1 : 1);
    }
    (*bufs[0])[0] = -7;
    (*bufs[1])[0] = 2;
    std::vector<void*> args;
    for (auto* b : bufs) args.push_back(b->data);
    kernel.run(args);
    for (int t = 0; t < n; ++t) {
      const int64_t a = (*bufs[0])[t], d = (*bufs[1])[t];
      QCOMPARE(int64_t((*bufs[2])[t]), floordiv(a, d));
      QCOMPARE(int64_t((*bufs[3])[t]), floormod(a, d));
      QCOMPARE(int64_t((*bufs[4])[t]), floordiv(a, 4));
      QCOMPARE(int64_t((*bufs[5])[t]), floormod(a, 4));
      QCOMPARE(int64_t((*bufs[6])[t]), floordiv(a, -3));
      QCOMPARE(int64_t((*bufs[7])[t]), floormod(a, -3));
      QCOMPARE(int64_t((*bufs[8])[t]), floordiv(a, d));
      QCOMPARE(int64_t((*bufs[9])[t]), floormod(a, d));
      QCOMPARE(int64_t((*bufs[10])[t]), t / 3 * 10 + t % 3);
    }
    QCOMPARE(int64_t((*bufs[2])[0]), int64_t(-4));  // floor(-7 / 2)
    QCOMPARE(int64_t((*bufs[3])[0]), int64_t(1));
    for (auto* b : bufs) delete b;
  }

  void selectMinMaxCastExpChain() {
    const int n = 256;
    const DataType f32 = DataType::Float(32), i32 = DataType::Int(32);
    Buffer x = make_buffer("X", f32, {n});
    Buffer y = make_buffer("Y", f32, {n});
    Buffer z = make_buffer("Z", i32, {n});
    Var i("i");
    Expr xi = te::load(f32, x.data, i);
    // y = x > 0 ? exp(min(x, 2)) : float(int(max(x, -3.5))) * 0.5 + sqrt(abs(x))
    Expr chain =
        te::select(xi > 0.0f, te::exp(te::min(xi, 2.0f)),
                   te::cast(f32, te::cast(i32, te::max(xi, -3.5f))) * 0.5f + te::sqrt(te::abs(xi)));
    // z = max(min(int(floor(x * 3)), 5), -5) + (x < 1 ? 100 : 0)
    Expr ints = te::max(te::min(te::cast(i32, te::floor(xi * 3.0f)), 5), -5) +
                te::select(xi < 1.0f, Expr(100), Expr(0));
    Stmt body = tir::make_for(
        i, 0, n, ForKind::Serial,
        tir::make_seq({tir::make_store(y.data, chain, i), tir::make_store(z.data, ints, i)}));
    CompiledKernel kernel = jit_compile(PrimFunc{"chain", {x, y, z}, body}, Target::host());
    AlignedBuffer<float> xb(n), yb(n);
    AlignedBuffer<int32_t> zb(n);
    std::vector<float> vx = random_floats(n, -6, 6, 8);
    std::copy(vx.begin(), vx.end(), xb.data);
    kernel.run({xb.data, yb.data, zb.data});
    for (int t = 0; t < n; ++t) {
      const float v = vx[t];
      const float expected = v > 0 ? std::exp(std::min(v, 2.0f))
                                   : float(int(std::max(v, -3.5f))) * 0.5f + std::sqrt(std::abs(v));
      QVERIFY2(std::abs(yb[t] - expected) <= 1e-5f * std::max(1.0f, std::abs(expected)),
               qPrintable(QString("x=%1: %2 vs %3").arg(v).arg(yb[t]).arg(expected)));
      const int zi = std::max(std::min(int(std::floor(v * 3.0f)), 5), -5) + (v < 1 ? 100 : 0);
      QCOMPARE(zb[t], zi);
    }
  }

  void vectorIntrinsicsPerLane() {
    // tanh, erf, sigmoid, pow, fma and float floormod on 8-lane vectors.
    const int n = 64;
    const DataType f32 = DataType::Float(32), f32x8 = DataType::Float(32, 8);
    Buffer x = make_buffer("X", f32, {n});
    Buffer y = make_buffer("Y", f32, {n});
    Var v("v");
    Expr lanes = te::ramp(v * 8, 1, 8);
    Expr xv = te::load(f32x8, x.data, lanes);
    Expr value = te::tanh(xv) + te::erf(xv) + te::sigmoid(xv) +
                 te::pow(te::abs(xv), te::broadcast(1.5f, 8)) +
                 te::fma(xv, xv, te::broadcast(1.0f, 8)) + xv % te::broadcast(0.75f, 8);
    Stmt body = tir::make_for(v, 0, n / 8, ForKind::Serial, tir::make_store(y.data, value, lanes));
    CompiledKernel kernel = jit_compile(PrimFunc{"intrinsics", {x, y}, body}, Target::host());
    AlignedBuffer<float> xb(n), yb(n);
    std::vector<float> vx = random_floats(n, -3, 3, 9);
    std::copy(vx.begin(), vx.end(), xb.data);
    kernel.run({xb.data, yb.data});
    for (int t = 0; t < n; ++t) {
      const double a = vx[t];
      const double expected = std::tanh(a) + std::erf(a) + 1 / (1 + std::exp(-a)) +
                              std::pow(std::abs(a), 1.5) + (a * a + 1) +
                              (a - std::floor(a / 0.75) * 0.75);
      QVERIFY2(std::abs(yb[t] - expected) < 1e-4 * std::max(1.0, std::abs(expected)),
               qPrintable(QString("x=%1: %2 vs %3").arg(a).arg(yb[t]).arg(expected)));
    }
  }

  void saturatingNarrow_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("is_signed");
    QTest::addColumn<int>("lanes");
    QTest::addColumn<int>("zero_point");
    for (const char* target : {"llvm -mcpu=haswell", "llvm"})
      for (bool is_signed : {false, true})
        for (int lanes : {16, 32, 64, 128})
          for (int zp : {0, 3, -128, 255})
            QTest::addRow("%s %s x%d zp %d", target, is_signed ? "int8" : "uint8", lanes, zp)
                << QString(target) << is_signed << lanes << zp;
  }

  void saturatingNarrow() {
    // cast<int8/uint8>(clamp(x + zp, type's range)) of int32 vectors, which
    // x86 narrows with saturating packs (four vectors into one, the zero
    // point added to int16 words): equal to the clamp lane by lane, in the
    // order of the lanes, across the int32 range; and no pack-free clamp
    // left where the target has the packs.
    QFETCH(QString, target);
    QFETCH(bool, is_signed);
    QFETCH(int, lanes);
    QFETCH(int, zero_point);
    const int64_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    // Within what an int32 add of the zero point keeps exact.
    const int32_t big = std::numeric_limits<int32_t>::max() - 256;
    std::vector<int32_t> xs = {-big,  big,  -32769, -32768, -32767, -32513, 32767, 32768,
                               32769, -129, -128,   -127,   -1,     0,      1,     126,
                               127,   128,  254,    255,    256,    -255,   -256,  -383};
    std::mt19937 rng(11);
    for (int i = 0; i < 200; ++i) xs.push_back(static_cast<int32_t>(rng() % 2000) - 1000);
    for (int i = 0; i < 100; ++i)
      xs.push_back(std::uniform_int_distribution<int32_t>(-big, big)(rng));
    while (xs.size() % static_cast<size_t>(lanes) != 0)
      xs.push_back(static_cast<int32_t>(xs.size()));
    const int n = static_cast<int>(xs.size());
    const DataType i32 = DataType::Int(32), i32xl = DataType::Int(32, lanes);
    const DataType narrow = is_signed ? DataType::Int(8) : DataType::UInt(8);
    Buffer x = make_buffer("X", i32, {n});
    Buffer y = make_buffer("Y", narrow, {n});
    Var v("v");
    Expr at = te::ramp(v * lanes, 1, lanes);
    Expr q = te::load(i32xl, x.data, at);
    if (zero_point != 0) q = q + te::broadcast(te::make_const(i32, zero_point), lanes);
    q = te::max(te::min(q, te::broadcast(te::make_const(i32, hi), lanes)),
                te::broadcast(te::make_const(i32, lo), lanes));
    Expr value = te::cast(narrow.with_lanes(lanes), q);
    PrimFunc func{
        "narrow",
        {x, y},
        tir::make_for(v, 0, n / lanes, ForKind::Serial, tir::make_store(y.data, value, at))};
    const Target t = Target::parse(target.toStdString());
    CompiledKernel kernel = jit_compile(func, t);
    AlignedBuffer<int32_t> xb(static_cast<size_t>(n));
    AlignedBuffer<uint8_t> yb(static_cast<size_t>(n));
    std::copy(xs.begin(), xs.end(), xb.data);
    kernel.run({xb.data, yb.data});
    for (int i = 0; i < n; ++i) {
      const int64_t expected = std::clamp<int64_t>(int64_t{xs[i]} + zero_point, lo, hi);
      const int64_t got = is_signed ? int64_t{static_cast<int8_t>(yb[i])} : int64_t{yb[i]};
      QVERIFY2(got == expected, qPrintable(QString("lane %1: x %2 gave %3, expected %4")
                                               .arg(i)
                                               .arg(xs[i])
                                               .arg(got)
                                               .arg(expected)));
    }
    const std::string isa = t.isa_features();
    const int width = t.vector_unit().bits >= 512 && isa.find("+avx512bw") != std::string::npos ? 16
                      : isa.find("+avx2") != std::string::npos                                  ? 8
                                                                                                : 0;
    if (width != 0 && lanes % (2 * width) == 0) {
      const std::string assembly = codegen::emit_assembly({func}, t);
      QVERIFY2(assembly.find("vpackssdw") != std::string::npos, assembly.c_str());
      QVERIFY2(assembly.find(is_signed ? "vpacksswb" : "vpackuswb") != std::string::npos,
               assembly.c_str());
      QVERIFY2(assembly.find("vpmovusdb") == std::string::npos &&
                   assembly.find("vpmovsdb") == std::string::npos,
               assembly.c_str());
    }
  }

  void vectorMathAcrossTheFloatRange_data() {
    QTest::addColumn<int>("intrinsic");
    QTest::newRow("exp") << int(te::Intrinsic::Exp);
    QTest::newRow("erf") << int(te::Intrinsic::Erf);
    QTest::newRow("tanh") << int(te::Intrinsic::Tanh);
    QTest::newRow("sigmoid") << int(te::Intrinsic::Sigmoid);
  }

  void vectorMathAcrossTheFloatRange() {
    // The inline vector polynomials, on AVX2 (16 registers) and on the host,
    // from -inf to +inf: exp within 2 ulp where it is a normal float, +inf
    // where it overflows, 0 or a denormal-sized value where it underflows;
    // erf, tanh and the sigmoid within 8 ulp; NaN stays NaN.
    QFETCH(int, intrinsic);
    const auto op = static_cast<te::Intrinsic>(intrinsic);
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> xs = {-inf,   -1000.0f, -100.0f,  -88.5f,
                             -87.9f, -87.3f,   -86.5f,   -20.0f,
                             -7.95f, -4.5f,    -3.9f,    -1.0f,
                             -1e-8f, 0.0f,     1e-8f,    1e-4f,
                             0.5f,   1.0f,     3.9f,     4.5f,
                             7.8f,   10.0f,    88.0f,    88.3f,
                             88.5f,  88.72f,   88.7228f, 88.73f,
                             89.5f,  1000.0f,  inf,      std::numeric_limits<float>::quiet_NaN()};
    for (float v : random_floats(120, -90.0f, 90.0f, 4)) xs.push_back(v);
    for (float v : random_floats(120, -5.0f, 5.0f, 5)) xs.push_back(v);
    while (xs.size() % 8 != 0) xs.push_back(0.25f);
    const int n = static_cast<int>(xs.size());
    const DataType f32 = DataType::Float(32), f32x8 = DataType::Float(32, 8);
    Buffer x = make_buffer("X", f32, {n});
    Buffer y = make_buffer("Y", f32, {n});
    Var v("v");
    Expr lanes = te::ramp(v * 8, 1, 8);
    Expr call = te::call(op, {te::load(f32x8, x.data, lanes)});
    Stmt body = tir::make_for(v, 0, n / 8, ForKind::Serial, tir::make_store(y.data, call, lanes));
    auto exact = [op](double a) {
      switch (op) {
        case te::Intrinsic::Exp:
          return std::exp(a);
        case te::Intrinsic::Erf:
          return std::erf(a);
        case te::Intrinsic::Tanh:
          return std::tanh(a);
        default:
          return 1 / (1 + std::exp(-a));
      }
    };
    const double ulps = op == te::Intrinsic::Exp ? 2 : 8;
    for (const char* target : {"llvm -mcpu=haswell", "llvm"}) {
      CompiledKernel kernel = jit_compile(PrimFunc{"vmath", {x, y}, body}, Target::parse(target));
      AlignedBuffer<float> xb(n), yb(n);
      std::copy(xs.begin(), xs.end(), xb.data);
      kernel.run({xb.data, yb.data});
      for (int i = 0; i < n; ++i) {
        const double expected = exact(double(xs[i]));
        const QString what = QString("%1: %2(%3) = %4, expected %5")
                                 .arg(target)
                                 .arg(QTest::currentDataTag())
                                 .arg(double(xs[i]), 0, 'g', 9)
                                 .arg(double(yb[i]), 0, 'g', 9)
                                 .arg(expected, 0, 'g', 9);
        if (std::isnan(xs[i]))
          QVERIFY2(std::isnan(yb[i]), qPrintable(what));
        else if (expected > std::numeric_limits<float>::max())
          QVERIFY2(std::isinf(yb[i]) && yb[i] > 0, qPrintable(what));
        else if (std::abs(expected) < 2 * double(std::numeric_limits<float>::min()))
          QVERIFY2(std::abs(yb[i]) < 2 * std::numeric_limits<float>::min() &&
                       std::signbit(yb[i]) == std::signbit(expected),
                   qPrintable(what));
        else
          QVERIFY2(std::abs(yb[i] - expected) <= ulps * std::ldexp(1.0, -23) * std::abs(expected),
                   qPrintable(what));
      }
    }
  }

  void stridedLanesGatherAndScatter() {
    // A 4 x 16 transpose by 4-lane vectors: a strided read (gather) into a
    // contiguous write, and back with a strided write (scatter).
    const int rows = 4, cols = 16;
    const DataType f32 = DataType::Float(32), f32x4 = DataType::Float(32, 4);
    Buffer in = make_buffer("In", f32, {rows, cols});
    Buffer t = make_buffer("T", f32, {cols, rows});
    Buffer back = make_buffer("Back", f32, {rows, cols});
    Var c("c");
    Expr strided = te::ramp(c, cols, 4);         // In[0..3][c]
    Expr contiguous = te::ramp(c * rows, 1, 4);  // T[c][0..3]
    Stmt body = tir::make_for(
        c, 0, cols, ForKind::Serial,
        tir::make_seq({tir::make_store(t.data, te::load(f32x4, in.data, strided), contiguous),
                       tir::make_store(back.data, te::load(f32x4, t.data, contiguous), strided)}));
    CompiledKernel kernel = jit_compile(PrimFunc{"transpose", {in, t, back}, body}, Target::host());
    AlignedBuffer<float> ib(rows * cols), tb(rows * cols), bb(rows * cols);
    for (int e = 0; e < rows * cols; ++e) ib[e] = float(e);
    kernel.run({ib.data, tb.data, bb.data});
    for (int r = 0; r < rows; ++r)
      for (int col = 0; col < cols; ++col) {
        QCOMPARE(tb[col * rows + r], ib[r * cols + col]);
        QCOMPARE(bb[r * cols + col], ib[r * cols + col]);
      }
  }

  void guardedLoadsNeverReadOutOfBounds() {
    // Out[i] = i < n ? In[i] : -1 for i past In's end, with In ending at an
    // inaccessible page: scalar selects branch, vector selects mask their loads.
    const int n = 48;  // 192 bytes: the buffer start stays 64-byte aligned
    const int out_n = 64;
    const DataType f32 = DataType::Float(32), f32x8 = DataType::Float(32, 8);
    Buffer in = make_buffer("In", f32, {n});
    Buffer out = make_buffer("Out", f32, {out_n});
    Buffer vout = make_buffer("VOut", f32, {out_n});
    Var i("i"), v("v");
    Stmt scalar = tir::make_for(
        i, 0, out_n, ForKind::Serial,
        tir::make_store(out.data, te::select(i < n, te::load(f32, in.data, i), Expr(-1.0f)), i));
    // Offset by 4 so that one vector straddles the end.
    Expr lanes = te::ramp(v * 8 + 4, 1, 8);
    Expr store_lanes = te::ramp(v * 8, 1, 8);
    Stmt vector = tir::make_for(
        v, 0, (out_n - 8) / 8, ForKind::Serial,
        tir::make_store(vout.data,
                        te::select(lanes < te::broadcast(Expr(n), 8),
                                   te::load(f32x8, in.data, lanes), te::broadcast(-1.0f, 8)),
                        store_lanes));
    CompiledKernel kernel = jit_compile(
        PrimFunc{"guarded", {in, out, vout}, tir::make_seq({scalar, vector})}, Target::host());
    GuardedBuffer ib(n);
    QCOMPARE(reinterpret_cast<uintptr_t>(ib.data) % 64, uintptr_t(0));
    for (int e = 0; e < n; ++e) ib.data[e] = float(e);
    AlignedBuffer<float> ob(out_n), vb(out_n);
    kernel.run({ib.data, ob.data, vb.data});
    for (int e = 0; e < out_n; ++e) QCOMPARE(ob[e], e < n ? float(e) : -1.0f);
    for (int e = 0; e < out_n - 8; ++e) QCOMPARE(vb[e], e + 4 < n ? float(e + 4) : -1.0f);
  }

  void uniformVectorConditionsBranch() {
    // A vector select whose condition is one scalar broadcast to every lane
    // (a concat choosing its input, a pad outside the vector axis) guards
    // its loads with a branch, not with masked loads: with an all-false mask
    // at an address outside the buffer those cost a microcode assist each on
    // some CPUs. Out[v] = v < 5 ? In[v*8 .. v*8+7] : -1, for v up to 7 with
    // In ending at an inaccessible page after 6 vectors.
    const int n = 48, out_n = 64;
    const DataType f32 = DataType::Float(32), f32x8 = DataType::Float(32, 8);
    Buffer in = make_buffer("In", f32, {n});
    Buffer out = make_buffer("Out", f32, {out_n});
    Var v("v");
    Stmt loop =
        tir::make_for(v, 0, out_n / 8, ForKind::Serial,
                      tir::make_store(out.data,
                                      te::select(te::broadcast(v < 5, 8),
                                                 te::load(f32x8, in.data, te::ramp(v * 8, 1, 8)),
                                                 te::broadcast(-1.0f, 8)),
                                      te::ramp(v * 8, 1, 8)));
    const PrimFunc func{"uniform_guard", {in, out}, loop};
    const std::string ir =
        codegen::emit_llvm_ir({func}, Target::host(), codegen::IRStage::BeforeOptimization);
    QVERIFY2(ir.find("select_true") != std::string::npos, ir.c_str());
    QVERIFY2(ir.find("masked.load") == std::string::npos, ir.c_str());

    CompiledKernel kernel = jit_compile(func, Target::host());
    GuardedBuffer ib(n);
    for (int e = 0; e < n; ++e) ib.data[e] = float(e);
    AlignedBuffer<float> ob(out_n);
    kernel.run({ib.data, ob.data});
    for (int e = 0; e < out_n; ++e) QCOMPARE(ob[e], e < 40 ? float(e) : -1.0f);
  }

  void selectsOfLoadsTheConditionReadsDoNotBranch() {
    // Relu of a loaded value, Out[i] = In[i] < 0 ? 0 : In[i]: the condition
    // reads In[i] anyway, so the select needs no guard and stays a select
    // (a branch on the data mispredicts on every other element). A select
    // that guards a load the condition does not read still branches.
    const int n = 64;
    const DataType f32 = DataType::Float(32);
    Buffer in = make_buffer("In", f32, {n});
    Buffer relu = make_buffer("Relu", f32, {n});
    Buffer guarded = make_buffer("Guarded", f32, {n});
    Var i("i"), j("j");
    Expr x = te::load(f32, in.data, i);
    Stmt relu_loop =
        tir::make_for(i, 0, n, ForKind::Serial,
                      tir::make_store(relu.data, te::select(x < Expr(0.0f), Expr(0.0f), x), i));
    Stmt guarded_loop = tir::make_for(
        j, 0, n, ForKind::Serial,
        tir::make_store(guarded.data,
                        te::select(j < n / 2, te::load(f32, in.data, j * 2), Expr(-1.0f)), j));
    const PrimFunc relu_func{"relu", {in, relu}, relu_loop};
    const PrimFunc guarded_func{"guarded_half", {in, guarded}, guarded_loop};
    const std::string relu_ir =
        codegen::emit_llvm_ir({relu_func}, Target::host(), codegen::IRStage::BeforeOptimization);
    QVERIFY2(relu_ir.find("select_true") == std::string::npos, relu_ir.c_str());
    QVERIFY2(relu_ir.find(" select ") != std::string::npos, relu_ir.c_str());
    const std::string guarded_ir =
        codegen::emit_llvm_ir({guarded_func}, Target::host(), codegen::IRStage::BeforeOptimization);
    QVERIFY2(guarded_ir.find("select_true") != std::string::npos, guarded_ir.c_str());

    CompiledKernel kernel = jit_compile(relu_func, Target::host());
    AlignedBuffer<float> ib(n), ob(n);
    for (int e = 0; e < n; ++e) ib[e] = float(e % 3 - 1) * float(e);
    kernel.run({ib.data, ob.data});
    for (int e = 0; e < n; ++e) QCOMPARE(ob[e], std::max(ib[e], 0.0f));
  }

  void heapAndStackAllocations() {
    // A large scratch buffer goes to lathe_alloc, a small one on the stack,
    // and one sized by a loop variable is allocated on each iteration.
    const int n = 20000;  // 80 KB of floats: over the stack limit
    const DataType f32 = DataType::Float(32);
    Buffer x = make_buffer("X", f32, {n});
    Buffer y = make_buffer("Y", f32, {n});
    Buffer sums = make_buffer("S", f32, {8});
    Var big("big", DataType::Handle()), small("small", DataType::Handle()),
        dyn("dyn", DataType::Handle());
    Var i("i"), r("r"), q("q");
    Stmt use_big = tir::make_allocate(
        big, f32, {Expr(n)},
        tir::make_seq({tir::make_for(i, 0, n, ForKind::Serial,
                                     tir::make_store(big, te::load(f32, x.data, i) * 2.0f, i)),
                       tir::make_for(i, 0, n, ForKind::Serial,
                                     tir::make_store(y.data, te::load(f32, big, i) + 1.0f, i))}));
    // S[r] = sum_{q <= r} (q + 1), through a per-row scratch of r + 1 floats.
    Stmt fill =
        tir::make_for(q, 0, r + 1, ForKind::Serial, tir::make_store(dyn, te::cast(f32, q + 1), q));
    Stmt sum = tir::make_seq(
        {tir::make_store(small, Expr(0.0f), 0),
         tir::make_for(q, 0, r + 1, ForKind::Serial,
                       tir::make_store(small, te::load(f32, small, 0) + te::load(f32, dyn, q), 0)),
         tir::make_store(sums.data, te::load(f32, small, 0), r)});
    Stmt per_row = tir::make_for(
        r, 0, 8, ForKind::Serial,
        tir::make_allocate(dyn, f32, {r + 1},
                           tir::make_allocate(small, f32, {Expr(1)}, tir::make_seq({fill, sum}))));
    CompiledKernel kernel = jit_compile(
        PrimFunc{"allocations", {x, y, sums}, tir::make_seq({use_big, per_row})}, Target::host());
    AlignedBuffer<float> xb(n), yb(n), sb(8);
    for (int e = 0; e < n; ++e) xb[e] = float(e % 100);
    kernel.run({xb.data, yb.data, sb.data});
    for (int e = 0; e < n; ++e) QCOMPARE(yb[e], float(e % 100) * 2 + 1);
    for (int row = 0; row < 8; ++row) QCOMPARE(sb[row], float((row + 1) * (row + 2) / 2));
  }

  void boolBuffersHoldBytes() {
    const int n = 32;
    Buffer x = make_buffer("X", DataType::Float(32), {n});
    Buffer mask = make_buffer("Mask", DataType::Bool(), {n});
    Buffer y = make_buffer("Y", DataType::Float(32), {n});
    Var i("i"), j("j");
    Stmt body = tir::make_seq({
        tir::make_for(
            i, 0, n, ForKind::Serial,
            tir::make_store(mask.data, te::load(DataType::Float(32), x.data, i) > 0.5f, i)),
        tir::make_for(
            j, 0, n, ForKind::Serial,
            tir::make_store(
                y.data,
                te::select(te::load(DataType::Bool(), mask.data, j), Expr(1.0f), Expr(0.0f)), j)),
    });
    CompiledKernel kernel = jit_compile(PrimFunc{"bools", {x, mask, y}, body}, Target::host());
    AlignedBuffer<float> xb(n), yb(n);
    AlignedBuffer<uint8_t> mb(n);
    for (int e = 0; e < n; ++e) xb[e] = float(e % 3) * 0.4f;
    kernel.run({xb.data, mb.data, yb.data});
    for (int e = 0; e < n; ++e) {
      const bool expected = float(e % 3) * 0.4f > 0.5f;
      QCOMPARE(int(mb[e]), expected ? 1 : 0);
      QCOMPARE(yb[e], expected ? 1.0f : 0.0f);
    }
  }

  void unrolledAndVectorizedLoopsAndBranches() {
    const int n = 40;
    const DataType i64 = DataType::Int(64);
    Buffer x = make_buffer("X", i64, {n});
    Buffer y = make_buffer("Y", i64, {n});
    Var i("i", DataType::Int(64)), u("u"), s("s", i64);
    // y[i] = x[i] odd ? x[i] * 3 : sum_{u<4} x[i] + u  (unrolled), i vectorizable
    Expr xi = te::load(i64, x.data, i);
    Stmt odd = tir::make_store(y.data, xi * Expr(int64_t(3)), i);
    Stmt even = tir::make_seq(
        {tir::make_store(y.data, Expr(int64_t(0)), i),
         tir::make_for(
             u, 0, 4, ForKind::Unrolled,
             tir::make_store(y.data, te::load(i64, y.data, i) + xi + te::cast(i64, u), i))});
    Stmt body = tir::make_for(i, Expr(int64_t(0)), Expr(int64_t(n)), ForKind::Vectorized,
                              tir::make_if(xi % Expr(int64_t(2)) == Expr(int64_t(1)), odd, even));
    body = tir::make_attr("pragma_auto_unroll_max_step", Expr(16), body);
    CompiledKernel kernel = jit_compile(PrimFunc{"branches", {x, y}, body}, Target::host());
    AlignedBuffer<int64_t> xb(n), yb(n);
    for (int e = 0; e < n; ++e) xb[e] = e * 7 - 100;
    kernel.run({xb.data, yb.data});
    for (int e = 0; e < n; ++e) {
      const int64_t v = xb[e];
      QCOMPARE(yb[e], floormod(v, 2) == 1 ? v * 3 : 4 * v + 6);
    }
  }

  void modulesWithTheSameKernelNameCoexist() {
    CompiledKernel first = jit_compile(vector_add(64, "same"), Target::host());
    // Same name, different body: C = A - B.
    PrimFunc sub = vector_add(64, "same");
    const auto* loop = sub.body.as<tir::ForNode>();
    const auto* store = loop->body.as<tir::StoreNode>();
    const auto* add = store->value.as<te::BinaryNode>();
    sub.body = tir::make_for(loop->loop_var, loop->min, loop->extent, loop->kind,
                             tir::make_store(store->buffer, add->a - add->b, store->index));
    CompiledKernel second = jit_compile(sub, Target::host());
    AlignedBuffer<float> a(64), b(64), c(64);
    for (int e = 0; e < 64; ++e) a[e] = float(e), b[e] = 1.0f;
    first.run({a.data, b.data, c.data});
    QCOMPARE(c[10], 11.0f);
    second.run({a.data, b.data, c.data});
    QCOMPARE(c[10], 9.0f);
    first = CompiledKernel();  // frees the first module; the second still runs
    second.run({a.data, b.data, c.data});
    QCOMPARE(c[20], 19.0f);
  }

  void compiledModuleHoldsSeveralKernels() {
    codegen::CompiledModule module = codegen::jit_compile(
        {vector_add(64, "add64"), parallel_matmul(4, 4, 4, "mm4")}, Target::host());
    QVERIFY(module.has_kernel("add64"));
    QVERIFY(module.has_kernel("mm4"));
    QCOMPARE(module.kernel_names().size(), size_t(2));
    QVERIFY(!error_of([&] { module.kernel("nope"); }).isEmpty());
    CompiledKernel add = module.kernel("add64");
    QVERIFY(error_of([&] { add.run({nullptr}); }).contains("takes 3 buffers"));
  }

  void compilesFromSeveralThreadsAtOnce() {
    // The studio and the tuner compile in the background, possibly together.
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        for (int repeat = 0; repeat < 4; ++repeat) {
          CompiledKernel k = jit_compile(vector_add(64 * (t + 1)), Target::host());
          const size_t n = 64 * (t + 1);
          AlignedBuffer<float> a(n), b(n), c(n);
          for (size_t e = 0; e < n; ++e) a[e] = float(e), b[e] = float(repeat);
          k.run({a.data, b.data, c.data});
          for (size_t e = 0; e < n; ++e)
            if (c[e] != float(e + repeat)) failures.fetch_add(1);
        }
      });
    for (std::thread& t : threads) t.join();
    QCOMPARE(failures.load(), 0);
  }

  void threadBindingIsRejected() {
    Buffer a = make_buffer("A", DataType::Float(32), {64});
    Var tx("tx");
    Stmt body = tir::make_for(tx, 0, 64, ForKind::ThreadBinding,
                              tir::make_store(a.data, Expr(1.0f), tx), "threadIdx.x");
    const QString message = error_of([&] {
      jit_compile(PrimFunc{"gpu_kernel", {a}, body}, Target::host());
    });
    QVERIFY2(message.contains("threadIdx.x") && message.contains("gpu_kernel") &&
                 message.contains("CPU"),
             qPrintable(message));
  }

  void undefinedVariablesAreReported() {
    Buffer a = make_buffer("A", DataType::Float(32), {4});
    Var stray("stray");
    const QString message = error_of([&] {
      jit_compile(
          PrimFunc{
              "stray_var", {a}, tir::make_store(a.data, te::cast(DataType::Float(32), stray), 0)},
          Target::host());
    });
    QVERIFY2(message.contains("'stray'") && message.contains("scope"), qPrintable(message));
    Var unknown_buffer("Missing", DataType::Handle());
    const QString buffer_message = error_of([&] {
      jit_compile(PrimFunc{"stray_buffer", {a}, tir::make_store(unknown_buffer, Expr(1.0f), 0)},
                  Target::host());
    });
    QVERIFY2(buffer_message.contains("'Missing'"), qPrintable(buffer_message));
  }
};

QTEST_GUILESS_MAIN(TestCodegenKernels)
#include "tst_codegen_kernels.moc"
