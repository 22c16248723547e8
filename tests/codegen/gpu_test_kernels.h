// Tensor expressions and schedules (in TVM's text) shared by the tests of the
// cuda code generator and the GPU simulator, and their lowering for a GPU.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../gpu_test_support.h"
#include "schedule/schedule_text.h"
#include "te/tensor.h"
#include "tir/lower.h"

namespace lathe::testing {

using Env = std::map<std::string, te::Tensor>;

// C[i, j] = sum_k A[i, k] * B[k, j].
inline Env matmul_env(int64_t m, int64_t n, int64_t k) {
  const te::DataType f32 = te::DataType::Float(32);
  te::Tensor A = te::placeholder({m, k}, f32, "A");
  te::Tensor B = te::placeholder({k, n}, f32, "B");
  te::IterVar r = te::reduce_axis(k, "k");
  te::Tensor C = te::compute({m, n},
                             [&](const std::vector<te::Var>& v) {
                               return te::sum(A(v[0], r.var()) * B(r.var(), v[1]), {r});
                             },
                             "C", {"i", "j"});
  return {{"A", A}, {"B", B}, {"C", C}};
}

// R[i] = sum_k A[i, k].
inline Env row_sum_env(int64_t rows, int64_t cols) {
  te::Tensor A = te::placeholder({rows, cols}, te::DataType::Float(32), "A");
  te::IterVar k = te::reduce_axis(cols, "k");
  te::Tensor R = te::compute(
      {rows}, [&](const std::vector<te::Var>& v) { return te::sum(A(v[0], k.var()), {k}); }, "R",
      {"i"});
  return {{"A", A}, {"R", R}};
}

// The row sum with one block per row, the row's columns over `threads`
// threads that combine their partial sums (a cross-thread reduction).
inline std::string cross_thread_row_sum(int threads) {
  return "s = te.create_schedule(R.op)\n"
         "ko, ki = s[R].split(R.op.reduce_axis[0], factor=" +
         std::to_string(threads) +
         ")\n"
         "s[R].bind(R.op.axis[0], te.thread_axis(\"blockIdx.x\"))\n"
         "s[R].bind(ki, te.thread_axis(\"threadIdx.x\"))\n";
}

// Appended to a matrix product's schedule whose thread loop computes CL (a
// cache_write of C): at each step of 8 k, A's and B's tiles are fetched into
// shared memory by all the block's 8 x 8 threads together.
inline constexpr const char* kGemmSharedFetch = R"(AS = s.cache_read(A, "shared", [CL])
BS = s.cache_read(B, "shared", [CL])
ko, ki = s[CL].split(CL.op.reduce_axis[0], factor=8)
s[CL].reorder(ko, ki, CL.op.axis[0], CL.op.axis[1])
s[AS].compute_at(s[CL], ko)
s[BS].compute_at(s[CL], ko)
fa = s[AS].fuse(AS.op.axis[0], AS.op.axis[1])
fao, fax = s[AS].split(fa, factor=8)
fao, fay = s[AS].split(fao, factor=8)
s[AS].bind(fay, te.thread_axis("threadIdx.y"))
s[AS].bind(fax, te.thread_axis("threadIdx.x"))
fb = s[BS].fuse(BS.op.axis[0], BS.op.axis[1])
fbo, fbx = s[BS].split(fb, factor=8)
fbo, fby = s[BS].split(fbo, factor=8)
s[BS].bind(fby, te.thread_axis("threadIdx.y"))
s[BS].bind(fbx, te.thread_axis("threadIdx.x"))
)";

// The schedule `text` of the tensors of `env` lowered for `target` into one
// kernel named `name` taking the tensors `args`.
inline tir::PrimFunc lower_text(const Env& env, const std::string& text,
                                const std::vector<std::string>& args, const std::string& name,
                                const std::string& target = kH100) {
  std::unique_ptr<schedule::Schedule> s = schedule::parse_schedule(text, env);
  std::vector<te::Tensor> tensors;
  for (const std::string& a : args) tensors.push_back(env.at(a));
  return tir::lower(*s, tensors, name, {.record_ir = false, .target = target}).func;
}

}  // namespace lathe::testing
