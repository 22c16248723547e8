#include "args.h"

#include <cmath>

#include "support/error.h"

namespace lathe::cli {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& valued,
           const std::set<std::string>& flags) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::string value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (flags.count(name)) {
      LATHE_CHECK(!inline_value, "option --", name, " takes no value");
      values_[name] = "1";
    } else if (valued.count(name)) {
      if (!inline_value) {
        LATHE_CHECK(i + 1 < argc, "option --", name, " needs a value");
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      fail(str("unknown option --", name));
    }
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

int Args::get_int(const std::string& name, int fallback) const {
  if (!has(name)) return fallback;
  const std::string text = get(name);
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  LATHE_CHECK(used > 0 && used == text.size(), "option --", name, " expects an integer, got '",
              text, "'");
  return value;
}

double Args::get_double(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string text = get(name);
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  LATHE_CHECK(used > 0 && used == text.size() && std::isfinite(value), "option --", name,
              " expects a number, got '", text, "'");
  return value;
}

}  // namespace lathe::cli
