// A small, strict command-line parser for the `lathe` subcommands: options
// are declared up front, and anything else is an error naming the option.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace lathe::cli {

class Args {
 public:
  // `valued` options take a value (--inputs FILE or --inputs=FILE); `flags` do not.
  Args(int argc, char** argv, int first, const std::set<std::string>& valued,
       const std::set<std::string>& flags);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // The whole value as a number; an error naming the option otherwise.
  int get_int(const std::string& name, int fallback) const;
  double get_double(const std::string& name, double fallback) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

}  // namespace lathe::cli
