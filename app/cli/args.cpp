#include "args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace lathe::cli {

Args::Args(CLI::App& lathe, const std::string& name, const std::string& description)
    : app_(lathe.add_subcommand(name, description)), name_(name) {
  // Leftovers are reported by check_leftovers, with a suggestion.
  app_->allow_extras();
}

Args& Args::positional(const std::string& name, const std::string& description) {
  app_->add_option(name, positional_, description)->required();
  return *this;
}

Args& Args::value(const std::string& name, const std::string& metavar,
                  const std::string& description) {
  app_->add_option("--" + name, values_[name], description)->type_name(metavar)->take_last();
  return *this;
}

Args& Args::flag(const std::string& name, const std::string& description) {
  app_->add_flag("--" + name, description)->disable_flag_override();
  return *this;
}

Args& Args::values(const std::string& name, const std::string& metavar, int count,
                   const std::string& description) {
  app_->add_option("--" + name, lists_[name], description)->type_name(metavar)->expected(count);
  return *this;
}

Args& Args::target_option() {
  return value("target", "TARGET",
               "\"llvm [-mcpu=CPU] [-mattr=+f,...]\" (default: this CPU), or \"cuda "
               "[-arch=sm_90]\" (compile writes PTX)");
}

Args& Args::input_shapes_option() {
  return value("input-shapes", "\"name:[d,...]\"", "fix the shapes of the model's inputs");
}

Args& Args::plugin_option() {
  return value("plugin", "NAME[,NAME]",
               "load plugins: NAME.so on LATHE_PLUGIN_PATH or in lib/lathe/plugins, or a path");
}

Args& Args::no_layout_flag() {
  return flag("no-layout", "keep convolutions in NCHW (no blocked layout)");
}

bool Args::has(const std::string& name) const {
  return app_->count("--" + name) > 0;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return has(name) && it != values_.end() ? it->second : fallback;
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  auto it = lists_.find(name);
  return has(name) && it != lists_.end() ? it->second : std::vector<std::string>{};
}

std::pair<double, size_t> leading_number(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  return {value, used};
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
  const auto [value, used] = leading_number(text);
  LATHE_CHECK(used > 0 && used == text.size() && std::isfinite(value), "option --", name,
              " expects a number, got '", text, "'");
  return value;
}

void Args::check_leftovers() const {
  const std::vector<std::string> left = app_->remaining();
  if (left.empty()) return;
  const std::string& first = left.front();
  if (first.rfind("-", 0) != 0)
    fail(str("unexpected argument '", first, "'; see lathe ", name_, " --help"));
  std::vector<std::string> declared;
  for (const CLI::Option* option : app_->get_options())
    for (const std::string& long_name : option->get_lnames()) declared.push_back("--" + long_name);
  const std::string given = first.substr(0, first.find('='));
  const std::string near = nearest_name(given, declared);
  fail(str("unknown option ", given,
           near.empty() ? "; see lathe " + name_ + " --help" : "; did you mean " + near + "?"));
}

std::string nearest_name(const std::string& given, const std::vector<std::string>& names) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
        diagonal = above;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_distance = std::max<size_t>(2, given.size() / 3) + 1;
  for (const std::string& name : names) {
    // A prefix of a declared name is as good as a typo of it.
    const size_t d = name.rfind(given, 0) == 0 && given.size() > 2 ? 1 : distance(given, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

}  // namespace lathe::cli
