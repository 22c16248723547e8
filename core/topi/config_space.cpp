#include "topi/config_space.h"

#include <algorithm>
#include <sstream>

#include "support/error.h"

namespace lathe::topi {
namespace {

void factorizations(int64_t extent, int levels, int64_t max_inner, std::vector<int64_t>& prefix,
                    std::vector<std::vector<int64_t>>& out) {
  if (levels == 1) {
    if (max_inner > 0 && extent > max_inner && !prefix.empty()) return;
    prefix.push_back(extent);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t f = 1; f <= extent; ++f) {
    if (extent % f) continue;
    prefix.push_back(f);
    factorizations(extent / f, levels - 1, max_inner, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

double SearchSpace::combinations() const {
  double n = 1;
  for (const Knob& k : knobs) n *= static_cast<double>(k.options.size());
  return n;
}

double SearchSpace::size() const {
  const double all = combinations();
  if (!constraint || all > 2e5 || all == 0) return all;
  double n = 0;
  Config config(knobs.size(), 0);
  for (int64_t index = 0; index < static_cast<int64_t>(all); ++index) {
    int64_t rest = index;
    for (size_t k = config.size(); k-- > 0;) {
      const auto radix = static_cast<int64_t>(knobs[k].options.size());
      config[k] = static_cast<int>(rest % radix);
      rest /= radix;
    }
    n += constraint(config) ? 1 : 0;
  }
  return n;
}

bool SearchSpace::valid(const Config& config) const {
  if (config.size() != knobs.size()) return false;
  for (size_t i = 0; i < knobs.size(); ++i)
    if (config[i] < 0 || static_cast<size_t>(config[i]) >= knobs[i].options.size()) return false;
  return !constraint || constraint(config);
}

const std::vector<int64_t>& SearchSpace::value(const Config& config,
                                               const std::string& knob) const {
  LATHE_CHECK(valid(config), "config does not fit search space ", name);
  return knob_value(knobs, config, knob);
}

std::string SearchSpace::describe(const Config& config) const {
  std::ostringstream s;
  for (size_t i = 0; i < knobs.size() && i < config.size(); ++i) {
    const std::vector<int64_t>& v = knobs[i].options.at(static_cast<size_t>(config[i]));
    s << (i ? " " : "") << knobs[i].name << "=";
    if (v.size() == 1) {
      s << v[0];
    } else {
      s << "[";
      for (size_t j = 0; j < v.size(); ++j) s << (j ? "," : "") << v[j];
      s << "]";
    }
  }
  return s.str();
}

Config SearchSpace::config_from_values(
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& values) const {
  Config config;
  for (const Knob& k : knobs) {
    int index = -1;
    for (const auto& [name, v] : values) {
      if (name != k.name) continue;
      for (size_t o = 0; o < k.options.size(); ++o)
        if (k.options[o] == v) index = static_cast<int>(o);
    }
    if (index < 0) return {};
    config.push_back(index);
  }
  return config;
}

Knob split_knob(const std::string& name, int64_t extent, int levels, int64_t max_inner) {
  LATHE_CHECK(extent > 0 && levels > 0, "split knob ", name, " needs a positive extent and levels");
  Knob knob{name, {}};
  std::vector<int64_t> prefix;
  factorizations(extent, levels, max_inner, prefix, knob.options);
  return knob;
}

Knob choice_knob(const std::string& name, const std::vector<int64_t>& values) {
  Knob knob{name, {}};
  for (int64_t v : values) knob.options.push_back({v});
  return knob;
}

int option_index(const Knob& knob, const std::vector<int64_t>& option) {
  for (size_t o = 0; o < knob.options.size(); ++o)
    if (knob.options[o] == option) return static_cast<int>(o);
  fail(str("knob ", knob.name, " has no such option"));
}

const std::vector<int64_t>& knob_value(const std::vector<Knob>& knobs, const Config& config,
                                       const std::string& name) {
  LATHE_CHECK(config.size() == knobs.size(), "config of ", config.size(), " indices for ",
              knobs.size(), " knobs");
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (knobs[i].name != name) continue;
    LATHE_CHECK(config[i] >= 0 && static_cast<size_t>(config[i]) < knobs[i].options.size(),
                "option ", config[i], " of knob ", name, " is out of range");
    return knobs[i].options[static_cast<size_t>(config[i])];
  }
  fail(str("no knob ", name));
}

int64_t knob_int(const std::vector<Knob>& knobs, const Config& config, const std::string& name) {
  const std::vector<int64_t>& v = knob_value(knobs, config, name);
  LATHE_CHECK(v.size() == 1, "knob ", name, " is a split, not a single value");
  return v[0];
}

Config require_config(const SearchSpace& space,
                      const std::vector<std::pair<std::string, std::vector<int64_t>>>& values) {
  Config config = space.config_from_values(values);
  if (config.empty() && !space.knobs.empty()) {
    for (const Knob& k : space.knobs) {
      auto it = std::find_if(values.begin(), values.end(),
                             [&](const auto& v) { return v.first == k.name; });
      LATHE_CHECK(it != values.end(), space.name, ": no value for knob ", k.name);
      option_index(k, it->second);  // throws for a value that is not an option
    }
  }
  return config;
}

std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min(n, limit); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

}  // namespace lathe::topi
