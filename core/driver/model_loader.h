// Loading a model for any client (CLI, studio, tests): the one entry point
// that knows about file formats.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "frontend/onnx/input_shapes.h"
#include "ir/graph.h"

namespace lathe::driver {

// A graph input as the model declares it, symbolic dimensions by name.
using DeclaredInput = onnx_frontend::DeclaredInput;
// A load that failed with some inputs' shapes left open (open_inputs(): what
// is known of them, batch 1): what a client asks the user for.
using OpenInputShapesError = onnx_frontend::OpenInputShapesError;

struct LoadOptions {
  std::map<std::string, Shape> input_shapes;  // --input-shapes
  // The shapes of the arrays given for the inputs (--inputs): they fix the
  // dimensions the model leaves symbolic; --input-shapes wins over them.
  std::map<std::string, Shape> input_arrays;
  // The arrays themselves: an input that decides a shape, an If's branch or a
  // Loop's length is frozen to its value (the compiled module is for it).
  std::map<std::string, Tensor> input_values;
  // An array that does not fit the model is left out with a note instead of
  // failing the load (arrays found beside the model rather than given).
  bool unfitting_arrays_are_notes = false;
  // What the load assumed (a symbolic batch dimension taken as 1), one
  // sentence each; unsaid when not set.
  std::function<void(const std::string&)> note;
};

// Throws DiagnosticError listing every problem (OpenInputShapesError when
// some inputs' shapes are left open), or Error for unreadable files.
Graph load_model(const std::string& path, const LoadOptions& options = {});
// Parses tvmc's --input-shapes text.
std::map<std::string, Shape> parse_input_shapes(const std::string& text);
// The shape of each array of an .npz file, by name: LoadOptions::input_arrays.
std::map<std::string, Shape> array_shapes_in(const std::string& npz_path);
// Why `shape` cannot be `input`'s (another rank, a fixed size changed);
// empty when it fits.
std::string shape_mismatch(const DeclaredInput& input, const Shape& shape);

}  // namespace lathe::driver
