// ONNX's changelog (docs/Changelog.md) for opsets 18 to 24, reduced to what
// the importer needs. Versions that only widened an op's types (most of
// opsets 21 to 23: bfloat16, int4, float8, float4) are not listed: a node of
// such a version means what the opset-17 one meant.
#include "frontend/onnx/opset_changes.h"

#include <algorithm>
#include <array>

namespace lathe::onnx_frontend {
namespace {

enum class Change { Introduced, Meaning };

struct OpsetChange {
  std::string_view op;
  int opset;
  Change change;
};

constexpr auto kChanges = std::to_array<OpsetChange>({
    // 18
    {"BitwiseAnd", 18, Change::Introduced},
    {"BitwiseNot", 18, Change::Introduced},
    {"BitwiseOr", 18, Change::Introduced},
    {"BitwiseXor", 18, Change::Introduced},
    {"CenterCropPad", 18, Change::Introduced},
    {"Col2Im", 18, Change::Introduced},
    {"GroupNormalization", 18, Change::Introduced},
    {"Mish", 18, Change::Introduced},
    {"LpPool", 18, Change::Meaning},  // ceil_mode
    {"OptionalGetElement", 18, Change::Meaning},
    {"OptionalHasElement", 18, Change::Meaning},
    {"Pad", 18, Change::Meaning},       // the axes input
    {"ReduceL1", 18, Change::Meaning},  // axes became an input
    {"ReduceL2", 18, Change::Meaning},
    {"ReduceLogSum", 18, Change::Meaning},
    {"ReduceLogSumExp", 18, Change::Meaning},
    {"ReduceMax", 18, Change::Meaning},
    {"ReduceMean", 18, Change::Meaning},
    {"ReduceMin", 18, Change::Meaning},
    {"ReduceProd", 18, Change::Meaning},
    {"ReduceSumSquare", 18, Change::Meaning},
    {"Resize", 18, Change::Meaning},           // antialias, axes, keep_aspect_ratio_policy
    {"ScatterElements", 18, Change::Meaning},  // reduction max and min
    {"ScatterND", 18, Change::Meaning},
    {"Split", 18, Change::Meaning},  // num_outputs
    // 19
    {"AveragePool", 19, Change::Meaning},  // dilations
    {"Cast", 19, Change::Meaning},         // saturate (float8)
    {"CastLike", 19, Change::Meaning},
    {"DeformConv", 19, Change::Introduced},
    {"DequantizeLinear", 19, Change::Meaning},  // float8
    {"QuantizeLinear", 19, Change::Meaning},
    {"Pad", 19, Change::Meaning},     // mode wrap
    {"Resize", 19, Change::Meaning},  // half_pixel_symmetric
    // 20
    {"AffineGrid", 20, Change::Introduced},
    {"DFT", 20, Change::Meaning},  // axis became an input
    {"Gelu", 20, Change::Introduced},
    {"GridSample", 20, Change::Meaning},  // N-D; modes linear and cubic
    {"ImageDecoder", 20, Change::Introduced},
    {"RegexFullMatch", 20, Change::Introduced},
    {"StringConcat", 20, Change::Introduced},
    {"StringSplit", 20, Change::Introduced},
    // 21
    {"DequantizeLinear", 21, Change::Meaning},  // block_size, output_dtype
    {"QuantizeLinear", 21, Change::Meaning},
    {"GroupNormalization", 21, Change::Meaning},  // scale and bias per channel
    // 23
    {"Attention", 23, Change::Introduced},
    {"RMSNormalization", 23, Change::Introduced},
    {"RotaryEmbedding", 23, Change::Introduced},
    // 24
    {"Attention", 24, Change::Meaning},
    {"Swish", 24, Change::Introduced},
    {"TensorScatter", 24, Change::Introduced},
});

}  // namespace

std::optional<int> opset_introducing(std::string_view op) {
  for (const OpsetChange& c : kChanges)
    if (c.op == op && c.change == Change::Introduced) return c.opset;
  return std::nullopt;
}

std::optional<int> last_meaning_change(std::string_view op, int opset) {
  std::optional<int> last;
  for (const OpsetChange& c : kChanges)
    if (c.op == op && c.change == Change::Meaning && c.opset <= opset)
      last = std::max(last.value_or(0), c.opset);
  return last;
}

bool same_meaning_as_libonnx(std::string_view op, int opset) {
  return !last_meaning_change(op, opset).has_value();
}

}  // namespace lathe::onnx_frontend
