// One `lathe` subcommand's options, declared on CLI11 (which parses them,
// prints --help and rejects what is not declared) and read back by name with
// Lathe's own checks: a value that is not a number, for one, is an error that
// names the option and the value.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace lathe::cli {

// The number std::stod reads at the start of `text` and how many characters
// it took: {0, 0} when there is none.
std::pair<double, size_t> leading_number(const std::string& text);

class Args {
 public:
  // Adds the subcommand `name` to `lathe`.
  Args(CLI::App& lathe, const std::string& name, const std::string& description);

  // Declarations, in the order --help lists them. `metavar` names the value
  // ("FILE", "N"); a repeated option keeps its last value, as in tvmc.
  Args& positional(const std::string& name, const std::string& description);
  Args& value(const std::string& name, const std::string& metavar, const std::string& description);
  Args& flag(const std::string& name, const std::string& description);
  // An option followed by exactly `count` values (--diff A B).
  Args& values(const std::string& name, const std::string& metavar, int count,
               const std::string& description);
  // The options several commands share (read back by model_options.h):
  // --target, --input-shapes, --no-layout, --plugin.
  Args& target_option();
  Args& input_shapes_option();
  Args& plugin_option();
  Args& no_layout_flag();

  CLI::App& app() const { return *app_; }
  const std::string& name() const { return name_; }

  // After parsing.
  const std::string& positional() const { return positional_; }
  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // The values of an option declared with values(); empty when not given.
  std::vector<std::string> get_all(const std::string& name) const;
  // The whole value as a number; an error naming the option otherwise.
  int get_int(const std::string& name, int fallback) const;
  double get_double(const std::string& name, double fallback) const;

  // Throws for arguments CLI11 left over (allowed as extras so that the
  // message can suggest the nearest declared option).
  void check_leftovers() const;

 private:
  CLI::App* app_;
  std::string name_;
  std::string positional_;
  // Node-based, so the strings CLI11 writes into stay where they are.
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> lists_;
};

// The declared name closest to `given` by edit distance, if it is close
// enough to be a typo; empty otherwise.
std::string nearest_name(const std::string& given, const std::vector<std::string>& names);

}  // namespace lathe::cli
