// What ONNX changed in the opsets after 17, the newest that libonnx 1.12
// knows: which ops each opset from 18 on introduced, and which ops it changed
// in meaning rather than only in the types it accepts. The importer asks this
// table two questions: may libonnx's opset-17 schema check a node of a newer
// model (its meaning has not changed since 17), and in which opset did an op
// that Lathe lacks appear (so that a refusal names it).
#pragma once

#include <optional>
#include <string_view>

namespace lathe::onnx_frontend {

// The newest default-domain opset whose schemas libonnx knows.
constexpr int kLibonnxOpset = 17;

// The opset that introduced `op` when that opset is newer than
// kLibonnxOpset (Gelu: 20); nullopt for ops libonnx knows or that the
// table does not list.
std::optional<int> opset_introducing(std::string_view op);

// Whether a node of `op` in a model of `opset` means what it meant at
// kLibonnxOpset: every version of the op up to `opset` changed only the
// types it accepts. Such a node is checked against libonnx's schema;
// others are checked by Lathe's own inference alone.
bool same_meaning_as_libonnx(std::string_view op, int opset);

// The newest opset after kLibonnxOpset in which `op` changed in meaning, up
// to `opset`; nullopt when it did not.
std::optional<int> last_meaning_change(std::string_view op, int opset);

}  // namespace lathe::onnx_frontend
