#include "te/tensor_intrinsic.h"

#include <sstream>

#include "support/error.h"

namespace lathe::te {
namespace {

// c[i] += sum_k int32(a[k]) * int32(b[i, k]) for i < lanes, k < 4: the
// declaration of vpdpbusd (u8 times s8, four products a lane, summed into
// int32 exactly: no intermediate saturation).
TensorIntrinsic dot_u8s8(int64_t lanes, std::vector<TensorIntrinsicImpl> implementations) {
  constexpr int64_t kGroup = 4;
  Tensor a = placeholder({kGroup}, DataType::UInt(8), "a");
  Tensor b = placeholder({lanes, kGroup}, DataType::Int(8), "b");
  IterVar k = reduce_axis(kGroup, "k");
  Tensor c = compute(
      {lanes},
      [&](const std::vector<Var>& i) {
        return sum(cast(DataType::Int(32), a(k.var())) * cast(DataType::Int(32), b(i[0], k.var())),
                   {k});
      },
      "c", {"i"});
  TensorIntrinsic intrinsic;
  intrinsic.name = str("dot_", lanes, "x4_u8s8");
  intrinsic.summary =
      str("c[i] += sum(int32(a[k]) * int32(b[i, k]), k < 4) for ", lanes,
          " int32 lanes: a uint8[4] broadcast, b int8[", lanes, ", 4] contiguous (vpdpbusd)");
  intrinsic.output = c;
  intrinsic.inputs = {a, b};
  intrinsic.implementations = std::move(implementations);
  intrinsic.operations = 2 * lanes * kGroup;
  return intrinsic;
}

std::vector<TensorIntrinsic> declare() {
  // The AVX2 form is exact (see docs/ARCHITECTURE.md, "Tensor intrinsics"):
  // it splits each activation byte's top bit off so that vpmaddubsw's int16
  // pair sums cannot saturate.
  const TensorIntrinsicImpl vnni512{"avx512_vnni", {"avx512vnni", "evex512"}, 512};
  const TensorIntrinsicImpl vnni256{"avx512_vnni_vl", {"avx512vnni", "avx512vl"}, 0};
  const TensorIntrinsicImpl avx_vnni{"avx_vnni", {"avxvnni"}, 0};
  const TensorIntrinsicImpl avx2{"avx2", {"avx2"}, 0};
  return {dot_u8s8(16, {vnni512, vnni256, avx_vnni, avx2}), dot_u8s8(8, {vnni256, avx_vnni, avx2})};
}

bool has_feature(const std::string& features, const char* name) {
  std::istringstream in(features);
  std::string item;
  while (std::getline(in, item, ','))
    if (item == std::string("+") + name) return true;
  return false;
}

}  // namespace

const std::vector<TensorIntrinsic>& tensor_intrinsics() {
  static const std::vector<TensorIntrinsic> table = declare();
  return table;
}

const TensorIntrinsic* find_tensor_intrinsic(const std::string& name) {
  for (const TensorIntrinsic& t : tensor_intrinsics())
    if (t.name == name) return &t;
  return nullptr;
}

int tensor_intrinsic_id(const TensorIntrinsic& intrinsic) {
  const auto& table = tensor_intrinsics();
  for (size_t i = 0; i < table.size(); ++i)
    if (&table[i] == &intrinsic) return static_cast<int>(i);
  throw Error(str("tensor intrinsic '", intrinsic.name, "' is not declared"));
}

const TensorIntrinsic& tensor_intrinsic_by_id(int id) {
  const auto& table = tensor_intrinsics();
  LATHE_CHECK(id >= 0 && id < static_cast<int>(table.size()), "no tensor intrinsic ", id);
  return table[static_cast<size_t>(id)];
}

std::string tensor_intrinsic_names() {
  std::string names;
  for (const TensorIntrinsic& t : tensor_intrinsics())
    names += (names.empty() ? "" : ", ") + t.name;
  return names;
}

const TensorIntrinsicImpl* select_implementation(const TensorIntrinsic& intrinsic,
                                                 const std::string& features, int vector_bits) {
  for (const TensorIntrinsicImpl& impl : intrinsic.implementations) {
    bool ok = vector_bits >= impl.min_vector_bits;
    for (const char* f : impl.features) ok = ok && has_feature(features, f);
    if (ok) return &impl;
  }
  return nullptr;
}

Expr tensor_intrinsic_call(int id, std::vector<Expr> operands) {
  const TensorIntrinsic& intrinsic = tensor_intrinsic_by_id(id);
  LATHE_CHECK(operands.size() == intrinsic.inputs.size() + 1, intrinsic.name, " takes ",
              intrinsic.inputs.size() + 1, " operands, got ", operands.size());
  for (const Expr& e : operands)
    LATHE_CHECK(e.kind() == ExprKind::Load || e.kind() == ExprKind::ProducerLoad, intrinsic.name,
                " takes loads, got ", kind_name(e.kind()));
  operands.insert(operands.begin(), make_int(id));
  return Expr(std::make_shared<const CallNode>(intrinsic.output.dtype(), Intrinsic::TensorIntrinsic,
                                               std::move(operands)));
}

}  // namespace lathe::te
