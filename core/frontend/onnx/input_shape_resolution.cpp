// Giving every symbolic dimension of a model's inputs a value (input_shapes.h).
#include <onnx/onnx_pb.h>

#include <set>

#include "frontend/onnx/input_shapes.h"

namespace lathe::onnx_frontend {

namespace {

std::string shape_text(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// "x:[1,3,48,?]": --input-shapes' syntax, '?' where a number is wanted.
std::string input_shapes_hint(const DeclaredInput& known) {
  std::string s = known.name + ":[";
  for (size_t i = 0; i < known.dims.size(); ++i)
    s += (i ? "," : "") + (known.dims[i] < 0 ? std::string("?") : std::to_string(known.dims[i]));
  return s + "]";
}

std::string symbol_text(const DeclaredInput& input, size_t dim) {
  return input.symbols[dim].empty() ? std::string("an unnamed symbol")
                                    : "'" + input.symbols[dim] + "'";
}

// The first dimension of an input of rank 2 or more: what exporters leave
// symbolic for the batch. A rank-1 input's only dimension is a length.
bool is_batch_dim(const DeclaredInput& input, size_t dim) {
  return dim == 0 && input.dims.size() >= 2;
}

}  // namespace

std::string DeclaredInput::to_string() const {
  if (!has_shape) return name + " (no shape)";
  std::string s = name + "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += i ? "," : "";
    if (dims[i] >= 0)
      s += std::to_string(dims[i]);
    else
      s += symbols[i].empty() ? "?" : symbols[i];
  }
  return s + "]";
}

std::string shape_mismatch(const DeclaredInput& input, const Shape& shape) {
  if (!input.has_shape) return {};
  if (shape.size() != input.dims.size())
    return str("the shape ", shape_text(shape), " has rank ", shape.size(),
               ", but the model declares ", input.to_string(), " of rank ", input.dims.size());
  for (size_t i = 0; i < shape.size(); ++i)
    if (input.dims[i] >= 0 && shape[i] != input.dims[i])
      return str("the shape ", shape_text(shape), " has ", shape[i], " in dimension ", i,
                 ", but the model declares ", input.to_string(), ", fixed at ", input.dims[i],
                 " there");
  return {};
}

ResolvedInputShapes resolve_input_shapes(const std::vector<DeclaredInput>& inputs,
                                         const GivenInputShapes& given) {
  ResolvedInputShapes out;
  // Symbol → value, from the shapes given: an input that shares a symbol with
  // a given one takes its value.
  std::map<std::string, int64_t> bound;
  auto bind = [&](const DeclaredInput& input, const Shape& shape) {
    if (!input.has_shape || shape.size() != input.dims.size()) return;
    for (size_t i = 0; i < shape.size(); ++i)
      if (input.dims[i] < 0 && !input.symbols[i].empty()) bound.emplace(input.symbols[i], shape[i]);
  };

  std::vector<const DeclaredInput*> rest;
  for (const DeclaredInput& input : inputs) {
    if (auto it = given.overrides.find(input.name); it != given.overrides.end()) {
      out.shapes[input.name] = it->second;
      bind(input, it->second);
    } else if (auto array = given.arrays.find(input.name); array != given.arrays.end()) {
      const std::string mismatch = shape_mismatch(input, array->second);
      if (mismatch.empty()) {
        out.shapes[input.name] = array->second;
        bind(input, array->second);
      } else if (given.unfitting_arrays_are_notes) {
        out.notes.push_back(
            str("the array given for input '", input.name, "' is left out: ", mismatch));
        rest.push_back(&input);
      } else {
        out.problems.push_back({Diagnostic::Kind::Invalid, "input '" + input.name + "'",
                                str("the array given for it does not fit: ", mismatch,
                                    " (--input-shapes changes what the model declares)")});
      }
    } else {
      rest.push_back(&input);
    }
  }

  // A batch dimension nothing gives defaults to 1, once per symbol.
  for (const DeclaredInput* input : rest) {
    if (!input->has_shape || !is_batch_dim(*input, 0) || input->dims[0] >= 0) continue;
    const std::string& symbol = input->symbols[0];
    if (!symbol.empty() && bound.count(symbol)) continue;
    if (!symbol.empty()) bound[symbol] = 1;
    out.notes.push_back(str("input '", input->name, "' has a symbolic batch dimension",
                            symbol.empty() ? std::string() : " '" + symbol + "'",
                            "; it is taken as 1 (--input-shapes sets another)"));
  }

  for (const DeclaredInput* input : rest) {
    if (!input->has_shape) {
      out.problems.push_back(
          {Diagnostic::Kind::Invalid, "input '" + input->name + "'",
           str("declares no shape; pass --input-shapes \"", input->name,
               ":[d0,d1,...]\" or an array named '", input->name, "' with --inputs")});
      out.open.push_back(*input);
      continue;
    }
    DeclaredInput known = *input;
    std::vector<size_t> open_dims;
    for (size_t i = 0; i < known.dims.size(); ++i) {
      if (known.dims[i] >= 0) continue;
      auto it = known.symbols[i].empty() ? bound.end() : bound.find(known.symbols[i]);
      if (it != bound.end())
        known.dims[i] = it->second;
      else if (is_batch_dim(known, i))
        known.dims[i] = 1;  // an unnamed batch dimension
      else
        open_dims.push_back(i);
    }
    if (open_dims.empty()) {
      out.shapes[input->name] = Shape(known.dims.begin(), known.dims.end());
      continue;
    }
    std::string which;
    for (size_t k = 0; k < open_dims.size(); ++k)
      which += (k == 0                      ? ""
                : k + 1 == open_dims.size() ? " and "
                                            : ", ") +
               str(open_dims[k], " (", symbol_text(*input, open_dims[k]), ")");
    out.problems.push_back(
        {Diagnostic::Kind::Invalid, "input '" + input->name + "'",
         str("the model leaves ", open_dims.size() == 1 ? "dimension " : "dimensions ", which,
             " of ", input->to_string(), " symbolic and nothing gives ",
             open_dims.size() == 1 ? "it" : "them", " a value; pass --input-shapes \"",
             input_shapes_hint(known), "\" with a number for each '?', or an array named '",
             input->name, "' with --inputs")});
    out.open.push_back(std::move(known));
  }
  return out;
}

OpenInputShapesError::OpenInputShapesError(std::string header, std::vector<Diagnostic> diagnostics,
                                           std::vector<DeclaredInput> open)
    : DiagnosticError(std::move(header), std::move(diagnostics)), open_(std::move(open)) {}

ResolvedInputShapes apply_input_shapes(onnx::GraphProto& graph, const GivenInputShapes& given) {
  std::set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::set<std::string> known;
  std::vector<DeclaredInput> declared;
  for (const auto& input : graph.input()) {
    known.insert(input.name());
    // Sequences and maps are refused where inputs are imported.
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    DeclaredInput d;
    d.name = input.name();
    d.has_shape = input.type().tensor_type().has_shape();
    for (const auto& dim : input.type().tensor_type().shape().dim()) {
      const bool fixed = dim.has_dim_value() && dim.dim_value() >= 0;
      d.dims.push_back(fixed ? dim.dim_value() : -1);
      d.symbols.push_back(fixed ? std::string() : dim.dim_param());
    }
    declared.push_back(std::move(d));
  }

  ResolvedInputShapes resolved = resolve_input_shapes(declared, given);
  for (const auto& [name, shape] : given.overrides)
    if (!known.count(name))
      resolved.problems.push_back({Diagnostic::Kind::Invalid, "--input-shapes",
                                   str("the model has no input named '", name, "'")});

  bool changed = false;
  for (auto& input : *graph.mutable_input()) {
    auto it = resolved.shapes.find(input.name());
    if (it == resolved.shapes.end()) continue;
    auto* dims = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    Shape declared_dims;
    for (const auto& d : dims->dim())
      declared_dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    if (declared_dims == it->second) continue;
    changed = true;
    dims->clear_dim();
    for (int64_t d : it->second) dims->add_dim()->set_dim_value(d);
  }
  // Declared shapes downstream of a changed input no longer hold: keep ranks,
  // forget sizes.
  if (changed) {
    graph.clear_value_info();
    for (auto& output : *graph.mutable_output())
      if (output.type().tensor_type().has_shape())
        for (auto& d :
             *output.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
          d.clear_dim_value();
  }
  return resolved;
}

}  // namespace lathe::onnx_frontend
