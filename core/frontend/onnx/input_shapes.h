// The shapes of a model's graph inputs. A model may leave dimensions symbolic
// ("batch", "p2o.DynamicDimension.0"); Lathe's IR is static, so each one takes
// a value: from --input-shapes, from the array given for the input (--inputs),
// from another input that shares its symbol, or, for a batch dimension nothing
// fixes, 1, with a note saying so. Anything else left open is an error that
// names the input, the dimension and how to give it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "support/error.h"

namespace onnx {
class GraphProto;
}

namespace lathe::onnx_frontend {

// A runtime input as the model declares it (or, in ResolvedInputShapes::open,
// as far as it is known).
struct DeclaredInput {
  std::string name;
  bool has_shape = false;     // false: not even the rank is declared
  std::vector<int64_t> dims;  // -1 where symbolic
  std::vector<std::string>
      symbols;  // each dimension's name (dim_param); empty when fixed or unnamed
  // "x[p2o.DynamicDimension.0,3,48,W]": fixed sizes, symbols by name, '?' when unnamed.
  std::string to_string() const;
};

// What the user gives for the inputs' shapes.
struct GivenInputShapes {
  // --input-shapes: taken as given, whatever the model declares (tvmc's override).
  std::map<std::string, Shape> overrides;
  // The shapes of the arrays given for inputs (--inputs): they must have the
  // declared rank and fixed sizes. Names of no input are ignored, since an
  // .npz often carries reference outputs too.
  std::map<std::string, Shape> arrays;
  // An array that does not fit is left out with a note instead of being a
  // problem (the studio's NAME.io.npz, whose runs fall back to random inputs).
  bool unfitting_arrays_are_notes = false;
};

struct ResolvedInputShapes {
  std::map<std::string, Shape> shapes;  // every input whose shape is known in full
  std::vector<std::string> notes;       // what was assumed (a batch dimension of 1)
  std::vector<Diagnostic> problems;     // contradictions, dimensions left without a value
  // The inputs left open, with what is known filled in: fixed sizes, values of
  // bound symbols, 1 for a batch dimension; -1 elsewhere. What a client that
  // can ask for shapes (the studio) prefills.
  std::vector<DeclaredInput> open;
};

ResolvedInputShapes resolve_input_shapes(const std::vector<DeclaredInput>& inputs,
                                         const GivenInputShapes& given);

// Why `shape` cannot be `input`'s (another rank, a fixed size changed), as a
// sentence about "the shape"; empty when it fits.
std::string shape_mismatch(const DeclaredInput& input, const Shape& shape);

// A failed import that left some inputs' shapes open: a client that can ask
// for them does so, prefilled with open_inputs().
class OpenInputShapesError : public DiagnosticError {
 public:
  OpenInputShapesError(std::string header, std::vector<Diagnostic> diagnostics,
                       std::vector<DeclaredInput> open);
  const std::vector<DeclaredInput>& open_inputs() const { return open_; }

 private:
  std::vector<DeclaredInput> open_;
};

// The importer's step: declares the graph's runtime inputs (not initializers),
// resolves their shapes from `overrides` and `arrays`, and writes the resolved
// ones into `graph` (forgetting the declared sizes downstream when one
// changed). Reports `overrides` that name no input among the problems.
ResolvedInputShapes apply_input_shapes(onnx::GraphProto& graph, const GivenInputShapes& given);

}  // namespace lathe::onnx_frontend
