#include "driver/line_alignment.h"

#include <algorithm>
#include <regex>

namespace lathe::driver {

namespace {

struct KeyRule {
  const char* kind;
  std::regex pattern;  // matched against the line without its indentation; group 1 is the name
};

std::string trimmed(const std::string& line) {
  const size_t begin = line.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  const size_t end = line.find_last_not_of(" \t\r");
  return line.substr(begin, end - begin + 1);
}

size_t indentation(const std::string& line) {
  const size_t begin = line.find_first_not_of(" \t");
  return begin == std::string::npos ? line.size() : begin;
}

// The first rule whose pattern matches names the line; a line no rule
// matches is its own kind, so it pairs only with its equal.
LineKey key_by_rules(const std::vector<KeyRule>& rules, const std::string& line) {
  const std::string text = trimmed(line);
  std::smatch match;
  for (const KeyRule& rule : rules)
    if (std::regex_search(text, match, rule.pattern))
      return {rule.kind, match.size() > 1 ? match[1].str() : std::string()};
  return {"line: " + text, {}};
}

// The loop variable or buffer before its first component separator: the
// axis a split or fused loop came from (k_outer, k.inner -> k).
std::string stem(const std::string& name) {
  return name.substr(0, name.find_first_of("_."));
}

// What pairing two lines is worth: 0 when they may not share a row. Equal
// lines are worth most, so that the alignment keeps every unchanged line
// paired; a changed line pairs where it has the closest counterpart.
int affinity(const LineKey& ka, const LineKey& kb, const std::string& ta, const std::string& tb,
             bool same_indentation) {
  if (ka.kind != kb.kind) return 0;
  if (ta == tb) return same_indentation ? 6 : 5;
  if (ka.name == kb.name) return 3;
  if (!ka.name.empty() && stem(ka.name) == stem(kb.name)) return 2;
  return 1;
}

}  // namespace

LineKey loop_ir_line_key(const std::string& line) {
  static const std::vector<KeyRule> rules = {
      {"for", std::regex(R"(^for ([\w.]+) in )")},
      {"attr", std::regex(R"re(^with T\.attr\("([^"]*)")re")},
      {"allocate", std::regex(R"(^([\w.]+) = T\.allocate\()")},
      {"realize", std::regex(R"(^T\.realize\(([\w.]+)\[)")},
      {"let", std::regex(R"(^([\w.]+): T\.\w+ = )")},
      {"if", std::regex(R"(^if )")},
      {"else", std::regex(R"(^else:$)")},
      {"evaluate", std::regex(R"(^T\.evaluate\()")},
      {"store", std::regex(R"(^([\w.]+)\[.*\] = )")},
  };
  return key_by_rules(rules, line);
}

LineKey schedule_line_key(const std::string& line) {
  // `xo, xi = s[C].split(C.op.axis[0], factor=8)`: kind "s[C].split", name
  // "C.op.axis[0]"; `CC = s.cache_write(C, "global")`: "s.cache_write", "C".
  static const std::regex primitive(R"((?:^|=\s*)(s(?:\[\w+\])?\.\w+)\(\s*([^,)]*))");
  const std::string text = trimmed(line);
  std::smatch match;
  if (std::regex_search(text, match, primitive)) return {match[1].str(), match[2].str()};
  return {"line: " + text, {}};
}

std::vector<AlignedRow> align_lines(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b,
                                    LineKey (*key)(const std::string& line)) {
  std::vector<AlignedRow> rows;
  // The shared head and tail pair as they are; only the middle is searched.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  for (size_t i = 0; i < head; ++i)
    rows.push_back({RowChange::Same, static_cast<int>(i), static_cast<int>(i)});

  const size_t n = a.size() - head - tail, m = b.size() - head - tail;
  std::vector<LineKey> keys_a(n), keys_b(m);
  std::vector<std::string> text_a(n), text_b(m);
  std::vector<size_t> indent_a(n), indent_b(m);
  for (size_t i = 0; i < n; ++i) {
    keys_a[i] = key(a[head + i]);
    text_a[i] = trimmed(a[head + i]);
    indent_a[i] = indentation(a[head + i]);
  }
  for (size_t j = 0; j < m; ++j) {
    keys_b[j] = key(b[head + j]);
    text_b[j] = trimmed(b[head + j]);
    indent_b[j] = indentation(b[head + j]);
  }
  auto weight = [&](size_t i, size_t j) {
    return affinity(keys_a[i], keys_b[j], text_a[i], text_b[j], indent_a[i] == indent_b[j]);
  };

  // best[i][j]: the most an alignment of A's lines from i and B's from j is
  // worth. Filled from the end, so that walking from the start can take the
  // earliest pairing among equally good ones.
  const size_t width = m + 1;
  std::vector<int> best((n + 1) * width, 0);
  auto at = [&](size_t i, size_t j) -> int& { return best[i * width + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) {
      int v = std::max(at(i + 1, j), at(i, j + 1));
      if (const int w = weight(i, j); w > 0) v = std::max(v, w + at(i + 1, j + 1));
      at(i, j) = v;
    }

  size_t i = 0, j = 0;
  while (i < n || j < m) {
    const int ia = static_cast<int>(head + i), jb = static_cast<int>(head + j);
    if (i < n && j < m) {
      const int w = weight(i, j);
      if (w > 0 && at(i, j) == w + at(i + 1, j + 1)) {
        rows.push_back({text_a[i] == text_b[j] ? RowChange::Same : RowChange::Changed, ia, jb});
        ++i, ++j;
        continue;
      }
    }
    // B's line first where skipping either is as good: A's line may then
    // pair with a later line of B (the body under a loop B added) rather than
    // wait for a later line of A to take that place.
    if (j < m && (i == n || at(i, j) == at(i, j + 1))) {
      rows.push_back({RowChange::Added, -1, jb});
      ++j;
    } else {
      rows.push_back({RowChange::Removed, ia, -1});
      ++i;
    }
  }
  // Within each run of unpaired lines, A's come first, as diffs print them.
  for (auto run = rows.begin() + static_cast<std::ptrdiff_t>(head); run != rows.end();) {
    auto unpaired = [](const AlignedRow& r) { return r.a < 0 || r.b < 0; };
    run = std::find_if(run, rows.end(), unpaired);
    const auto end = std::find_if_not(run, rows.end(), unpaired);
    std::stable_partition(run, end, [](const AlignedRow& r) { return r.b < 0; });
    run = end;
  }
  for (size_t k = 0; k < tail; ++k)
    rows.push_back({RowChange::Same, static_cast<int>(a.size() - tail + k),
                    static_cast<int>(b.size() - tail + k)});
  return rows;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace lathe::driver
