#include "driver/gpu_schedule_check.h"

#include <regex>
#include <sstream>

namespace lathe::driver {

namespace {

// One `s[T].bind(LOOP, te.thread_axis("TAG"))` of the text; line and column
// 1-based, the column that of LOOP.
struct BindSite {
  int line = 0, column = 0;
  std::string loop, tag;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<BindSite> bind_sites(const std::vector<std::string>& lines) {
  static const std::regex bind(
      R"(\.bind\(\s*([A-Za-z_][\w.\[\]]*)\s*,\s*te\.thread_axis\(\s*"([^"]*)\"\s*\))");
  std::vector<BindSite> sites;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_search(lines[i], m, bind))
      sites.push_back(
          {static_cast<int>(i) + 1, static_cast<int>(m.position(1)) + 1, m[1].str(), m[2].str()});
  }
  return sites;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The first line where `word` stands alone (not inside a longer name), with
// its 1-based column; {0, 0} when none.
std::pair<int, int> first_word(const std::vector<std::string>& lines, const std::string& word) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    for (size_t at = line.find(word); at != std::string::npos; at = line.find(word, at + 1)) {
      const size_t end = at + word.size();
      if ((at == 0 || !is_word_char(line[at - 1])) &&
          (end == line.size() || !is_word_char(line[end])))
        return {static_cast<int>(i) + 1, static_cast<int>(at) + 1};
    }
  }
  return {0, 0};
}

}  // namespace

std::vector<schedule::ScheduleDiagnostic> gpu_verify_diagnostics(
    const std::string& schedule_text, const codegen::GpuVerifyError& error) {
  const std::vector<std::string> lines = lines_of(schedule_text);
  const std::vector<BindSite> binds = bind_sites(lines);
  const codegen::GpuVerifyError::Subject& subject = error.subject();
  const std::string message = error.what();
  std::vector<schedule::ScheduleDiagnostic> found;
  if (!subject.loop.empty()) {
    for (const BindSite& b : binds)
      if (b.loop == subject.loop) found.push_back({b.line, b.column, message});
    if (found.empty()) {
      const auto [line, column] = first_word(lines, subject.loop);
      if (line > 0) found.push_back({line, column, message});
    }
  } else if (!subject.thread_tag.empty()) {
    // "threadIdx" names every threadIdx axis (threads per block); a full tag one axis.
    const bool every_axis = subject.thread_tag.find('.') == std::string::npos;
    for (const BindSite& b : binds)
      if (every_axis ? b.tag.rfind(subject.thread_tag + ".", 0) == 0 : b.tag == subject.thread_tag)
        found.push_back({b.line, b.column, message});
  } else if (!subject.buffer.empty()) {
    // Where the buffer's stage is placed, else where the text first names it.
    const std::string placed = "s[" + subject.buffer + "].compute_at(";
    for (size_t i = 0; i < lines.size() && found.empty(); ++i)
      if (const size_t at = lines[i].find(placed); at != std::string::npos)
        found.push_back({static_cast<int>(i) + 1, static_cast<int>(at) + 1, message});
    if (found.empty()) {
      const auto [line, column] = first_word(lines, subject.buffer);
      if (line > 0) found.push_back({line, column, message});
    }
  } else if (!subject.scope.empty()) {
    const std::string literal = "\"" + subject.scope + "\"";
    for (size_t i = 0; i < lines.size(); ++i)
      if (const size_t at = lines[i].find(literal); at != std::string::npos)
        found.push_back({static_cast<int>(i) + 1, static_cast<int>(at) + 1, message});
  }
  if (found.empty()) {
    const auto [line, column] = first_word(lines, "create_schedule");
    found.push_back({line > 0 ? line : 1, line > 0 ? column : 1, message});
  }
  return found;
}

codegen::GpuLaunch verify_gpu_schedule(const std::string& schedule_text, const tir::PrimFunc& func,
                                       const Target& target) {
  try {
    return codegen::verify_gpu_func(func, target);
  } catch (const codegen::GpuVerifyError& e) {
    throw schedule::ScheduleTextError(gpu_verify_diagnostics(schedule_text, e));
  }
}

}  // namespace lathe::driver
