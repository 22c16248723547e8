// Tensor intrinsics, after TVM's te.TensorIntrin: a small computation a
// target does in one instruction (or a few), declared as a tensor
// expression that `tensorize` matches against a stage's innermost loops.
// The declaration is target-independent; each intrinsic lists the
// implementations that targets may have, keyed by the CPU features each
// needs, in order of preference. core/codegen emits the chosen one.
//
// The one family declared today is the int8 dot product of x86:
//   c[i] += sum_k int32(a[k]) * int32(b[i, k]),  i < lanes, k < 4
// with `a` uint8 (four bytes broadcast to every lane) and `b` int8 (the
// lanes' four bytes each, contiguous): AVX-512 VNNI's vpdpbusd, its 256-bit
// AVX-VNNI form, and an exact AVX2 sequence (vpmaddubsw, vpmaddwd, vpaddd).
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace lathe::te {

// How one target computes an intrinsic. `features` are LLVM feature names
// ("avx512vnni"); an implementation applies when the target has every one
// of them and vectors at least min_vector_bits wide.
struct TensorIntrinsicImpl {
  const char* isa;  // its name in messages and docs: "avx512_vnni"
  std::vector<const char*> features;
  int min_vector_bits = 0;
};

struct TensorIntrinsic {
  std::string name;  // what tensorize names: "dot_16x4_u8s8"
  std::string summary;
  // The declared computation: `output` computed from `inputs` (placeholders).
  // Its data axes then its reduce axes, in that order, are the loops a
  // tensorized region must consist of, innermost last.
  Tensor output;
  std::vector<Tensor> inputs;
  std::vector<TensorIntrinsicImpl> implementations;  // preferred first
  int64_t operations = 0;  // per call, a multiply-add counting 2: what the roofline counts

  const ComputeOpNode& compute() const { return *output.op().as_compute(); }
};

// Every declared intrinsic.
const std::vector<TensorIntrinsic>& tensor_intrinsics();
// By name; nullptr when there is none.
const TensorIntrinsic* find_tensor_intrinsic(const std::string& name);
// Its position in tensor_intrinsics(), which a lowered call records; throws
// for an intrinsic not from the table.
int tensor_intrinsic_id(const TensorIntrinsic& intrinsic);
const TensorIntrinsic& tensor_intrinsic_by_id(int id);
// "dot_16x4_u8s8, dot_8x4_u8s8": for messages that list what there is.
std::string tensor_intrinsic_names();

// The implementation a target with `features` (LLVM's "+avx2,+avx512vnni,..."
// string) and `vector_bits`-wide vectors uses; nullptr when it has none.
const TensorIntrinsicImpl* select_implementation(const TensorIntrinsic& intrinsic,
                                                 const std::string& features, int vector_bits);

// The call a tensorized region lowers to, evaluated for its effect:
// tensor_intrinsic(id, C[base], A[base], B[base]). The loads (ProducerLoad
// before storage flattening, Load after) are of the first elements of the
// output's and the inputs' regions, whose layout the match proved to be the
// declaration's. Typed as the output's element.
Expr tensor_intrinsic_call(int id, std::vector<Expr> operands);

}  // namespace lathe::te
