// Search spaces of schedules, after AutoTVM's ConfigSpace: a list of knobs,
// each a list of options; a point of the space (a Config) picks one option per
// knob. Templates (core/topi) and Ansor-style sketches (core/tune) both
// describe themselves this way, so every tuner (random, grid, GA, XGBoost)
// searches either, and a tuning record names a point by its knob values.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace lathe::topi {

struct Knob {
  std::string name;  // "tile_ow", "unroll_kw", "tile_y"
  // A split knob's option is its factors, outermost first (their product is
  // the axis extent); any other knob's option is one value.
  std::vector<std::vector<int64_t>> options;
};

// One option index per knob, in the space's knob order.
using Config = std::vector<int>;

struct SearchSpace {
  std::string name;  // "conv2d_NCHWc.x86", "dense_pack.x86", "sketch"
  std::vector<Knob> knobs;
  Config default_config;  // what the compiler uses untuned
  // Applies the config's primitives to a fresh schedule of the computation the
  // space was made for. May throw schedule::ScheduleError for an illegal
  // combination of options.
  std::function<void(schedule::Schedule&, const Config&)> apply;
  // Which combinations of options are points of the space; empty: all of
  // them. A template whose knobs limit each other (the conv's accumulator
  // registers: pixels x channel tiles x rows) says so here, and no search
  // proposes a config it rejects.
  std::function<bool(const Config&)> constraint;
  // Where this space stands in for the group's anchor template, which had no
  // point for its shape: that template's name and why, as
  // "conv2d_NCHWc.x86: its default config is not a point of it"
  // (tune::template_search_space). Empty for a template's own space.
  std::string fallback;

  // The number of points: combinations() without a constraint, else counted
  // (an upper bound, combinations(), beyond 2e5 combinations).
  double size() const;
  double combinations() const;  // product of the option counts
  // One index in range per knob, accepted by the constraint.
  bool valid(const Config& config) const;
  // The option values of `config`: value(config, "tile_ow") == {4, 14}.
  const std::vector<int64_t>& value(const Config& config, const std::string& knob) const;
  // "tile_ow=[4,14] unroll_kw=1"
  std::string describe(const Config& config) const;
  // The config whose knob values are these (name, values) pairs; nullopt-like
  // empty Config when a knob is missing or a value is not one of its options.
  Config config_from_values(
      const std::vector<std::pair<std::string, std::vector<int64_t>>>& values) const;
};

// The ordered factorizations of `extent` into `levels` factors (outermost
// first), the innermost at most `max_inner` (0: no bound), as AutoTVM's
// define_split with policy "factors".
Knob split_knob(const std::string& name, int64_t extent, int levels, int64_t max_inner = 0);
// One option per value.
Knob choice_knob(const std::string& name, const std::vector<int64_t>& values);
// The index of the option equal to `option`; throws lathe::Error when absent.
int option_index(const Knob& knob, const std::vector<int64_t>& option);

// The option `config` picks for the knob called `name` among `knobs`: what a
// template's apply function reads, holding its own copy of the knobs. Throws
// lathe::Error when the config does not fit or no knob has that name.
const std::vector<int64_t>& knob_value(const std::vector<Knob>& knobs, const Config& config,
                                       const std::string& name);
// The single value of a knob that is not a split.
int64_t knob_int(const std::vector<Knob>& knobs, const Config& config, const std::string& name);
// config_from_values for values that must all be options: how a template
// states its default config. Throws lathe::Error naming the space otherwise.
Config require_config(const SearchSpace& space,
                      const std::vector<std::pair<std::string, std::vector<int64_t>>>& values);
// The divisors of `n` (ascending) that are at most `limit`.
std::vector<int64_t> divisors(int64_t n, int64_t limit);

}  // namespace lathe::topi
