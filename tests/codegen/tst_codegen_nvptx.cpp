// The cuda target end to end without a GPU: schedules with bound loops, shared
// caches and barriers lower and come out as PTX with the expected pieces, the
// PTX assembles with CUDA's ptxas where the machine has one, and the GPU
// verifier refuses what a device cannot run, naming the loop or buffer.
#include <QtTest>

#include <cmath>
#include <map>

#include "codegen/codegen.h"
#include "codegen/gpu_launch.h"
#include "codegen/gpu_math.h"
#include "gpu_test_kernels.h"
#include "tir/printer.h"
#include "tir/transform/inject_storage_sync.h"

using namespace lathe;
using codegen::Target;

namespace {

using testing::cross_thread_row_sum;
using testing::Env;
using testing::error_of;
using testing::has_ptxas;
using testing::kH100;
using testing::lower_text;
using testing::ptxas_errors;
using testing::row_sum_env;

// libm in double for the functions the polynomial tests cover beyond the
// first few.
double libm_of(te::Intrinsic op, double x) {
  switch (op) {
    case te::Intrinsic::Tan:
      return std::tan(x);
    case te::Intrinsic::Asin:
      return std::asin(x);
    case te::Intrinsic::Acos:
      return std::acos(x);
    case te::Intrinsic::Atan:
      return std::atan(x);
    case te::Intrinsic::Sinh:
      return std::sinh(x);
    case te::Intrinsic::Cosh:
      return std::cosh(x);
    case te::Intrinsic::Asinh:
      return std::asinh(x);
    case te::Intrinsic::Acosh:
      return std::acosh(x);
    case te::Intrinsic::Atanh:
      return std::atanh(x);
    default:
      throw std::runtime_error(std::string("no reference for ") + te::intrinsic_name(op));
  }
}

// C = A + B over n floats.
Env add_env(int64_t n) {
  te::Tensor A = te::placeholder({n}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n}, te::DataType::Float(32), "B");
  te::Tensor C = te::compute({n}, [&](const std::vector<te::Var>& v) { return A(v[0]) + B(v[0]); },
                             "C", {"i"});
  return {{"A", A}, {"B", B}, {"C", C}};
}

// S = sigmoid(exp(A)) * 0.5: transcendental math, which NVPTX has no libm for.
Env sigmoid_env(int64_t n) {
  te::Tensor A = te::placeholder({n}, te::DataType::Float(32), "A");
  te::Tensor S =
      te::compute({n},
                  [&](const std::vector<te::Var>& v) {
                    return te::sigmoid(te::exp(A(v[0]))) * te::Expr(0.5f) + te::tanh(A(v[0]));
                  },
                  "S", {"i"});
  return {{"A", A}, {"S", S}};
}

const char* kBoundAdd = R"(s = te.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=128)
s[C].bind(xo, te.thread_axis("blockIdx.x"))
s[C].bind(xi, te.thread_axis("threadIdx.x"))
)";

// Each block stages its 32 rows of A in shared memory, all its threads
// fetching together; then each thread sums one row out of shared memory.
const char* kSharedRowSum = R"(s = te.create_schedule(R.op)
AS = s.cache_read(A, "shared", [R])
io, ii = s[R].split(R.op.axis[0], factor=32)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.x"))
s[AS].compute_at(s[R], io)
f = s[AS].fuse(AS.op.axis[0], AS.op.axis[1])
fo, fi = s[AS].split(f, factor=32)
s[AS].bind(fi, te.thread_axis("threadIdx.x"))
)";

std::string ptx_of(const tir::PrimFunc& f, const std::string& target = kH100) {
  return codegen::emit_assembly({f}, Target::parse(target));
}

}  // namespace

class TestCodegenNvptx : public QObject {
  Q_OBJECT

 private slots:
  void loweringRecordsTheTarget() {
    const tir::PrimFunc f = lower_text(add_env(4096), kBoundAdd, {"A", "B", "C"}, "add");
    QCOMPARE(f.target, std::string(kH100));
    const tir::PrimFunc cpu =
        tir::lower(*schedule::parse_schedule("s = te.create_schedule(C.op)\n", add_env(64)),
                   {add_env(64).at("A"), add_env(64).at("B"), add_env(64).at("C")}, "add",
                   {.record_ir = false})
            .func;
    QVERIFY(cpu.target.empty());
    QCOMPARE(tir::target_kind_name(f.target), std::string("cuda"));
    QCOMPARE(tir::target_kind_name(cpu.target), std::string("llvm"));
  }

  // A scalar has no loop to bind: one thread of one block computes it (an If's
  // condition, a shape computed on the device).
  void scalarIsOneThread() {
    te::Tensor A = te::placeholder({}, te::DataType::Float(32), "A");
    te::Tensor B = te::placeholder({}, te::DataType::Float(32), "B");
    te::Tensor C = te::compute(
        {}, [&](const std::vector<te::Var>&) { return A() + B(); }, "C");
    const tir::PrimFunc f = lower_text({{"A", A}, {"B", B}, {"C", C}},
                                       "s = te.create_schedule(C.op)\n", {"A", "B", "C"}, "scalar");
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.grid, (std::array<int64_t, 3>{1, 1, 1}));
    QCOMPARE(launch.block, (std::array<int64_t, 3>{1, 1, 1}));
    const QString text = QString::fromStdString(ptx_of(f));
    for (const char* piece : {".entry scalar(", "ld.global", "st.global"})
      QVERIFY2(text.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, text)));
  }

  // A kernel that binds nothing runs whole in its one thread while its work
  // is a scalar's: a sum of 8 terms passes, one of 4096 is a forgotten bind.
  void shortScalarReductionIsOneThread() {
    auto sum_env = [](int64_t n) {
      te::Tensor A = te::placeholder({n}, te::DataType::Float(32), "A");
      te::IterVar k = te::reduce_axis(n, "k");
      te::Tensor S = te::compute(
          {}, [&](const std::vector<te::Var>&) { return te::sum(A(k.var()), {k}); }, "S");
      return Env{{"A", A}, {"S", S}};
    };
    const tir::PrimFunc f =
        lower_text(sum_env(8), "s = te.create_schedule(S.op)\n", {"A", "S"}, "sum");
    QCOMPARE(codegen::verify_gpu_func(f, Target::parse(kH100)).block,
             (std::array<int64_t, 3>{1, 1, 1}));
    const QString message = error_of([&] {
      codegen::verify_gpu_func(
          lower_text(sum_env(4096), "s = te.create_schedule(S.op)\n", {"A", "S"}, "sum"),
          Target::parse(kH100));
    });
    QVERIFY2(message.contains("loop 'k' (extent 4096) is outside every thread-bound loop"),
             qPrintable(message));
  }

  void boundElementwiseIsAKernel() {
    const tir::PrimFunc f = lower_text(add_env(4096), kBoundAdd, {"A", "B", "C"}, "add");
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.grid[0], int64_t(32));
    QCOMPARE(launch.block[0], int64_t(128));
    QCOMPARE(launch.threads_per_block(), int64_t(128));
    QCOMPARE(launch.shared_bytes, int64_t(0));
    const std::string ptx = ptx_of(f);
    const QString text = QString::fromStdString(ptx);
    for (const char* piece : {".target sm_90", ".version 7.8", ".entry add(", "%tid.x", "%ctaid.x",
                              ".maxntid 128, 1, 1", "ld.global", "st.global"})
      QVERIFY2(text.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, text)));
    // An extent the threads do not divide: one more block, whose extra
    // threads skip the body; the bound loop is not peeled into a tail that
    // every block would run.
    const tir::PrimFunc ragged = lower_text(add_env(4000), kBoundAdd, {"A", "B", "C"}, "add");
    QCOMPARE(codegen::verify_gpu_func(ragged, Target::parse(kH100)).grid[0], int64_t(32));
    const QString ragged_ir = QString::fromStdString(tir::to_string(ragged));
    QVERIFY2(ragged_ir.count("blockIdx.x") == 1, qPrintable(ragged_ir));
    // sm_75 by default, with the PTX ISA LLVM picks for it.
    const QString default_arch = QString::fromStdString(ptx_of(f, "cuda"));
    QVERIFY(default_arch.contains(".target sm_75"));
    QVERIFY(default_arch.contains(".version 6.3"));
  }

  void sharedRowSumHasABarrier() {
    const Env env = row_sum_env(256, 64);
    const tir::PrimFunc f = lower_text(env, kSharedRowSum, {"A", "R"}, "row_sum");
    const QString ir = QString::fromStdString(tir::to_string(f));
    QVERIFY2(ir.contains(tir::kStorageSyncAttr), qPrintable(ir));
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.grid[0], int64_t(8));
    QCOMPARE(launch.block[0], int64_t(32));
    QCOMPARE(launch.shared_bytes, int64_t(32 * 64 * 4));
    const QString ptx = QString::fromStdString(ptx_of(f));
    for (const char* piece : {".entry row_sum(", ".shared", "bar.sync", "st.shared", "ld.shared",
                              "%tid.x", "%ctaid.x", ".maxntid 32, 1, 1"})
      QVERIFY2(ptx.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, ptx)));
  }

  // A cooperative fetch inside a thread loop shorter than the launch: its
  // barrier would sit under the loop's guard, so the lowering refuses.
  void sharedDataUnderAGuardIsRefused() {
    const Env env = row_sum_env(256, 64);
    const QString message = error_of([&] {
      lower_text(env, R"(s = te.create_schedule(R.op)
AS = s.cache_read(A, "shared", [R])
io, ii = s[R].split(R.op.axis[0], factor=32)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.x"))
s[AS].compute_at(s[R], ii)
f = s[AS].fuse(AS.op.axis[0], AS.op.axis[1])
fo, fi = s[AS].split(f, factor=64)
s[AS].bind(fi, te.thread_axis("threadIdx.x"))
)",
                 {"A", "R"}, "row_sum");
    });
    QVERIFY2(message.contains("loop 'ii' bound to threadIdx.x runs 32 of the 64 threads") &&
                 message.contains("a barrier there would not be reached by every thread"),
             qPrintable(message));
  }

  void barriersGoWhereSharedDataCrossesThreads() {
    // Without the shared cache, nothing crosses threads: no barrier.
    const Env env = row_sum_env(256, 64);
    const tir::PrimFunc plain = lower_text(env, R"(s = te.create_schedule(R.op)
io, ii = s[R].split(R.op.axis[0], factor=32)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.x"))
)",
                                           {"A", "R"}, "row_sum");
    QVERIFY(!QString::fromStdString(tir::to_string(plain)).contains(tir::kStorageSyncAttr));
    QVERIFY(!QString::fromStdString(ptx_of(plain)).contains("bar.sync"));
    // The same shared schedule lowered for the CPU gets none either (and is
    // refused by the CPU code generator for its bound loops).
    std::unique_ptr<schedule::Schedule> s = schedule::parse_schedule(kSharedRowSum, env);
    const tir::PrimFunc cpu =
        tir::lower(*s, {env.at("A"), env.at("R")}, "row_sum", {.record_ir = false}).func;
    QVERIFY(!QString::fromStdString(tir::to_string(cpu)).contains(tir::kStorageSyncAttr));
    const QString message = error_of([&] { codegen::emit_llvm_ir({cpu}, Target::host()); });
    QVERIFY2(message.contains("bind needs a GPU target"), qPrintable(message));
  }

  void mathUsesPolynomialsNotLibm() {
    const Env env = sigmoid_env(1 << 14);
    const tir::PrimFunc f = lower_text(env, R"(s = te.create_schedule(S.op)
xo, xi = s[S].split(S.op.axis[0], factor=256)
s[S].bind(xo, te.thread_axis("blockIdx.x"))
s[S].bind(xi, te.thread_axis("threadIdx.x"))
)",
                                       {"A", "S"}, "sigmoid");
    const QString ptx = QString::fromStdString(ptx_of(f));
    QVERIFY2(!ptx.contains("call"), qPrintable(ptx));
    QVERIFY2(ptx.contains("ex2") || ptx.contains("fma.rn.f32"), qPrintable(ptx));
    // A function without a polynomial is refused by name.
    te::Tensor A = te::placeholder({1024}, te::DataType::Float(64), "A");
    te::Tensor L = te::compute(
        {1024},
        [&](const std::vector<te::Var>& v) { return te::call(te::Intrinsic::Tanh, {A(v[0])}); },
        "L", {"i"});
    const tir::PrimFunc log_f = lower_text({{"A", A}, {"L", L}}, R"(s = te.create_schedule(L.op)
xo, xi = s[L].split(L.op.axis[0], factor=256)
s[L].bind(xo, te.thread_axis("blockIdx.x"))
s[L].bind(xi, te.thread_axis("threadIdx.x"))
)",
                                           {"A", "L"}, "log");
    const QString message = error_of([&] { ptx_of(log_f); });
    QVERIFY2(message.contains("tanh of float64 is not available on cuda"), qPrintable(message));
  }

  // The polynomials the cuda target emits, JIT-compiled for this CPU, against
  // libm in double: the error bound of each (relative, or absolute near a
  // zero of the function), well inside the 1e-4 a model's output may move.
  void polynomialMathMatchesLibm_data() {
    QTest::addColumn<int>("op");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("log") << int(te::Intrinsic::Log) << 1e-30 << 1e30 << 3e-7;
    QTest::newRow("log near 1") << int(te::Intrinsic::Log) << 0.5 << 2.0 << 3e-7;
    QTest::newRow("exp") << int(te::Intrinsic::Exp) << -87.0 << 88.0 << 3e-7;
    QTest::newRow("sin") << int(te::Intrinsic::Sin) << -100.0 << 100.0 << 3e-7;
    QTest::newRow("cos") << int(te::Intrinsic::Cos) << -100.0 << 100.0 << 3e-7;
    QTest::newRow("tanh") << int(te::Intrinsic::Tanh) << -10.0 << 10.0 << 1e-6;
    QTest::newRow("erf") << int(te::Intrinsic::Erf) << -5.0 << 5.0 << 1e-6;
    QTest::newRow("pow") << int(te::Intrinsic::Pow) << 1e-3 << 1e3 << 6e-6;
    QTest::newRow("tan") << int(te::Intrinsic::Tan) << -1.5 << 1.5 << 5e-7;
    QTest::newRow("tan far") << int(te::Intrinsic::Tan) << -100.0 << 100.0 << 5e-7;
    QTest::newRow("asin") << int(te::Intrinsic::Asin) << -1.0 << 1.0 << 3e-7;
    QTest::newRow("acos") << int(te::Intrinsic::Acos) << -1.0 << 1.0 << 3e-7;
    QTest::newRow("atan") << int(te::Intrinsic::Atan) << -1e4 << 1e4 << 3e-7;
    QTest::newRow("atan near 0") << int(te::Intrinsic::Atan) << -3.0 << 3.0 << 3e-7;
    QTest::newRow("sinh") << int(te::Intrinsic::Sinh) << -89.0 << 89.0 << 5e-7;
    QTest::newRow("sinh near 0") << int(te::Intrinsic::Sinh) << -2.0 << 2.0 << 3e-7;
    QTest::newRow("cosh") << int(te::Intrinsic::Cosh) << -89.0 << 89.0 << 5e-7;
    QTest::newRow("asinh") << int(te::Intrinsic::Asinh) << -1e6 << 1e6 << 3e-7;
    QTest::newRow("asinh near 0") << int(te::Intrinsic::Asinh) << -2.0 << 2.0 << 3e-7;
    QTest::newRow("acosh") << int(te::Intrinsic::Acosh) << 1.0 << 1e30 << 3e-7;
    QTest::newRow("acosh near 1") << int(te::Intrinsic::Acosh) << 1.0 << 3.0 << 3e-7;
    QTest::newRow("atanh") << int(te::Intrinsic::Atanh) << -0.9999 << 0.9999 << 3e-7;
  }
  void polynomialMathMatchesLibm() {
    QFETCH(int, op);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(double, tolerance);
    const auto intrinsic = te::Intrinsic(op);
    // Points spread geometrically where the range spans magnitudes, evenly
    // where it crosses zero.
    const int n = 20000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      const double t = double(i) / (n - 1);
      x[i] = float(lo > 0 ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t);
      y[i] = float(-6.0 + 12.0 * std::fmod(t * 7919.0, 1.0));  // pow's exponents in [-6, 6]
    }
    const std::vector<float> got = codegen::evaluate_polynomial_math(intrinsic, x, y);
    double worst = 0;
    int worst_at = 0;
    for (int i = 0; i < n; ++i) {
      const double xi = x[i];
      double want = 0;
      switch (intrinsic) {
        case te::Intrinsic::Log:
          want = std::log(xi);
          break;
        case te::Intrinsic::Exp:
          want = std::exp(xi);
          break;
        case te::Intrinsic::Sin:
          want = std::sin(xi);
          break;
        case te::Intrinsic::Cos:
          want = std::cos(xi);
          break;
        case te::Intrinsic::Tanh:
          want = std::tanh(xi);
          break;
        case te::Intrinsic::Erf:
          want = std::erf(xi);
          break;
        case te::Intrinsic::Pow:
          want = std::pow(xi, double(y[i]));
          break;
        default:
          want = libm_of(intrinsic, xi);
      }
      // Relative error, absolute below 1 in magnitude (sin, log at zeros).
      const double error = std::fabs(got[i] - want) / std::max(1.0, std::fabs(want));
      if (!(error <= worst)) {
        worst = error;
        worst_at = i;
      }
    }
    QVERIFY2(worst <= tolerance,
             qPrintable(QString("%1(%2%3) = %4, libm %5: error %6")
                            .arg(te::intrinsic_name(intrinsic))
                            .arg(x[worst_at])
                            .arg(intrinsic == te::Intrinsic::Pow ? QString(", %1").arg(y[worst_at])
                                                                 : QString())
                            .arg(got[worst_at])
                            .arg(intrinsic == te::Intrinsic::Pow
                                     ? std::pow(double(x[worst_at]), double(y[worst_at]))
                                     : 0.0)
                            .arg(worst)));
  }

  // C's special values: the ends of each function's domain, the signs of pow.
  void polynomialMathSpecialValues() {
    const float inf = INFINITY, nan = NAN;
    const std::vector<float> log = codegen::evaluate_polynomial_math(
        te::Intrinsic::Log, {0.0f, -1.0f, inf, nan, 1.0f, 1e-40f});
    QCOMPARE(log[0], -inf);
    QVERIFY(std::isnan(log[1]));
    QCOMPARE(log[2], inf);
    QVERIFY(std::isnan(log[3]));
    QCOMPARE(log[4], 0.0f);
    QVERIFY(std::fabs(log[5] - std::log(1e-40)) < 1e-4);  // a denormal
    const std::vector<float> pow = codegen::evaluate_polynomial_math(
        te::Intrinsic::Pow, {-2.0f, -2.0f, -2.0f, 0.0f, 0.0f, 5.0f, 1.0f},
        {2.0f, 3.0f, 0.5f, 2.0f, 0.0f, 0.0f, nan});
    QVERIFY(std::fabs(pow[0] - 4.0f) < 1e-5f);
    QVERIFY(std::fabs(pow[1] + 8.0f) < 1e-5f);
    QVERIFY(std::isnan(pow[2]));
    QCOMPARE(pow[3], 0.0f);
    QCOMPARE(pow[4], 1.0f);
    QCOMPARE(pow[5], 1.0f);
    QCOMPARE(pow[6], 1.0f);
    const std::vector<float> sin =
        codegen::evaluate_polynomial_math(te::Intrinsic::Sin, {inf, nan, -0.5f});
    QVERIFY(std::isnan(sin[0]) && std::isnan(sin[1]));
    QVERIFY(std::fabs(sin[2] - std::sin(-0.5f)) < 1e-7f);
    // The inverse functions at and past the ends of their domains.
    const std::vector<float> asin =
        codegen::evaluate_polynomial_math(te::Intrinsic::Asin, {1.0f, -1.0f, 1.5f, nan});
    QVERIFY(std::fabs(asin[0] - float(M_PI / 2)) < 1e-7f && asin[1] == -asin[0]);
    QVERIFY(std::isnan(asin[2]) && std::isnan(asin[3]));
    const std::vector<float> acos =
        codegen::evaluate_polynomial_math(te::Intrinsic::Acos, {1.0f, -1.0f, -1.5f});
    QCOMPARE(acos[0], 0.0f);
    QVERIFY(std::fabs(acos[1] - float(M_PI)) < 1e-6f && std::isnan(acos[2]));
    const std::vector<float> atan =
        codegen::evaluate_polynomial_math(te::Intrinsic::Atan, {inf, -inf, -0.0f});
    QVERIFY(std::fabs(atan[0] - float(M_PI / 2)) < 1e-7f && atan[1] == -atan[0]);
    QVERIFY(atan[2] == 0.0f && std::signbit(atan[2]));
    const std::vector<float> atanh =
        codegen::evaluate_polynomial_math(te::Intrinsic::Atanh, {1.0f, -1.0f, 2.0f});
    QVERIFY(atanh[0] == inf && atanh[1] == -inf && std::isnan(atanh[2]));
    const std::vector<float> acosh =
        codegen::evaluate_polynomial_math(te::Intrinsic::Acosh, {1.0f, 0.5f, inf});
    QVERIFY(acosh[0] == 0.0f && std::isnan(acosh[1]) && acosh[2] == inf);
    const std::vector<float> sinh =
        codegen::evaluate_polynomial_math(te::Intrinsic::Sinh, {-inf, 89.4f, 90.0f});
    QVERIFY(sinh[0] == -inf && std::isfinite(sinh[1]) && sinh[2] == inf);
    // float64: exp, log, and integer powers close enough to round exactly.
    const double dinf = INFINITY;
    const std::vector<double> exp64 = codegen::evaluate_polynomial_math_f64(
        te::Intrinsic::Exp, {dinf, -dinf, double(NAN), 0.0, 709.7, 800.0});
    QVERIFY(exp64[0] == dinf && exp64[1] == 0.0 && std::isnan(exp64[2]) && exp64[3] == 1.0);
    QVERIFY(std::isfinite(exp64[4]) && exp64[5] == dinf);
    // Near and below DBL_MIN: normal results to a few ulp, denormals as
    // close as their spacing, 0 past the least one.
    const std::vector<double> tiny = codegen::evaluate_polynomial_math_f64(
        te::Intrinsic::Exp, {-708.2, -708.39, -720.0, -744.0, -746.0});
    for (size_t i = 0; i < 2; ++i) {
      const double want = std::exp(i == 0 ? -708.2 : -708.39);
      QVERIFY2(std::fabs(tiny[i] - want) <= 1e-15 * want,
               qPrintable(QString("exp = %1, libm %2").arg(tiny[i]).arg(want)));
    }
    QVERIFY(std::fabs(tiny[2] - std::exp(-720.0)) <= 1e-15 * std::exp(-720.0) + 5e-324);
    QVERIFY(tiny[3] > 0 && std::fabs(tiny[3] - std::exp(-744.0)) <= 5e-324);
    QCOMPARE(tiny[4], 0.0);
    const std::vector<double> log64 =
        codegen::evaluate_polynomial_math_f64(te::Intrinsic::Log, {0.0, -1.0, dinf, 1.0, 1e-310});
    QVERIFY(log64[0] == -dinf && std::isnan(log64[1]) && log64[2] == dinf && log64[3] == 0.0);
    QVERIFY(std::fabs(log64[4] - std::log(1e-310)) < 1e-12);  // a denormal
    std::vector<double> bases, exponents;
    for (int base = -9; base <= 9; ++base)
      for (int e = 0; e <= 12; ++e) {
        bases.push_back(base);
        exponents.push_back(e);
      }
    const std::vector<double> pow64 =
        codegen::evaluate_polynomial_math_f64(te::Intrinsic::Pow, bases, exponents);
    for (size_t i = 0; i < bases.size(); ++i)
      QCOMPARE(std::round(pow64[i]), std::pow(bases[i], exponents[i]));
    QVERIFY(!error_of([] {
               codegen::evaluate_polynomial_math_f64(te::Intrinsic::Tanh, {1.0});
             }).isEmpty());
  }

  // float64 exp, log and pow against libm (a double model, and float ops
  // that accumulate in double, on a GPU).
  void polynomialMathFloat64MatchesLibm_data() {
    QTest::addColumn<int>("op");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::newRow("exp") << int(te::Intrinsic::Exp) << -708.0 << 709.0;
    QTest::newRow("exp near 0") << int(te::Intrinsic::Exp) << -2.0 << 2.0;
    QTest::newRow("log") << int(te::Intrinsic::Log) << 1e-300 << 1e300;
    QTest::newRow("log near 1") << int(te::Intrinsic::Log) << 0.5 << 2.0;
    QTest::newRow("pow") << int(te::Intrinsic::Pow) << 1e-3 << 1e3;
  }
  void polynomialMathFloat64MatchesLibm() {
    QFETCH(int, op);
    QFETCH(double, lo);
    QFETCH(double, hi);
    const auto intrinsic = te::Intrinsic(op);
    const int n = 20000;
    std::vector<double> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      const double t = double(i) / (n - 1);
      x[i] =
          lo > 0 ? std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))) : lo + (hi - lo) * t;
      y[i] = -6.0 + 12.0 * std::fmod(t * 7919.0, 1.0);
    }
    const std::vector<double> got = codegen::evaluate_polynomial_math_f64(intrinsic, x, y);
    double worst = 0;
    int worst_at = 0;
    for (int i = 0; i < n; ++i) {
      const double want = intrinsic == te::Intrinsic::Exp   ? std::exp(x[i])
                          : intrinsic == te::Intrinsic::Log ? std::log(x[i])
                                                            : std::pow(x[i], y[i]);
      const double error = std::fabs(got[i] - want) / std::max(1.0, std::fabs(want));
      if (!(error <= worst)) {
        worst = error;
        worst_at = i;
      }
    }
    // A few ulp; pow's grows with |y log x| (up to 41 here) as float32's does.
    const double tolerance = intrinsic == te::Intrinsic::Pow ? 2e-14 : 1e-15;
    QVERIFY2(worst <= tolerance, qPrintable(QString("%1(%2) = %3: error %4")
                                                .arg(te::intrinsic_name(intrinsic))
                                                .arg(x[worst_at], 0, 'g', 17)
                                                .arg(got[worst_at], 0, 'g', 17)
                                                .arg(worst)));
  }

  // A reduce loop bound to threadIdx.x: each thread folds its share of the
  // row into a local partial, the threads combine theirs (warp shuffles,
  // then shared memory across warps), and thread 0 writes the row.
  void crossThreadReductionLowers() {
    const Env env = row_sum_env(64, 1000);
    const tir::PrimFunc f = lower_text(env, cross_thread_row_sum(256), {"A", "R"}, "row_sum");
    const QString ir = QString::fromStdString(tir::to_string(f));
    // The structure: the bound reduce loop holds the partial's init, the
    // serial loop over the thread's share (its last step guarded: 1000 is
    // 3 x 256 + 232), the all-reduce and the store by thread 0.
    const qsizetype bound = ir.indexOf("threadIdx.x");
    const qsizetype init = ir.indexOf("R_partial[0] = 0.0f");
    const qsizetype serial = ir.indexOf("for ko in range");
    const qsizetype allreduce = ir.indexOf("thread_allreduce");
    const qsizetype store = ir.indexOf("if ki == 0:");
    QVERIFY2(bound >= 0 && init > bound && serial > init && allreduce > serial && store > allreduce,
             qPrintable(ir));
    QVERIFY2(ir.contains("if ki < 232:"), qPrintable(ir));
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.grid[0], int64_t(64));
    QCOMPARE(launch.block[0], int64_t(256));
    QCOMPARE(launch.shared_bytes, int64_t(8 * 4));  // the 8 warps' partials
    const QString ptx = QString::fromStdString(ptx_of(f));
    // Five butterfly steps within each warp, then the 8 warps' partials
    // through shared memory between two barriers.
    QCOMPARE(ptx.count("shfl.sync.bfly.b32"), 5);
    for (const char* piece :
         {".shared", "st.shared", "ld.shared", "bar.sync", ".maxntid 256, 1, 1"})
      QVERIFY2(ptx.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, ptx)));
    QVERIFY2(!ptx.contains(".local"), qPrintable(ptx));
    // One warp: the butterfly alone, no shared memory, no barrier.
    const QString warp = QString::fromStdString(
        ptx_of(lower_text(env, cross_thread_row_sum(32), {"A", "R"}, "row_sum")));
    QCOMPARE(warp.count("shfl.sync.bfly.b32"), 5);
    QVERIFY2(!warp.contains("bar.sync") && !warp.contains(".shared"), qPrintable(warp));
    // Half a warp: four steps, the lanes of the block masked.
    const QString half = QString::fromStdString(
        ptx_of(lower_text(env, cross_thread_row_sum(16), {"A", "R"}, "row_sum")));
    QCOMPARE(half.count("shfl.sync.bfly.b32"), 4);
    QVERIFY2(half.contains("65535"), qPrintable(half));
  }

  // Over threadIdx.y (rows of a block on x, each row's terms on y): the
  // threads' values through shared memory, no shuffles.
  void crossThreadReductionOverY() {
    const Env env = row_sum_env(64, 1000);
    const tir::PrimFunc f = lower_text(env, R"(s = te.create_schedule(R.op)
io, ii = s[R].split(R.op.axis[0], factor=32)
ko, ki = s[R].split(R.op.reduce_axis[0], factor=8)
s[R].bind(io, te.thread_axis("blockIdx.x"))
s[R].bind(ii, te.thread_axis("threadIdx.x"))
s[R].bind(ki, te.thread_axis("threadIdx.y"))
)",
                                       {"A", "R"}, "row_sum");
    const QString ir = QString::fromStdString(tir::to_string(f));
    QVERIFY2(ir.contains("T.attr(\"thread_allreduce_sum\", ki)") && ir.contains("if ki == 0:"),
             qPrintable(ir));
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.block[0], int64_t(32));
    QCOMPARE(launch.block[1], int64_t(8));
    QCOMPARE(launch.shared_bytes, int64_t(32 * 8 * 4));  // a value a thread
    const QString ptx = QString::fromStdString(ptx_of(f));
    QVERIFY2(!ptx.contains("shfl.sync"), qPrintable(ptx));
    QCOMPARE(ptx.count("bar.sync"), 2);
    QCOMPARE(ptx.count("ld.shared"), 8);
    for (const char* piece : {"%tid.y", "st.shared.f32", ".maxntid 32, 8, 1"})
      QVERIFY2(ptx.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, ptx)));
    if (has_ptxas()) {
      const QString errors = ptxas_errors(ptx.toStdString(), "row_sum_y");
      QVERIFY2(errors.isEmpty(), qPrintable(errors));
    }
  }

  // A group of x threads that is not a power of two does not line up with
  // the butterfly: its values go through shared memory, combined in a loop.
  void crossThreadReductionOfAnyWidth() {
    const Env env = row_sum_env(64, 1000);
    const tir::PrimFunc f = lower_text(env, cross_thread_row_sum(96), {"A", "R"}, "row_sum");
    const codegen::GpuLaunch launch = codegen::verify_gpu_func(f, Target::parse(kH100));
    QCOMPARE(launch.block[0], int64_t(96));
    QCOMPARE(launch.shared_bytes, int64_t(96 * 4));  // a value a thread
    const QString ptx = QString::fromStdString(ptx_of(f));
    QVERIFY2(!ptx.contains("shfl.sync"), qPrintable(ptx));
    QCOMPARE(ptx.count("bar.sync"), 2);
    QVERIFY2(ptx.contains("st.shared.f32") && ptx.contains("ld.shared.f32"), qPrintable(ptx));
    if (has_ptxas()) {
      const QString errors = ptxas_errors(ptx.toStdString(), "row_sum_96");
      QVERIFY2(errors.isEmpty(), qPrintable(errors));
    }
  }

  void crossThreadReductionIsRefusedWhereItCannotRun() {
    const Env env = row_sum_env(64, 1000);
    // Bound to threadIdx.z.
    QString message = error_of([&] {
      lower_text(env, R"(s = te.create_schedule(R.op)
ko, ki = s[R].split(R.op.reduce_axis[0], factor=32)
s[R].bind(R.op.axis[0], te.thread_axis("blockIdx.x"))
s[R].bind(ki, te.thread_axis("threadIdx.z"))
)",
                 {"A", "R"}, "row_sum");
    });
    QVERIFY2(message.contains("runs over threadIdx.x or threadIdx.y"), qPrintable(message));
    // On the CPU.
    message = error_of([&] {
      std::unique_ptr<schedule::Schedule> s =
          schedule::parse_schedule(cross_thread_row_sum(32), env);
      codegen::emit_llvm_ir(
          {tir::lower(*s, {env.at("A"), env.at("R")}, "row_sum", {.record_ir = false}).func},
          Target::host());
    });
    QVERIFY2(message.contains("GPU target"), qPrintable(message));
  }

  void ptxasAcceptsThePtx_data() {
    QTest::addColumn<QString>("kernel");
    QTest::newRow("elementwise") << "add";
    QTest::newRow("shared reduction") << "row_sum";
    QTest::newRow("polynomial math") << "sigmoid";
    QTest::newRow("cross-thread reduction") << "cross_thread";
  }
  void ptxasAcceptsThePtx() {
    QFETCH(QString, kernel);
    if (!has_ptxas())
      QSKIP(
          "no CUDA ptxas at /usr/local/cuda/bin/ptxas (not a Debian package); the PTX is "
          "checked by its text alone");
    tir::PrimFunc f;
    if (kernel == "add") f = lower_text(add_env(4096), kBoundAdd, {"A", "B", "C"}, "add");
    if (kernel == "row_sum")
      f = lower_text(row_sum_env(256, 64), kSharedRowSum, {"A", "R"}, "row_sum");
    if (kernel == "sigmoid")
      f = lower_text(sigmoid_env(1 << 14), R"(s = te.create_schedule(S.op)
xo, xi = s[S].split(S.op.axis[0], factor=256)
s[S].bind(xo, te.thread_axis("blockIdx.x"))
s[S].bind(xi, te.thread_axis("threadIdx.x"))
)",
                     {"A", "S"}, "sigmoid");
    if (kernel == "cross_thread")
      f = lower_text(row_sum_env(64, 1000), cross_thread_row_sum(256), {"A", "R"}, "row_sum");
    const QString errors = ptxas_errors(ptx_of(f), kernel);
    QVERIFY2(errors.isEmpty(), qPrintable(errors));
  }

  void verifierRefusesWhatTheDeviceCannotRun_data() {
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unbound") << "s = te.create_schedule(C.op)\n"
                             << kH100
                             << "loop 'i' (extent 4096) is outside every thread-bound loop";
    QTest::newRow("threads") << R"(s = te.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=2048)
s[C].bind(xo, te.thread_axis("blockIdx.x"))
s[C].bind(xi, te.thread_axis("threadIdx.x"))
)" << kH100
                             << "threads per block (2048 x 1 x 1 = 2048) exceed the target's "
                                "-max_threads_per_block=1024";
    QTest::newRow("threads of the target") << kBoundAdd << "cuda -max_threads_per_block=64"
                                           << "-max_threads_per_block=64";
    QTest::newRow("parallel") << R"(s = te.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=128)
s[C].parallel(xo)
s[C].bind(xi, te.thread_axis("threadIdx.x"))
)" << kH100 << "loop 'xo' is parallel";
    QTest::newRow("unbound outer loop") << R"(s = te.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=128)
s[C].bind(xi, te.thread_axis("threadIdx.x"))
)" << kH100 << "did you forget to bind?";
  }
  void verifierRefusesWhatTheDeviceCannotRun() {
    QFETCH(QString, schedule);
    QFETCH(QString, target);
    QFETCH(QString, expected);
    const QString message = error_of([&] {
      const tir::PrimFunc f = lower_text(add_env(4096), schedule.toStdString(), {"A", "B", "C"},
                                         "add", target.toStdString());
      ptx_of(f, target.toStdString());
    });
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(message.contains("kernel 'add'"), qPrintable(message));
  }

  void verifierRefusesTooMuchSharedMemory() {
    const std::string target = "cuda -arch=sm_90 -max_shared_memory_per_block=4096";
    const QString message = error_of([&] {
      ptx_of(lower_text(row_sum_env(256, 64), kSharedRowSum, {"A", "R"}, "row_sum", target),
             target);
    });
    QVERIFY2(message.contains("shared memory (8192 bytes) exceeds the target's "
                              "-max_shared_memory_per_block=4096"),
             qPrintable(message));
  }

  // A local copy of a whole row per thread (8192 floats): a region grown by
  // the loop inside its attach point, not a register block.
  void verifierRefusesLargeBuffersPerThread() {
    const QString message = error_of([&] {
      ptx_of(lower_text(row_sum_env(256, 8192), R"(s = te.create_schedule(R.op)
xo, xi = s[R].split(R.op.axis[0], factor=64)
s[R].bind(xo, te.thread_axis("blockIdx.x"))
s[R].bind(xi, te.thread_axis("threadIdx.x"))
AL = s.cache_read(A, "local", [R])
s[AL].compute_at(s[R], xi)
)",
                        {"A", "R"}, "row_sum"),
             kH100);
    });
    QVERIFY2(message.contains("(32768 bytes) brings what each thread holds at once to") &&
                 message.contains("over the 16384"),
             qPrintable(message));
  }

  void gpuCodeIsNotRunOrLinkedOnTheCpu() {
    const tir::PrimFunc f = lower_text(add_env(4096), kBoundAdd, {"A", "B", "C"}, "add");
    QString message = error_of([&] { codegen::jit_compile(f, Target::parse(kH100)); });
    QVERIFY2(message.contains("is a GPU"), qPrintable(message));
    message = error_of([&] { codegen::emit_object({f}, Target::parse(kH100)); });
    QVERIFY2(message.contains("PTX"), qPrintable(message));
    // A kernel lowered for cuda does not go into a CPU module.
    message = error_of([&] { codegen::emit_llvm_ir({f}, Target::host()); });
    QVERIFY2(
        message.contains("lowered for 'cuda -arch=sm_90'") && message.contains("one target kind"),
        qPrintable(message));
  }
};

QTEST_GUILESS_MAIN(TestCodegenNvptx)
#include "tst_codegen_nvptx.moc"
