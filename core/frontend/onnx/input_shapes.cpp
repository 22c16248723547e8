// tvmc's --input-shapes syntax: "name:[d0,d1,...]" entries.
#include <cctype>

#include "frontend/onnx/onnx_import.h"
#include "support/error.h"

namespace lathe::onnx_frontend {

std::map<std::string, Shape> parse_input_shapes(const std::string& text) {
  std::map<std::string, Shape> shapes;
  size_t i = 0;
  auto skip_separators = [&] {
    while (i < text.size() && (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == ','))
      ++i;
  };
  skip_separators();
  while (i < text.size()) {
    size_t colon = text.find(":[", i);
    LATHE_CHECK(colon != std::string::npos,
                "--input-shapes: expected 'name:[d0,d1,...]' at column ", i + 1, " of \"", text,
                "\"");
    std::string name = text.substr(i, colon - i);
    LATHE_CHECK(!name.empty(), "--input-shapes: empty input name at column ", i + 1);
    size_t close = text.find(']', colon);
    LATHE_CHECK(close != std::string::npos, "--input-shapes: missing ']' for '", name, "'");
    Shape shape;
    std::string dims = text.substr(colon + 2, close - colon - 2);
    size_t p = 0;
    while (p < dims.size()) {
      while (p < dims.size() && (dims[p] == ' ' || dims[p] == ',')) ++p;
      if (p >= dims.size()) break;
      size_t used = 0;
      int64_t d = -1;
      try {
        d = std::stoll(dims.substr(p), &used);
      } catch (const std::exception&) {
        fail(str("--input-shapes: '", name, "' has a non-integer dimension in [", dims, "]"));
      }
      LATHE_CHECK(d >= 0, "--input-shapes: '", name, "' has negative dimension ", d);
      shape.push_back(d);
      p += used;
    }
    LATHE_CHECK(shapes.emplace(name, shape).second, "--input-shapes: '", name, "' given twice");
    i = close + 1;
    skip_separators();
  }
  return shapes;
}

}  // namespace lathe::onnx_frontend
