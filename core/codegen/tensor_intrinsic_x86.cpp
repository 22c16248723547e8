// The x86 implementations of the tensor intrinsics (te/tensor_intrinsic.h):
// the int8 dot products c[i] += sum_k a[k] * b[i, k] (a uint8 broadcast, b
// int8, four products a lane), as AVX-512 VNNI's vpdpbusd, its 256-bit form
// (AVX-512 VL or AVX-VNNI, which LLVM encodes with VEX where EVEX is absent),
// or an exact AVX2 sequence. The call's operands are loads of the regions'
// first elements; the intrinsic reads and writes whole vectors from there.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <string>

#include "codegen/llvm_codegen.h"
#include "support/error.h"
#include "te/tensor_intrinsic.h"

namespace lathe::codegen::detail {

llvm::Value* CodeGenCPU::emit_tensor_intrinsic(const te::CallNode* n) {
  const te::TensorIntrinsic& intrinsic =
      te::tensor_intrinsic_by_id(static_cast<int>(*te::as_const_int(n->args[0])));
  const std::string isa_features = target_.isa_features();
  const te::TensorIntrinsicImpl* impl =
      te::select_implementation(intrinsic, isa_features, target_.vector_unit().bits);
  if (!impl) {
    std::string wanted;
    for (const te::TensorIntrinsicImpl& i : intrinsic.implementations)
      wanted += (wanted.empty() ? "" : ", ") + std::string(i.isa);
    fail_at(str("tensorize: target '", target_.to_string(), "' has no implementation of ",
                intrinsic.name, " (it needs one of: ", wanted, ")"));
  }
  auto pointer = [&](const te::Expr& operand) {
    const auto* load = operand.as<te::LoadNode>();
    if (!load || load->type.lanes != 1)
      fail_at(str(intrinsic.name, " takes scalar loads of flat buffers"));
    llvm::Value* index = to_index(emit_expr(load->index), load->index.type());
    return builder_.CreateInBoundsGEP(memory_type(load->type), buffer_pointer(load->buffer), index);
  };
  llvm::Value* c_ptr = pointer(n->args[1]);
  llvm::Value* a_ptr = pointer(n->args[2]);
  llvm::Value* b_ptr = pointer(n->args[3]);
  const int lanes = static_cast<int>(intrinsic.output.shape()[0]);

  llvm::Type* i8 = builder_.getInt8Ty();
  llvm::Type* i16 = builder_.getInt16Ty();
  llvm::Type* i32 = builder_.getInt32Ty();
  // The four activation bytes, one int32 that every lane multiplies.
  llvm::Value* a_word = builder_.CreateAlignedLoad(i32, a_ptr, llvm::Align(1), "dot_a");
  const std::string isa = impl->isa;
  const int width = isa == "avx512_vnni" ? 16 : 8;  // int32 lanes of one instruction
  auto* acc_type = llvm::FixedVectorType::get(i32, static_cast<unsigned>(width));
  auto* byte_type = llvm::FixedVectorType::get(i8, static_cast<unsigned>(4 * width));
  for (int chunk = 0; chunk < lanes / width; ++chunk) {
    llvm::Value* c_at = builder_.CreateConstInBoundsGEP1_64(i32, c_ptr, chunk * width);
    llvm::Value* b_at = builder_.CreateConstInBoundsGEP1_64(i8, b_ptr, chunk * width * 4);
    llvm::Value* c = builder_.CreateAlignedLoad(acc_type, c_at, llvm::Align(4), "dot_c");
    llvm::Value* result = nullptr;
    if (isa != "avx2") {
      llvm::Value* b = builder_.CreateAlignedLoad(acc_type, b_at, llvm::Align(1), "dot_b");
      llvm::Value* a = builder_.CreateVectorSplat(static_cast<unsigned>(width), a_word);
      const llvm::Intrinsic::ID id = width == 16 ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                                 : llvm::Intrinsic::x86_avx512_vpdpbusd_256;
      result = builder_.CreateIntrinsic(id, {}, {c, a, b});
    } else {
      // vpmaddubsw sums two u8*s8 products into int16 with saturation, which
      // 255*-128*2 would reach. Exact instead: the activation's low seven
      // bits (pair sums within ±2*127*128) and its top bit (0 or 1, sums of
      // two weights) go through separate vpmaddubsw, and vpmaddwd adds the
      // pairs into int32, weighting the top bit's by 128.
      llvm::Value* b = builder_.CreateAlignedLoad(byte_type, b_at, llvm::Align(1), "dot_b");
      llvm::Value* low = builder_.CreateAnd(a_word, builder_.getInt32(0x7f7f7f7f));
      llvm::Value* high =
          builder_.CreateAnd(builder_.CreateLShr(a_word, 7), builder_.getInt32(0x01010101));
      auto bytes = [&](llvm::Value* word) {
        return builder_.CreateBitCast(builder_.CreateVectorSplat(8, word), byte_type);
      };
      auto pairs = [&](llvm::Value* a) {
        return builder_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_ub_sw, {}, {a, b});
      };
      auto quads = [&](llvm::Value* pair_sums, int weight) {
        llvm::Value* w = llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(16),
                                                        llvm::ConstantInt::get(i16, weight));
        return builder_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {pair_sums, w});
      };
      llvm::Value* sum =
          builder_.CreateAdd(quads(pairs(bytes(low)), 1), quads(pairs(bytes(high)), 128));
      result = builder_.CreateAdd(c, sum);
    }
    builder_.CreateAlignedStore(result, c_at, llvm::Align(4));
  }
  return llvm::PoisonValue::get(llvm_type(n->type));
}

}  // namespace lathe::codegen::detail
