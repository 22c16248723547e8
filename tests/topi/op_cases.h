// Test support shared by the TOPI op tests: a case is one node (op,
// attributes, inputs that are random, fixed or compile-time constants); the
// cases of a test are built from placeholders through OpStrategyRegistry,
// scheduled with the op's group schedule (or the generic default), lowered and
// JIT-compiled as one module, run, and compared with the reference kernel:
// exactly for integers, within 1e-5 normalized error for floats.
#pragma once

#include <QStringList>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace lathe::testing {

// One input of a case: random values in [lo, hi], a fixed constant, or omitted.
struct Input {
  DType dtype = DType::Float32;
  Shape shape;
  double lo = -1, hi = 1;
  bool nonzero = false;  // replace zeros by one (divisors)
  Tensor constant;       // defined: this value, known at compile time unless runtime
  bool runtime = false;  // the fixed value above, passed at run time
  bool omitted = false;

  bool compile_time() const { return constant.defined() && !runtime; }
};

Input in(DType dtype, Shape shape, double lo = -1, double hi = 1);
Input f32(Shape shape, double lo = -1, double hi = 1);
Input nonzero(Input i);
Input constant(Tensor value);
Input runtime(Tensor value);
Input ints(std::vector<int64_t> values);
Input omitted();

struct Case {
  std::string op;
  Attributes attrs;
  std::vector<Input> inputs;
  int outputs = 1;
  std::string label = {};  // what the case varies, for messages
};

Attributes attrs(std::initializer_list<std::pair<std::string, Attribute>> list);

// Runs every case (inputs drawn from `seed`); one message per failing case.
QStringList run_cases(const std::vector<Case>& cases, uint32_t seed);

}  // namespace lathe::testing
