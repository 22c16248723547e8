#include "schedule_diff_text.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace lathe::cli {

namespace {

using driver::AlignedRow;
using driver::RowChange;

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

char mark(RowChange change) {
  switch (change) {
    case RowChange::Same:
      return ' ';
    case RowChange::Changed:
      return '~';
    case RowChange::Removed:
      return '-';
    case RowChange::Added:
      return '+';
  }
  return '?';
}

std::string padded(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

// A line cut into pieces of at most `width` characters (one empty piece for
// an empty line).
std::vector<std::string> wrapped(const std::string& line, size_t width) {
  std::vector<std::string> pieces;
  for (size_t at = 0; at < line.size(); at += width) pieces.push_back(line.substr(at, width));
  if (pieces.empty()) pieces.emplace_back();
  return pieces;
}

void print_measurements(std::ostream& os, const driver::ScheduleDiff& diff) {
  const auto& ma = diff.a.measurement;
  const auto& mb = diff.b.measurement;
  if (!ma || !mb) {
    os << "(not measured)\n";
    return;
  }
  auto row = [&](const std::string& name, const std::string& a, const std::string& b) {
    os << "  " << padded(name, 12) << padded(a, 14) << b << "\n";
  };
  row("", "A", "B");
  row("median ms", fixed(ma->kernel.median_ms, 4), fixed(mb->kernel.median_ms, 4));
  row("best ms", fixed(ma->kernel.best_ms, 4), fixed(mb->kernel.best_ms, 4));
  row("GFLOPS", fixed(ma->kernel.gflops, 2), fixed(mb->kernel.gflops, 2));
  row("% of roof", fixed(ma->percent_of_roof, 1), fixed(mb->percent_of_roof, 1));
  row("roof GFLOPS", fixed(ma->roof.roof_gflops, 1), fixed(mb->roof.roof_gflops, 1));
  row("bound", ma->roof.bound, mb->roof.bound);
  auto reference = [](const driver::DiffMeasurement& m) {
    return m.kernel.matches_reference() ? std::string("ok")
                                        : "MISMATCH " + fixed(m.kernel.max_error, 6);
  };
  row("reference", reference(*ma), reference(*mb));
  const double a = ma->kernel.median_ms, b = mb->kernel.median_ms;
  if (a > 0 && b > 0)
    os << "  "
       << (b <= a ? "B is " + fixed(a / b, 2) + "x faster than A"
                  : "B is " + fixed(b / a, 2) + "x slower than A")
       << " (medians, measured alternately in this run)\n";
}

void print_knobs(std::ostream& os, const driver::ScheduleDiff& diff) {
  if (diff.knobs_comparable()) {
    std::vector<const driver::KnobRow*> differing;
    for (const driver::KnobRow& k : diff.knobs)
      if (k.differs()) differing.push_back(&k);
    os << "Knobs that differ (" << diff.a.schedule.space << ", " << differing.size() << " of "
       << diff.knobs.size() << ")" << (differing.empty() ? ": none" : ":") << "\n";
    size_t name_width = 0, value_width = 1;
    for (const driver::KnobRow* k : differing) {
      name_width = std::max(name_width, k->knob.size());
      value_width = std::max(value_width, driver::knob_value_text(k->a).size());
    }
    for (const driver::KnobRow* k : differing)
      os << "  " << padded(k->knob, name_width + 2)
         << padded(driver::knob_value_text(k->a), value_width + 2) << driver::knob_value_text(k->b)
         << "\n";
    return;
  }
  // A hand edit, a file or a sketch: no config to compare, only the text.
  os << "Schedule primitives that differ (no common template config; - only in A, + only in B, "
        "~ changed):\n";
  bool any = false;
  for (const AlignedRow& r : diff.schedule_rows) {
    if (r.change == RowChange::Same) continue;
    any = true;
    if (r.a >= 0)
      os << (r.change == RowChange::Changed ? "~ A " : "- A ")
         << diff.a.schedule_lines[static_cast<size_t>(r.a)] << "\n";
    if (r.b >= 0)
      os << (r.change == RowChange::Changed ? "~ B " : "+ B ")
         << diff.b.schedule_lines[static_cast<size_t>(r.b)] << "\n";
  }
  if (!any) os << "  none: the texts are equal\n";
}

void print_side_by_side(std::ostream& os, const driver::ScheduleDiff& diff, int width) {
  // "~ " + A column + " | " + B column.
  const size_t column = static_cast<size_t>(std::max(20, (width - 5) / 2));
  os << "  " << padded("A: " + diff.a.schedule.label, column) << " | B: " << diff.b.schedule.label
     << "\n";
  for (const AlignedRow& r : diff.loop_ir_rows) {
    const std::vector<std::string> left =
        wrapped(r.a >= 0 ? diff.a.loop_ir_lines[static_cast<size_t>(r.a)] : "", column);
    const std::vector<std::string> right =
        wrapped(r.b >= 0 ? diff.b.loop_ir_lines[static_cast<size_t>(r.b)] : "", column);
    for (size_t k = 0; k < std::max(left.size(), right.size()); ++k) {
      std::string line;
      line += k == 0 ? mark(r.change) : ' ';
      line += ' ';
      line += padded(k < left.size() ? left[k] : "", column);
      line += " | ";
      if (k < right.size()) line += right[k];
      while (!line.empty() && line.back() == ' ') line.pop_back();
      os << line << "\n";
    }
  }
}

void print_unified(std::ostream& os, const driver::ScheduleDiff& diff) {
  os << "--- A: " << diff.a.schedule.label << "\n+++ B: " << diff.b.schedule.label << "\n";
  for (const AlignedRow& r : diff.loop_ir_rows) {
    if (r.change == RowChange::Same) {
      os << "  " << diff.b.loop_ir_lines[static_cast<size_t>(r.b)] << "\n";
      continue;
    }
    if (r.a >= 0) os << "- " << diff.a.loop_ir_lines[static_cast<size_t>(r.a)] << "\n";
    if (r.b >= 0) os << "+ " << diff.b.loop_ir_lines[static_cast<size_t>(r.b)] << "\n";
  }
}

}  // namespace

std::string format_schedule_diff(const driver::ScheduleDiff& diff, const DiffLayout& layout) {
  std::ostringstream os;
  os << "# task " << diff.task.id << ": " << diff.task.func_name << "  " << diff.task.signature
     << "\n";
  for (const auto& [name, side] : {std::pair{"A", &diff.a}, std::pair{"B", &diff.b}}) {
    os << name << ": " << side->schedule.label;
    if (!side->schedule.detail.empty()) os << "  (" << side->schedule.detail << ")";
    os << "\n";
  }
  os << "\n";
  print_measurements(os, diff);
  os << "\n";
  print_knobs(os, diff);
  os << "\nLoop IR aligned by loop (~ changed, - only in A, + only in B):\n";
  if (layout.unified)
    print_unified(os, diff);
  else
    print_side_by_side(os, diff, layout.width);
  return os.str();
}

int terminal_width() {
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    const int n = std::atoi(columns);
    if (n > 0) return n;
  }
  return 160;
}

}  // namespace lathe::cli
