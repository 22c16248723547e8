// The schedule text (schedule/schedule_text.h) on arbitrary bytes: parsed and
// executed on a small fixed compute, printed back and parsed again (the trace
// must survive, as tst_schedule_text checks on its mutants), then lowered to
// TIR through every pass and printed. The first byte picks the compute, the
// rest is the text:
//   0 gemm   C = A x packedB, B packed in panels (TVM's "optimize GEMM on CPU")
//   1 matmul C = A x B
//   2 chain  D = ((A + 1) * 2) + 1, three elementwise stages
//   3 conv   3x3 conv2d with its padding stage, as topi::conv2d_nchw
// Extents are small, so that unrolling every loop stays well inside the
// fuzzer's timeout. A lathe::Error is a rejected schedule; anything else
// escaping, a sanitizer report or a broken round trip is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/schedule_text.h"
#include "support/error.h"
#include "te/tensor.h"
#include "tir/lower.h"
#include "tir/printer.h"

namespace {

using namespace lathe;

struct Compute {
  std::map<std::string, te::Tensor> tensors;  // the names the text may use
  std::vector<te::Tensor> args;               // the kernel's parameters, as tvm.lower's
};

te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, int64_t n) {
  te::IterVar k = te::reduce_axis(n, "k");
  return te::compute({n, n},
                     [&](const std::vector<te::Var>& v) {
                       return te::sum(a(v[0], k.var()) * b(k.var(), v[1]), {k});
                     },
                     "C", {"i", "j"});
}

Compute gemm() {
  constexpr int64_t n = 32, bn = 8;
  te::Tensor A = te::placeholder({n, n}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n, n}, te::DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(n, "k");
  te::Tensor packedB = te::compute(
      {n / bn, n, bn}, [&](const std::vector<te::Var>& v) { return B(v[1], v[0] * bn + v[2]); },
      "packedB", {"bigN", "k", "littleN"});
  te::Tensor C =
      te::compute({n, n},
                  [&](const std::vector<te::Var>& v) {
                    return te::sum(A(v[0], k.var()) * packedB(v[1] / bn, k.var(), v[1] % bn), {k});
                  },
                  "C", {"m", "n"});
  return {{{"A", A}, {"B", B}, {"packedB", packedB}, {"C", C}}, {A, B, C}};
}

Compute plain_matmul() {
  constexpr int64_t n = 32;
  te::Tensor A = te::placeholder({n, n}, te::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n, n}, te::DataType::Float(32), "B");
  te::Tensor C = matmul(A, B, n);
  return {{{"A", A}, {"B", B}, {"C", C}}, {A, B, C}};
}

Compute chain() {
  constexpr int64_t n = 64;
  te::Tensor A = te::placeholder({n}, te::DataType::Float(32), "A");
  te::Tensor B =
      te::compute({n}, [&](const std::vector<te::Var>& v) { return A(v[0]) + 1.0f; }, "B", {"i"});
  te::Tensor C =
      te::compute({n}, [&](const std::vector<te::Var>& v) { return B(v[0]) * 2.0f; }, "C", {"i"});
  te::Tensor D =
      te::compute({n}, [&](const std::vector<te::Var>& v) { return C(v[0]) + 1.0f; }, "D", {"i"});
  return {{{"A", A}, {"B", B}, {"C", C}, {"D", D}}, {A, D}};
}

// out[n, f, y, x] = sum_{c, ry, rx} pad(X)[n, c, y + ry, x + rx] * W[f, c, ry, rx], with
// the padding a stage of its own, as topi::conv2d_nchw writes it.
Compute conv() {
  constexpr int64_t c = 4, h = 8, w = 8, f = 4, k = 3;
  te::Tensor X = te::placeholder({1, c, h, w}, te::DataType::Float(32), "X");
  te::Tensor W = te::placeholder({f, c, k, k}, te::DataType::Float(32), "W");
  te::Tensor pad = te::compute({1, c, h + 2, w + 2},
                               [&](const std::vector<te::Var>& v) {
                                 te::Expr y = v[2] - te::make_int(1), x = v[3] - te::make_int(1);
                                 te::Expr inside =
                                     y >= 0 && y < te::make_int(h) && x >= 0 && x < te::make_int(w);
                                 return te::select(inside, X(v[0], v[1], y, x), te::Expr(0.0f));
                               },
                               "conv_pad", {"n", "c", "y", "x"});
  te::IterVar rc = te::reduce_axis(c, "rc"), ry = te::reduce_axis(k, "ry"),
              rx = te::reduce_axis(k, "rx");
  te::Tensor out =
      te::compute({1, f, h, w},
                  [&](const std::vector<te::Var>& v) {
                    return te::sum(pad(v[0], rc.var(), v[2] + ry.var(), v[3] + rx.var()) *
                                       W(v[1], rc.var(), ry.var(), rx.var()),
                                   {rc, ry, rx});
                  },
                  "conv", {"nn", "ff", "yy", "xx"});
  return {{{"X", X}, {"W", W}, {"conv_pad", pad}, {"conv", out}}, {X, W, out}};
}

[[noreturn]] void report(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_schedule_text: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// parse_schedule(print_schedule(s)) must replay the same trace.
void check_round_trip(const schedule::Schedule& s, const Compute& c) {
  std::string printed;
  try {
    printed = schedule::print_schedule(s);
  } catch (const Error&) {
    return;  // a trace with no text form (a rebound name) is reported, not printed
  }
  try {
    std::unique_ptr<schedule::Schedule> again = schedule::parse_schedule(printed, c.tensors);
    if (again->trace() != s.trace()) report("the printed schedule replays another trace", printed);
  } catch (const schedule::ScheduleTextError& e) {
    report("the printed schedule does not parse", printed + "\n" + e.what());
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The computes are built once: schedules copy what they change.
  static const Compute computes[] = {gemm(), plain_matmul(), chain(), conv()};
  const Compute& c = computes[data[0] % std::size(computes)];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    std::unique_ptr<schedule::Schedule> s = schedule::parse_schedule(text, c.tensors);
    check_round_trip(*s, c);
    tir::LoweredFunc f = tir::lower(*s, c.args, "kernel", {.record_ir = false});
    tir::to_string(f.func);
  } catch (const Error&) {
  }
  return 0;
}
