#include "topi/table_lookup.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>

namespace lathe::topi::detail {
namespace {

using te::DataType;
using te::Expr;

const DataType kI64 = DataType::Int(64);

// Tables shorter than this, or with at most kFewRuns runs, stay trees.
constexpr size_t kMinPeriodicTable = 8;
constexpr size_t kFewRuns = 4;
constexpr size_t kMaxPeriod = 64;
// Entries at the two ends that may break the period (clamped coordinates).
constexpr size_t kMaxIrregularEnds = 8;

// Entries [start, end) follow values[p] = values[start + (p - start) % period]
// + drift * ((p - start) / period).
struct Periodic {
  size_t start = 0, end = 0, period = 0;
};

template <typename T, typename Same>
std::optional<Periodic> find_period(const std::vector<T>& v, T& drift, const Same& same) {
  const size_t n = v.size();
  if (n < kMinPeriodicTable) return std::nullopt;
  for (size_t period = 1; period <= kMaxPeriod && 4 * period <= n; ++period) {
    const size_t mid = (n - period) / 2;
    const T d = v[mid + period] - v[mid];
    auto holds = [&](size_t p) { return same(v[p + period], v[p] + d); };
    if (!holds(mid)) continue;
    size_t s = mid, t = mid + 1;
    while (s > 0 && holds(s - 1)) --s;
    while (t + period < n && holds(t)) ++t;
    const size_t end = t + period;
    if (s + (n - end) > kMaxIrregularEnds || end - s < 2 * period) continue;
    drift = d;
    return Periodic{s, end, period};
  }
  return std::nullopt;
}

// The table [first, last] of `v` at `pos` as a tree of selects over its runs.
Expr int_tree(const std::vector<int64_t>& values, const Expr& pos) {
  struct Run {
    int64_t start, first;
    int slope;  // 0 or 1; a run of one element has slope 0
  };
  std::vector<Run> runs;
  for (size_t p = 0; p < values.size(); ++p) {
    const int64_t at = static_cast<int64_t>(p);
    if (!runs.empty()) {
      Run& r = runs.back();
      const bool single = r.start == at - 1;
      if (values[p] == r.first + r.slope * (at - r.start) && (!single || r.slope == 0)) continue;
      if (single && values[p] == r.first + 1) {
        r.slope = 1;
        continue;
      }
    }
    runs.push_back({at, values[p], 0});
  }
  auto leaf = [&](const Run& r) {
    if (r.slope == 0) return te::make_int(r.first, kI64);
    return pos + te::make_int(r.first - r.start, kI64);
  };
  std::function<Expr(size_t, size_t)> tree = [&](size_t lo, size_t hi) -> Expr {
    if (lo == hi) return leaf(runs[lo]);
    size_t mid = (lo + hi + 1) / 2;
    return te::select(pos < te::make_int(runs[mid].start, kI64), tree(lo, mid - 1), tree(mid, hi));
  };
  return runs.empty() ? te::make_int(0, kI64) : tree(0, runs.size() - 1);
}

size_t count_int_runs(const std::vector<int64_t>& v) {
  size_t runs = 0;
  for (size_t p = 0; p < v.size(); ++p)
    if (p < 2 || v[p] - v[p - 1] != v[p - 1] - v[p - 2] ||
        (v[p] - v[p - 1] != 0 && v[p] - v[p - 1] != 1))
      ++runs;
  return runs;
}

// Runs of equal entries in a float table.
size_t count_float_runs(const std::vector<double>& v) {
  size_t runs = 0;
  for (size_t k = 0; k < v.size(); ++k) runs += k == 0 || v[k] != v[k - 1];
  return runs;
}

// Float entries within 1e-12 of each other count as equal when finding a
// period (a weight of 1/3 computed at two coordinates differs in its last bit).
bool same_float(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

Expr float_tree(const std::vector<double>& values, const Expr& pos, DataType t) {
  std::vector<size_t> starts;
  for (size_t p = 0; p < values.size(); ++p)
    if (p == 0 || values[p] != values[p - 1]) starts.push_back(p);
  std::function<Expr(size_t, size_t)> tree = [&](size_t lo, size_t hi) -> Expr {
    if (lo == hi) return te::make_const(t, values[starts[lo]]);
    size_t mid = (lo + hi + 1) / 2;
    return te::select(pos < te::make_int(int64_t(starts[mid]), kI64), tree(lo, mid - 1),
                      tree(mid, hi));
  };
  return starts.empty() ? te::make_zero(t) : tree(0, starts.size() - 1);
}

// The irregular ends around the periodic part: select(pos < start, head,
// select(pos >= end, tail, interior)).
template <typename T, typename Tree>
Expr with_ends(const std::vector<T>& v, const Periodic& p, const Expr& pos, Expr interior,
               const Tree& tree) {
  if (p.end < v.size()) {
    const std::vector<T> tail(v.begin() + static_cast<std::ptrdiff_t>(p.end), v.end());
    const Expr end = te::make_int(static_cast<int64_t>(p.end), kI64);
    interior = te::select(pos >= end, tree(tail, pos - end), interior);
  }
  if (p.start > 0) {
    const std::vector<T> head(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(p.start));
    interior = te::select(pos < te::make_int(static_cast<int64_t>(p.start), kI64), tree(head, pos),
                          interior);
  }
  return interior;
}

}  // namespace

// At most this many runs make a compact table (or its period's repeat).
constexpr size_t kCompactRuns = 16;

bool compact_table(const std::vector<int64_t>& values) {
  if (count_int_runs(values) <= kCompactRuns) return true;
  int64_t drift = 0;
  std::optional<Periodic> p =
      find_period(values, drift, [](int64_t a, int64_t b) { return a == b; });
  return p && p->period <= kCompactRuns;
}

bool compact_float_table(const std::vector<double>& values) {
  if (count_float_runs(values) <= kCompactRuns) return true;
  double drift = 0;
  std::optional<Periodic> p = find_period(values, drift, same_float);
  return p && drift == 0 && p->period <= kCompactRuns;
}

Expr table_lookup(const std::vector<int64_t>& values, const Expr& position) {
  const Expr pos = te::cast(kI64, position);
  int64_t drift = 0;
  std::optional<Periodic> p;
  if (count_int_runs(values) > kFewRuns)
    p = find_period(values, drift, [](int64_t a, int64_t b) { return a == b; });
  if (!p) return int_tree(values, pos);
  const std::vector<int64_t> repeat(
      values.begin() + static_cast<std::ptrdiff_t>(p->start),
      values.begin() + static_cast<std::ptrdiff_t>(p->start + p->period));
  const Expr q = pos - te::make_int(static_cast<int64_t>(p->start), kI64);
  const Expr period = te::make_int(static_cast<int64_t>(p->period), kI64);
  Expr interior = p->period == 1 ? te::make_int(repeat[0], kI64) : int_tree(repeat, q % period);
  if (drift != 0) interior = interior + te::make_int(drift, kI64) * (q / period);
  return with_ends(values, *p, pos, interior, int_tree);
}

Expr float_table_lookup(const std::vector<double>& values, const Expr& position, DataType t) {
  const Expr pos = te::cast(kI64, position);
  double drift = 0;
  std::optional<Periodic> p;
  if (count_float_runs(values) > kFewRuns) p = find_period(values, drift, same_float);
  auto tree = [t](const std::vector<double>& v, const Expr& at) { return float_tree(v, at, t); };
  // A float drift would need a multiply in the kernel: only repeats are taken.
  if (!p || drift != 0) return float_tree(values, pos, t);
  const std::vector<double> repeat(
      values.begin() + static_cast<std::ptrdiff_t>(p->start),
      values.begin() + static_cast<std::ptrdiff_t>(p->start + p->period));
  const Expr q = pos - te::make_int(static_cast<int64_t>(p->start), kI64);
  const Expr interior = tree(repeat, q % te::make_int(static_cast<int64_t>(p->period), kI64));
  return with_ends(values, *p, pos, interior, tree);
}

}  // namespace lathe::topi::detail
