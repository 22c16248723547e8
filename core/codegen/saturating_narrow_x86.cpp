// x86's saturating narrowing of int32 vectors to 8-bit integers, the end of
// a requantization: packssdw (int32 to int16, saturating) and packuswb or
// packsswb (int16 to uint8 or int8, saturating), as ONNX Runtime's
// MlasRequantizeOutput ends. Four vectors of int32 become one of bytes with
// two packssdw, one byte pack and a vpermd; the clamp and the truncation of
// each vector alone (vpmaxsd, vpmovusdb) took eight instructions, with four
// narrow stores where one full one does.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <cstdlib>
#include <vector>

#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

namespace {

// Lanes [first, first + count) of a vector.
llvm::Value* lanes_of(llvm::IRBuilder<>& b, llvm::Value* v, int first, int count) {
  std::vector<int> mask;
  for (int i = 0; i < count; ++i) mask.push_back(first + i);
  return b.CreateShuffleVector(v, mask);
}

}  // namespace

llvm::Value* CodeGenCPU::emit_saturating_narrow(const te::Expr& value, te::DataType to) {
  const std::string isa = target_.isa_features();
  auto has = [&](const char* feature) { return isa.find(feature) != std::string::npos; };
  // int32 lanes of one vector of the widest packs the target has.
  const int width = target_.vector_unit().bits >= 512 && has("+avx512bw") ? 16
                    : has("+avx2")                                        ? 8
                                                                          : 0;
  const int lanes = to.lanes;
  if (width == 0 || lanes % (2 * width) != 0) return nullptr;
  const bool quads = lanes % (4 * width) == 0;  // else pairs of vectors
  const int pieces_count = lanes / width / (quads ? 4 : 2);
  if ((pieces_count & (pieces_count - 1)) != 0) return nullptr;  // joined pairwise below
  const bool is_signed = to.code == te::DataType::Code::Int;
  const bool wide = width == 16;
  const llvm::Intrinsic::ID to_words =
      wide ? llvm::Intrinsic::x86_avx512_packssdw_512 : llvm::Intrinsic::x86_avx2_packssdw;
  const llvm::Intrinsic::ID to_bytes =
      is_signed
          ? (wide ? llvm::Intrinsic::x86_avx512_packsswb_512 : llvm::Intrinsic::x86_avx2_packsswb)
          : (wide ? llvm::Intrinsic::x86_avx512_packuswb_512 : llvm::Intrinsic::x86_avx2_packuswb);

  // A zero point added last is added to the int16 words, with saturation:
  // sat8(sat16(sat16(x) + z)) is sat8(x + z) for every int32 x while |z| is
  // far from the int16 limits (a saturated word stays outside the byte
  // range), and half as many vectors take the add.
  te::Expr x = value;
  const int64_t* zero_point = nullptr;
  if (value.kind() == te::ExprKind::Add) {
    const auto* add = value.as<te::BinaryNode>();
    const int64_t* z = te::as_const_int_lanes(add->b);
    if (z && std::llabs(*z) <= 16384) {
      x = add->a;
      zero_point = z;
    }
  }
  llvm::Value* v = emit_expr(x);
  llvm::Type* i16 = builder_.getInt16Ty();
  auto words = [&](llvm::Value* a, llvm::Value* b) {
    llvm::Value* w = builder_.CreateIntrinsic(to_words, {}, {a, b});
    if (zero_point)
      w = builder_.CreateBinaryIntrinsic(
          llvm::Intrinsic::sadd_sat, w,
          builder_.CreateVectorSplat(2 * width, llvm::ConstantInt::get(i16, *zero_point)));
    return w;
  };
  // The packs work within each 128-bit lane: after them the 32-bit group
  // 4 * l + k holds elements 4l..4l+3 of source vector k. A vpermd puts the
  // groups back in the sources' order.
  const int groups_per_vector = width / 4;
  auto in_order = [&](llvm::Value* bytes, int sources) {
    llvm::Value* dwords =
        builder_.CreateBitCast(bytes, llvm::FixedVectorType::get(builder_.getInt32Ty(), width));
    std::vector<int> order;
    for (int j = 0; j < sources * groups_per_vector; ++j)
      order.push_back(4 * (j % groups_per_vector) + j / groups_per_vector);
    llvm::Value* permuted = builder_.CreateShuffleVector(dwords, order);
    return builder_.CreateBitCast(
        permuted,
        llvm::FixedVectorType::get(builder_.getInt8Ty(), 4 * sources * groups_per_vector));
  };
  std::vector<llvm::Value*> pieces;
  const int step = quads ? 4 : 2;
  for (int first = 0; first < lanes / width; first += step) {
    auto source = [&](int k) { return lanes_of(builder_, v, (first + k) * width, width); };
    llvm::Value* low = words(source(0), source(1));
    llvm::Value* high = quads ? words(source(2), source(3)) : low;
    pieces.push_back(in_order(builder_.CreateIntrinsic(to_bytes, {}, {low, high}), step));
  }
  // Concatenated pairwise up to the whole vector.
  while (pieces.size() > 1) {
    std::vector<llvm::Value*> joined;
    const int n =
        static_cast<int>(llvm::cast<llvm::FixedVectorType>(pieces[0]->getType())->getNumElements());
    std::vector<int> both;
    for (int i = 0; i < 2 * n; ++i) both.push_back(i);
    for (size_t i = 0; i < pieces.size(); i += 2)
      joined.push_back(builder_.CreateShuffleVector(pieces[i], pieces[i + 1], both));
    pieces = std::move(joined);
  }
  return pieces[0];
}

}  // namespace lathe::codegen::detail
